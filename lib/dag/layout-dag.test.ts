import { describe, expect, it } from 'vitest';
import dagre from '@dagrejs/dagre';
import { DAGRE_MAX_STEPS, DEFAULT_NODE_HEIGHT, DEFAULT_NODE_WIDTH, layoutDag, layoutWork, usesDagre, type LayoutOptions } from './layout-dag';

const nodes = (...ids: string[]) => ids.map((id) => ({ id }));
const edges = (...pairs: [string, string][]) => pairs.map(([source, target]) => ({ source, target }));

describe('layoutDag', () => {
  it('LR: a chain goes left to right on one row', () => {
    const p = layoutDag(nodes('a', 'b', 'c'), edges(['a', 'b'], ['b', 'c']), { direction: 'LR' });
    expect(p.a!.x).toBeLessThan(p.b!.x);
    expect(p.b!.x).toBeLessThan(p.c!.x);
    expect(p.a!.y).toBe(p.b!.y);
    expect(p.b!.x - p.a!.x).toBeGreaterThanOrEqual(DEFAULT_NODE_WIDTH);
  });

  it('TB: a chain goes top to bottom', () => {
    const p = layoutDag(nodes('a', 'b'), edges(['a', 'b']), { direction: 'TB' });
    expect(p.b!.y - p.a!.y).toBeGreaterThanOrEqual(DEFAULT_NODE_HEIGHT);
    expect(p.a!.x).toBe(p.b!.x);
  });

  it('diamond: siblings share a rank and do not overlap', () => {
    const p = layoutDag(nodes('a', 'b', 'c', 'd'), edges(['a', 'b'], ['a', 'c'], ['b', 'd'], ['c', 'd']), { direction: 'LR' });
    expect(p.b!.x).toBe(p.c!.x);
    expect(Math.abs(p.b!.y - p.c!.y)).toBeGreaterThanOrEqual(DEFAULT_NODE_HEIGHT);
    expect(p.d!.x).toBeGreaterThan(p.b!.x);
  });

  it('uses measured sizes and returns top-left corners', () => {
    const p = layoutDag([{ id: 'a', width: 400, height: 100 }, { id: 'b', width: 100, height: 40 }], edges(['a', 'b']), { direction: 'LR' });
    expect(p.b!.x - p.a!.x).toBeGreaterThanOrEqual(400);
    // Centres aligned on one row: top-left y differs by half the height difference.
    expect(p.b!.y - p.a!.y).toBe(30);
  });

  it('ignores edges to unknown nodes and self edges, is deterministic and pure', () => {
    const ns = nodes('a', 'b');
    const es = edges(['a', 'b'], ['a', 'zz'], ['b', 'b']);
    const snapshot = JSON.stringify([ns, es]);
    const p1 = layoutDag(ns, es, { direction: 'LR' });
    const p2 = layoutDag(ns, es, { direction: 'LR' });
    expect(p1).toEqual(p2);
    expect(Object.keys(p1).sort()).toEqual(['a', 'b']);
    expect(JSON.stringify([ns, es])).toBe(snapshot);
  });

  it('empty graph', () => expect(layoutDag([], [], { direction: 'LR' })).toEqual({}));

  it('steps named like Object.prototype\'s properties: laid out like any other, and nothing written onto Object (lib/own-keys.ts)', () => {
    const names = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];
    const before = Object.getOwnPropertyNames(Object).sort();
    for (const [ids, big] of [[names, false], [[...names, ...Array.from({ length: DAGRE_MAX_STEPS }, (_, i) => `s${i}`)], true]] as const) {
      const nodes = ids.map((id) => ({ id }));
      const edges = ids.slice(1).map((id, i) => ({ source: ids[i]!, target: id }));
      const plain = ids.map((_, i) => ({ id: `p${i}` }));
      const plainEdges = ids.slice(1).map((_, i) => ({ source: `p${i}`, target: `p${i + 1}` }));
      expect(usesDagre(ids.length, layoutWork(nodes, edges))).toBe(!big);
      const got = layoutDag(nodes, edges, { direction: 'LR' });
      const same = layoutDag(plain, plainEdges, { direction: 'LR' });
      // the same graph under plain ids gets the same positions, each an own key of the result
      for (const [i, id] of ids.entries()) {
        expect(Object.hasOwn(got, id)).toBe(true);
        expect(got[id]).toEqual(same[`p${i}`]);
      }
    }
    expect(Object.getOwnPropertyNames(Object).sort()).toEqual(before);
    expect(layoutDag([{ id: 'constructor' }], [])).toEqual({ constructor: { x: 20, y: 20 } });
  });

  it('one node (a one-step job): where dagre puts it, without running dagre', () => {
    for (const direction of ['LR', 'TB'] as const) {
      for (const node of [{ id: 'main' }, { id: 'n', width: 333, height: 71 }]) {
        const g = new dagre.graphlib.Graph();
        g.setGraph({ rankdir: direction, nodesep: 40, ranksep: 120, marginx: 20, marginy: 20 });
        const [w, h] = [node.width ?? DEFAULT_NODE_WIDTH, node.height ?? DEFAULT_NODE_HEIGHT];
        g.setNode(node.id, { width: w, height: h });
        dagre.layout(g);
        const c = g.node(node.id) as { x: number; y: number };
        expect(layoutDag([node], [{ source: node.id, target: node.id }], { direction })).toEqual({ [node.id]: { x: Math.round(c.x - w / 2), y: Math.round(c.y - h / 2) } });
      }
    }
  });
});

