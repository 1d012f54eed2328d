import { describe, expect, it } from 'vitest';
import { defaultComparePair, noConfigurationChange } from './compare-default.ts';

const v = (version: number, changeType: string) => ({ version, changeType });

describe('defaultComparePair', () => {
  it('skips pauses and resumes to the last edit and the version before it', () => {
    expect(defaultComparePair([v(5, 'resume'), v(4, 'pause'), v(3, 'update'), v(2, 'update'), v(1, 'create')])).toEqual([2, 3]);
  });
  it('takes the two newest when the newest is an edit', () => {
    expect(defaultComparePair([v(3, 'rollback'), v(2, 'pause'), v(1, 'create')])).toEqual([2, 3]);
  });
  it('ticks nothing when only the creation changed the configuration: every pair differs in status alone', () => {
    expect(defaultComparePair([v(3, 'resume'), v(2, 'pause'), v(1, 'create')])).toEqual([]);
  });
  it('one version or none: nothing to pair', () => {
    expect(defaultComparePair([v(1, 'create')])).toEqual([]);
    expect(defaultComparePair([])).toEqual([]);
  });
});

describe('noConfigurationChange', () => {
  it('says why there is nothing to compare when every later version records a status change', () => {
    expect(noConfigurationChange([v(3, 'resume'), v(2, 'pause'), v(1, 'create')])).toBe(
      'The configuration has not changed since v1: v2–v3 only record status changes (pause, resume, delete, restore). Edit the job to have a change to compare.',
    );
    expect(noConfigurationChange([v(2, 'pause'), v(1, 'create')])).toMatch(/^The configuration has not changed since v1: v2 only records status changes/);
    expect(noConfigurationChange([v(1, 'create')])).toMatch(/^Only v1 exists/);
  });
  it('is null once an edit exists, or while v1 is on a page not loaded yet', () => {
    expect(noConfigurationChange([v(3, 'pause'), v(2, 'update'), v(1, 'create')])).toBeNull();
    expect(noConfigurationChange([v(3, 'rollback'), v(2, 'pause'), v(1, 'create')])).toBeNull();
    expect(noConfigurationChange([v(300, 'pause'), v(299, 'resume')])).toBeNull();
    expect(noConfigurationChange([])).toBeNull();
  });
});
