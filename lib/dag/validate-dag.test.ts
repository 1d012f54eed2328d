import { describe, expect, it } from 'vitest';
import type { DepType } from './types';
import { validateDag, type ValidateDagInput } from './validate-dag';

const steps = (...keys: string[]) => keys.map((key) => ({ key }));
const edge = (from: string, to: string, type: DepType = 'hard') => ({ from, to, type });

describe('validateDag: accepted graphs', () => {
  const cases: { name: string; input: ValidateDagInput; order: string[] }[] = [
    { name: 'one step', input: { steps: steps('main'), edges: [] }, order: ['main'] },
    {
      name: 'diamond with every edge type',
      input: { steps: steps('d', 'c', 'b', 'a'), edges: [edge('a', 'b'), edge('a', 'c', 'soft'), edge('b', 'd', 'on_failure'), edge('c', 'd')] },
      order: ['a', 'c', 'b', 'd'],
    },
    {
      name: 'keys at the edge of the alphabet',
      input: { steps: steps('A', '0', 'a.b_c-d', 'x'.repeat(64)), edges: [edge('A', 'x'.repeat(64))] },
      order: ['A', '0', 'a.b_c-d', 'x'.repeat(64)],
    },
    {
      name: 'disconnected components',
      input: { steps: steps('a', 'b', 'c', 'd'), edges: [edge('b', 'a'), edge('d', 'c')] },
      order: ['b', 'a', 'd', 'c'],
    },
  ];
  for (const c of cases) it(c.name, () => expect(validateDag(c.input)).toEqual({ ok: true, order: c.order }));
});

describe('validateDag: refused graphs', () => {
  const cases: { name: string; input: ValidateDagInput; errors: { path: string; message: RegExp | string }[] }[] = [
    { name: 'no steps', input: { steps: [], edges: [] }, errors: [{ path: 'steps', message: /at least one step/ }] },
    { name: 'empty key', input: { steps: steps(''), edges: [] }, errors: [{ path: 'steps.0.key', message: /Step key/ }] },
    { name: 'key starting with a dot', input: { steps: steps('ok', '.x'), edges: [] }, errors: [{ path: 'steps.1.key', message: /Step key/ }] },
    { name: 'key with a space', input: { steps: steps('a b'), edges: [] }, errors: [{ path: 'steps.0.key', message: /Step key/ }] },
    { name: 'key of 65 characters', input: { steps: steps('x'.repeat(65)), edges: [] }, errors: [{ path: 'steps.0.key', message: /1-64/ }] },
    {
      name: 'duplicate key reported at the duplicate',
      input: { steps: steps('a', 'b', 'a'), edges: [] },
      errors: [{ path: 'steps.2.key', message: 'Duplicate step key "a" (already used by steps.0)' }],
    },
    {
      name: 'unknown endpoints',
      input: { steps: steps('a'), edges: [edge('a', 'b'), edge('z', 'a')] },
      errors: [
        { path: 'edges.0.to', message: 'Unknown step "b"' },
        { path: 'edges.1.from', message: 'Unknown step "z"' },
      ],
    },
    {
      name: 'self edge',
      input: { steps: steps('a', 'b'), edges: [edge('a', 'b'), edge('b', 'b')] },
      errors: [{ path: 'edges.1.to', message: 'A step cannot depend on itself (b -> b)' }],
    },
    {
      name: 'duplicate edge, even with another type',
      input: { steps: steps('a', 'b'), edges: [edge('a', 'b'), edge('a', 'b', 'soft')] },
      errors: [{ path: 'edges.1', message: 'Duplicate edge a -> b (already edges.0)' }],
    },
    {
      name: 'bad edge type',
      input: { steps: steps('a', 'b'), edges: [{ from: 'a', to: 'b', type: 'maybe' as DepType }] },
      errors: [{ path: 'edges.0.type', message: /hard, soft or on_failure/ }],
    },
    {
      name: 'two-cycle',
      input: { steps: steps('a', 'b'), edges: [edge('a', 'b'), edge('b', 'a', 'soft')] },
      errors: [{ path: 'edges', message: 'Cycle: a -> b -> a' }],
    },
    {
      name: 'three-cycle named in order',
      input: { steps: steps('a', 'b', 'c'), edges: [edge('a', 'b'), edge('b', 'c'), edge('c', 'a')] },
      errors: [{ path: 'edges', message: 'Cycle: a -> b -> c -> a' }],
    },
    {
      name: 'cycle behind a tail, several problems at once',
      input: {
        steps: steps('start', 'extract', 'load', 'extract', 'check'),
        edges: [edge('start', 'extract'), edge('extract', 'load'), edge('load', 'check'), edge('check', 'extract', 'on_failure'), edge('load', 'nope')],
      },
      errors: [
        { path: 'steps.3.key', message: /Duplicate step key "extract"/ },
        { path: 'edges.4.to', message: 'Unknown step "nope"' },
        { path: 'edges', message: 'Cycle: extract -> load -> check -> extract' },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = validateDag(c.input);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.errors.map((e) => e.path)).toEqual(c.errors.map((e) => e.path));
      c.errors.forEach((want, i) => {
        if (typeof want.message === 'string') expect(r.errors[i]!.message).toBe(want.message);
        else expect(r.errors[i]!.message).toMatch(want.message);
      });
    });
  }
});