type Node = { id: string; width?: number; height?: number };
type Edge = { source: string; target: string };

/** A seeded random DAG (LCG: the same graph on every run) of `steps` nodes and `count` distinct edges i -> j > i. */
function randomDag(steps: number, count: number, seed: number, span = steps): { nodes: Node[]; edges: Edge[] } {
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const seen = new Set<number>();
  const es: Edge[] = [];
  while (es.length < count) {
    const a = Math.floor(rand() * steps);
    const b = a + 1 + Math.floor(rand() * span);
    if (b >= steps || seen.has(a * steps + b)) continue;
    seen.add(a * steps + b);
    es.push({ source: `s${a}`, target: `s${b}` });
  }
  // Listed in a shuffled order with some measured sizes, as the editor hands them over.
  const ns: Node[] = Array.from({ length: steps }, (_, i) => ({ id: `s${i}`, ...(i % 7 === 3 ? { width: 260, height: 96 } : {}) }));
  for (let i = ns.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [ns[i], ns[j]] = [ns[j]!, ns[i]!];
  }
  return { nodes: ns, edges: es };
}

/** The properties every layout must have: finite positions for every node, no overlap, every edge forward. */
function expectWellLaidOut(ns: Node[], es: Edge[], p: Record<string, { x: number; y: number }>, direction: LayoutOptions['direction']) {
  expect(Object.keys(p).sort()).toEqual(ns.map((n) => n.id).sort());
  const box = (n: Node) => ({ ...p[n.id]!, w: n.width ?? DEFAULT_NODE_WIDTH, h: n.height ?? DEFAULT_NODE_HEIGHT });
  const boxes = ns.map(box);
  for (const b of boxes) expect(Number.isFinite(b.x) && Number.isFinite(b.y)).toBe(true);
  // Sorted sweep along x: only boxes whose x ranges meet are compared.
  const byX = [...boxes].sort((a, b) => a.x - b.x);
  let overlaps = 0;
  for (let i = 0; i < byX.length; i++) {
    for (let j = i + 1; j < byX.length && byX[j]!.x < byX[i]!.x + byX[i]!.w; j++) {
      const [a, b] = [byX[i]!, byX[j]!];
      if (a.y < b.y + b.h && b.y < a.y + a.h) overlaps++;
    }
  }
  expect(overlaps).toBe(0);
  const size = new Map(ns.map((n) => [n.id, box(n)]));
  const backwards = es.filter((e) => {
    const [a, b] = [size.get(e.source)!, size.get(e.target)!];
    // A parent's box ends before its child's begins along the rank axis.
    return direction === 'LR' ? a.x + a.w > b.x : a.y + a.h > b.y;
  });
  expect(backwards).toEqual([]);
}

