import { describe, expect, it } from 'vitest';
import { dagListOrder, findCycle, formatCycle, topologicalOrder, wouldCreateCycle } from './graph';

const E = (s: string) =>
  s
    .split(/\s*,\s*/)
    .filter(Boolean)
    .map((p) => {
      const [from, to] = p.split('>').map((x) => x.trim());
      return { from: from!, to: to! };
    });

describe('findCycle', () => {
  const cases: { name: string; keys: string[]; edges: string; expect: string[] | null }[] = [
    { name: 'empty graph', keys: [], edges: '', expect: null },
    { name: 'single step', keys: ['a'], edges: '', expect: null },
    { name: 'chain', keys: ['a', 'b', 'c'], edges: 'a>b, b>c', expect: null },
    { name: 'diamond', keys: ['a', 'b', 'c', 'd'], edges: 'a>b, a>c, b>d, c>d', expect: null },
    { name: 'self edge', keys: ['a'], edges: 'a>a', expect: ['a', 'a'] },
    { name: 'two-cycle', keys: ['a', 'b'], edges: 'a>b, b>a', expect: ['a', 'b', 'a'] },
    { name: 'three-cycle in order', keys: ['a', 'b', 'c'], edges: 'a>b, b>c, c>a', expect: ['a', 'b', 'c', 'a'] },
    {
      name: 'cycle reached through a tail, rotated to the first listed step',
      keys: ['x', 'b', 'c', 'a'],
      edges: 'x>b, b>c, c>a, a>b',
      expect: ['b', 'c', 'a', 'b'],
    },
    { name: 'cycle beside an acyclic part', keys: ['a', 'b', 'c', 'd'], edges: 'a>b, c>d, d>c', expect: ['c', 'd', 'c'] },
    { name: 'edges to unknown steps ignored', keys: ['a'], edges: 'a>zz, zz>a', expect: null },
  ];
  for (const c of cases) it(c.name, () => expect(findCycle(c.keys, E(c.edges))).toEqual(c.expect));
});

describe('topologicalOrder', () => {
  const cases: { name: string; keys: string[]; edges: string; expect: string[] | null }[] = [
    { name: 'no edges keeps listed order', keys: ['c', 'a', 'b'], edges: '', expect: ['c', 'a', 'b'] },
    { name: 'reversed chain', keys: ['c', 'b', 'a'], edges: 'a>b, b>c', expect: ['a', 'b', 'c'] },
    { name: 'diamond', keys: ['d', 'c', 'b', 'a'], edges: 'a>b, a>c, b>d, c>d', expect: ['a', 'c', 'b', 'd'] },
    { name: 'duplicate edges harmless', keys: ['a', 'b'], edges: 'a>b, a>b', expect: ['a', 'b'] },
    { name: 'cycle gives null', keys: ['a', 'b'], edges: 'a>b, b>a', expect: null },
  ];
  for (const c of cases) it(c.name, () => expect(topologicalOrder(c.keys, E(c.edges))).toEqual(c.expect));
});

describe('dagListOrder', () => {
  it('parents first, ties in listed order', () => expect(dagListOrder(['alpha', 'mid', 'zeta'], E('zeta>mid, mid>alpha'))).toEqual(['zeta', 'mid', 'alpha']));
  it('a cyclic graph is listed as given', () => expect(dagListOrder(['b', 'a'], E('a>b, b>a'))).toEqual(['b', 'a']));
});

describe('wouldCreateCycle', () => {
  const cases: { name: string; edges: string; from: string; to: string; expect: string[] | null }[] = [
    { name: 'self edge', edges: '', from: 'a', to: 'a', expect: ['a', 'a'] },
    { name: 'reverse of an edge', edges: 'a>b', from: 'b', to: 'a', expect: ['b', 'a', 'b'] },
    { name: 'closing a chain', edges: 'a>b, b>c', from: 'c', to: 'a', expect: ['c', 'a', 'b', 'c'] },
    { name: 'shortest closing path reported', edges: 'a>b, b>c, c>d, a>d', from: 'd', to: 'a', expect: ['d', 'a', 'd'] },
    { name: 'parallel edge is not a cycle', edges: 'a>b', from: 'a', to: 'b', expect: null },
    { name: 'cross edge is not a cycle', edges: 'a>b, a>c', from: 'b', to: 'c', expect: null },
    { name: 'forward edge is not a cycle', edges: 'a>b, b>c', from: 'a', to: 'c', expect: null },
    { name: 'unknown keys are fine', edges: '', from: 'x', to: 'y', expect: null },
  ];
  for (const c of cases) it(c.name, () => expect(wouldCreateCycle(E(c.edges), c.from, c.to)).toEqual(c.expect));

  it('formats for messages', () => expect(formatCycle(['b', 'a', 'b'])).toBe('b -> a -> b'));
});

describe('deep graphs do not overflow the stack', () => {
  const n = 100_000;
  const keys = Array.from({ length: n }, (_, i) => `s${i}`);
  const chain = keys.slice(1).map((k, i) => ({ from: keys[i]!, to: k }));
  it('findCycle on a 100k chain', () => expect(findCycle(keys, chain)).toBeNull());
  it('findCycle on a 100k ring names all of it', () => {
    const ring = [...chain, { from: keys[n - 1]!, to: keys[0]! }];
    const cycle = findCycle(keys, ring)!;
    expect(cycle.length).toBe(n + 1);
    expect(cycle[0]).toBe('s0');
    expect(cycle[n]).toBe('s0');
  });
  it('wouldCreateCycle on a 100k chain', () => expect(wouldCreateCycle(chain, keys[n - 1]!, keys[0]!)?.length).toBe(n + 1));
});