// Random layered DAG like bench/dag.ts: 10,000 steps in 100 layers, ~30,000 edges, every edge points to a later layer.
function layeredDag(n: number, m: number, seed = 42) {
  // mulberry32: 32-bit integer arithmetic via Math.imul, so no float precision loss (and no short period).
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const layers = 100;
  const per = n / layers;
  const keys = Array.from({ length: n }, (_, i) => `step-${i}`);
  const seen = new Set<string>();
  const edges: { from: string; to: string; type: DepType }[] = [];
  while (edges.length < m) {
    const la = Math.floor(rnd() * (layers - 1));
    const lb = la + 1 + Math.floor(rnd() * Math.min(3, layers - 1 - la));
    const a = la * per + Math.floor(rnd() * per);
    const b = lb * per + Math.floor(rnd() * per);
    const k = `${a}>${b}`;
    if (seen.has(k)) continue;
    seen.add(k);
    edges.push({ from: keys[a]!, to: keys[b]!, type: edges.length % 7 === 0 ? 'soft' : 'hard' });
  }
  // Shuffle steps so the order does not already happen to be topological.
  const shuffled = [...keys];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  return { steps: shuffled.map((key) => ({ key })), edges };
}

describe('validateDag: large graphs', () => {
  const big = layeredDag(10_000, 30_000);

  // Speed is measured by bench/dag.ts (numbers, not assertions: a wall-clock limit in a
  // unit test fails on a busy machine and passes a slow algorithm on a fast one). These
  // tests assert the results at full size and that nothing recurses per step.
  it('10,000 steps / 30,000 edges validate with a correct topological order', () => {
    const r = validateDag(big);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.order.length).toBe(10_000);
    const pos = new Map(r.order.map((k, i) => [k, i]));
    const violations = big.edges.filter((e) => pos.get(e.from)! >= pos.get(e.to)!);
    expect(violations).toEqual([]);
  });

  it('a back edge in the large graph is found and named', () => {
    const e = big.edges[123]!;
    const withCycle = { steps: big.steps, edges: [...big.edges, { from: e.to, to: e.from, type: 'hard' as const }] };
    const r = validateDag(withCycle);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.path).toBe('edges');
    const names = r.errors[0]!.message.replace('Cycle: ', '').split(' -> ');
    expect(names[0]).toBe(names[names.length - 1]);
    expect(names).toContain(e.from);
    expect(names).toContain(e.to);
  });

  it('a 50,000-step chain validates and a cycle through all of it is named: nothing recurses per step', () => {
    // Far deeper than V8's call stack (~10,000 frames): a recursive walk would throw RangeError here.
    const keys = Array.from({ length: 50_000 }, (_, i) => `c${i}`);
    const edges = keys.slice(1).map((k, i) => ({ from: keys[i]!, to: k, type: 'hard' as const }));
    const chain = { steps: keys.map((key) => ({ key })), edges };
    const r = validateDag(chain);
    expect(r.ok && r.order[49_999]).toBe('c49999');
    const looped = validateDag({ steps: chain.steps, edges: [...edges, { from: 'c49999', to: 'c0', type: 'hard' as const }] });
    expect(looped.ok).toBe(false);
    if (looped.ok) return;
    expect(looped.errors[0]!.message.split(' -> ')).toHaveLength(50_001);
  });
});
