import { describe, expect, it } from 'vitest';
import { defaultComparePair } from './compare-default.ts';

const v = (version: number, changeType: string) => ({ version, changeType });

describe('defaultComparePair', () => {
  it('skips pauses and resumes to the last edit and the version before it', () => {
    expect(defaultComparePair([v(5, 'resume'), v(4, 'pause'), v(3, 'update'), v(2, 'update'), v(1, 'create')])).toEqual([2, 3]);
  });
  it('takes the two newest when the newest is an edit', () => {
    expect(defaultComparePair([v(3, 'rollback'), v(2, 'pause'), v(1, 'create')])).toEqual([2, 3]);
  });
  it('falls back to the two newest when only the creation changed the configuration', () => {
    expect(defaultComparePair([v(3, 'resume'), v(2, 'pause'), v(1, 'create')])).toEqual([2, 3]);
  });
  it('one version or none: nothing to pair', () => {
    expect(defaultComparePair([v(1, 'create')])).toEqual([1]);
    expect(defaultComparePair([])).toEqual([]);
  });
});
