import { describe, expect, it } from 'vitest';
import { stepWithoutLayout, withoutLayout } from './layout-rule.ts';
import { sameConfiguration } from './rollback-rule.ts';

const snap = (x: number, handler = 'h', status = 'active') => ({
  key: 'j', status, steps: [{ key: 'a', handler, position: { x, y: 0 } }], edges: [],
});

describe('layout-rule: positions are layout, not configuration', () => {
  it.each([
    ['only a box moved', snap(0), snap(500), true],
    ['a handler changed', snap(0), snap(0, 'h2'), false],
    ['a handler changed and a box moved', snap(0), snap(500, 'h2'), false],
    ['only the status differs', snap(0), snap(0, 'h', 'paused'), true],
  ] as const)('%s', (_name, a, b, same) => {
    expect(sameConfiguration(a, b)).toBe(same);
  });
  it('leaves out every step\'s position and nothing else', () => {
    expect(withoutLayout(snap(3))).toEqual({ key: 'j', status: 'active', steps: [{ key: 'a', handler: 'h' }], edges: [] });
    expect(stepWithoutLayout({ key: 'a', position: { x: 1, y: 2 } })).toEqual({ key: 'a' });
    expect(withoutLayout({ key: 'no-steps' })).toEqual({ key: 'no-steps' });
  });
});