describe('layoutDag on larger graphs', () => {
  it('uses dagre for small graphs and the layered layout beyond its limits', () => {
    const small = randomDag(30, 40, 1, 4);
    expect(usesDagre(30, layoutWork(small.nodes, small.edges))).toBe(true);
    const wide = randomDag(DAGRE_MAX_STEPS + 1, DAGRE_MAX_STEPS, 2, 2);
    expect(usesDagre(wide.nodes.length, layoutWork(wide.nodes, wide.edges))).toBe(false);
    const largest = randomDag(500, 2000, 3);
    expect(usesDagre(500, layoutWork(largest.nodes, largest.edges))).toBe(false);
  });

  it('layoutWork counts steps, edges and the dummy nodes of long edges', () => {
    // a -> b -> c plus a -> c: the long edge spans two ranks, one dummy; a repeated edge, a self edge and an
    // edge to an unknown id are not counted.
    expect(layoutWork(nodes('a', 'b', 'c'), edges(['a', 'b'], ['b', 'c'], ['a', 'c'], ['a', 'c'], ['b', 'b'], ['a', 'zz']))).toBe(3 + 3 + 1);
    // A root is ranked next to its child, not in rank 0: r -> c is no long edge.
    expect(layoutWork(nodes('a', 'b', 'c', 'r'), edges(['a', 'b'], ['b', 'c'], ['r', 'c']))).toBe(4 + 3);
  });

  const cases: [string, number, number, number, number][] = [
    ['small, dagre', 12, 16, 11, 3],
    ['mid, dagre', 40, 60, 12, 5],
    ['over the step limit, layered', 150, 200, 13, 6],
    ['long edges, layered', 120, 400, 14, 120],
    ['the largest the API accepts (500 steps, 2,000 edges), layered', 500, 2000, 15, 500],
  ];
  for (const [name, steps, count, seed, span] of cases) {
    for (const direction of ['LR', 'TB'] as const) {
      it(`${name} ${direction}: every step placed, no overlap, parents before children, deterministic`, () => {
        const { nodes: ns, edges: es } = randomDag(steps, count, seed, span);
        const snapshot = JSON.stringify([ns, es]);
        const p = layoutDag(ns, es, { direction });
        expectWellLaidOut(ns, es, p, direction);
        expect(layoutDag(ns, es, { direction })).toEqual(p);
        expect(JSON.stringify([ns, es])).toBe(snapshot);
      });
    }
  }

  it('layered layout: a cycle (an editor draft) still gets every node placed, without overlap', () => {
    const { nodes: ns, edges: es } = randomDag(150, 200, 21, 5);
    const withCycle = [...es, { source: 's100', target: 's3' }, { source: 's3', target: 's100' }];
    const p = layoutDag(ns, withCycle, { direction: 'LR' });
    expect(Object.keys(p)).toHaveLength(150);
    expect(Object.values(p).every((q) => Number.isFinite(q.x) && Number.isFinite(q.y))).toBe(true);
    expect(layoutDag(ns, withCycle, { direction: 'LR' })).toEqual(p);
  });

  it('layered layout: ranks centred on one line, a root sits next to its child, gaps and margin as dagre', () => {
    const n = DAGRE_MAX_STEPS + 20;
    const ids = Array.from({ length: n }, (_, i) => `c${i}`);
    const es = edges(...ids.slice(1).map((id, i): [string, string] => [ids[i]!, id]), ['late', ids[n - 1]!]);
    const p = layoutDag([...nodes(...ids), { id: 'late' }], es, { direction: 'LR' });
    // Every rank but the one the root shares holds one step: all on one row, the pair straddling it.
    expect(new Set(ids.filter((id) => id !== ids[n - 2]).map((id) => p[id]!.y)).size).toBe(1);
    expect(p.c0!.x).toBe(20);
    expect(Math.min(p.late!.y, p[ids[n - 2]!]!.y)).toBe(20);
    expect(p.late!.y + p[ids[n - 2]!]!.y).toBe(2 * p.c0!.y);
    expect(p.c1!.x - p.c0!.x).toBe(DEFAULT_NODE_WIDTH + 120);
    expect(p.late!.x).toBe(p[ids[n - 2]!]!.x);
    expect(Math.abs(p.late!.y - p[ids[n - 2]!]!.y)).toBe(DEFAULT_NODE_HEIGHT + 40);
  });
});
