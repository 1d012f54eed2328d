import { describe, expect, it } from 'vitest';
import dagre from '@dagrejs/dagre';
import { DEFAULT_NODE_HEIGHT, DEFAULT_NODE_WIDTH, layoutDag } from './layout-dag';

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
