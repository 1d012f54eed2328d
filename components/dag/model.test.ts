import { describe, expect, it } from 'vitest';
import {
  freeRoomOnScreen,
  checkConnection,
  connectionRefusal,
  describeErrorPath,
  freeSpot,
  newStepSpot,
  makeEdge,
  needsLayout,
  parseErrorPath,
  parseJsonObject,
  parseOptionalInt,
  snapshot,
  stepFieldErrors,
  stepToData,
  toDraft,
  toFlow,
  uniqueStepKey,
  withEdgeType,
} from './model';

const nodesOf = (...keys: string[]) => keys.map((key) => ({ id: `id-${key}`, data: { key } }));
const edgesOf = (...pairs: string[]) => pairs.map((p) => ({ source: `id-${p[0]}`, target: `id-${p[2]}` }));

describe('checkConnection (isValidConnection rule)', () => {
  const nodes = nodesOf('a', 'b', 'c', 'd');
  const cases: { name: string; edges: string[]; source: string; target: string; reason: string | null }[] = [
    { name: 'fresh edge', edges: [], source: 'a', target: 'b', reason: null },
    { name: 'self edge', edges: [], source: 'a', target: 'a', reason: 'Refused: a step cannot depend on itself (a -> a)' },
    { name: 'duplicate', edges: ['a>b'], source: 'a', target: 'b', reason: 'Refused: a -> b already exists (change its type in the side panel)' },
    { name: 'reverse closes a two-cycle', edges: ['a>b'], source: 'b', target: 'a', reason: 'Refused: would create a cycle b -> a -> b' },
    { name: 'closing a chain', edges: ['a>b', 'b>c'], source: 'c', target: 'a', reason: 'Refused: would create a cycle c -> a -> b -> c' },
    { name: 'fan-in is fine', edges: ['a>c', 'b>c'], source: 'd', target: 'c', reason: null },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = checkConnection(nodes, edgesOf(...c.edges), `id-${c.source}`, `id-${c.target}`);
      expect(r.ok ? null : r.reason).toBe(c.reason);
    });
  }
  it('missing endpoint', () => expect(checkConnection(nodes, [], 'id-a', null).ok).toBe(false));
});

describe('field parsing and validation', () => {
  it.each([
    ['', { ok: true, value: {} }],
    ['{"x":1}', { ok: true, value: { x: 1 } }],
    ['[1]', { ok: false }],
    ['null', { ok: false }],
    ['{', { ok: false }],
    ['{"x":1,"y":{"z":1,"z":2}}', { ok: false, error: 'Duplicate key: y.z' }],
  ])('parseJsonObject(%j)', (text, want) => expect(parseJsonObject(text)).toMatchObject(want));

  it.each([
    ['', 1, 10, { ok: true, value: null }],
    ['5', 1, 10, { ok: true, value: 5 }],
    ['0', 1, 10, { ok: false }],
    ['1.5', 1, 10, { ok: false }],
    ['abc', 1, 10, { ok: false }],
  ])('parseOptionalInt(%j, %i, %i)', (text, min, max, want) => expect(parseOptionalInt(text, min, max, 'X')).toMatchObject(want));

  it('stepFieldErrors names each bad field', () => {
    const d = { ...stepToData({ key: 'bad key', handler: '', payload: {} }), payloadText: '[', configText: '{}', timeoutText: '0', retriesText: '101' };
    expect(Object.keys(stepFieldErrors(d, new Set())).sort()).toEqual(['handler', 'key', 'maxRetries', 'payload', 'timeoutSeconds']);
    expect(stepFieldErrors(stepToData({ key: 'a', handler: 'h' }), new Set(['a'])).key).toMatch(/Duplicate/);
    expect(stepFieldErrors(stepToData({ key: 'a', handler: 'h' }), new Set())).toEqual({});
  });
});

describe('uniqueStepKey', () => {
  it.each([
    ['builtin.echo', [], 'echo'],
    ['builtin.echo', ['echo'], 'echo-2'],
    ['builtin.echo', ['echo', 'echo-2'], 'echo-3'],
    ['http', [], 'http'],
    ['weird handler!', [], 'weird-handler-'],
    ['...', [], 'step'],
  ])('%s with %j -> %s', (handler, existing, want) => expect(uniqueStepKey(handler, existing)).toBe(want));
});

describe('flow <-> draft', () => {
  const steps = [
    { key: 'a', handler: 'builtin.echo', payload: { x: 1 }, position: { x: 10, y: 20 } },
    { key: 'b', name: 'Bee', handler: 'http', config: { url: 'http://x' }, timeoutSeconds: 30, maxRetries: 2, resourceKey: 'db', position: { x: 300, y: 20 } },
  ];
  const edges = [{ from: 'a', to: 'b', type: 'soft' as const }];

  it('round-trips steps, positions and edges', () => {
    const f = toFlow(steps, edges);
    expect(f.edges).toHaveLength(1);
    expect(f.nodes[0]!.domAttributes).toEqual({ 'data-testid': 'dag-node-a' });
    const { dag, problems } = toDraft(f.nodes, f.edges);
    expect(problems.size).toBe(0);
    expect(dag).toEqual({
      steps: [
        { key: 'a', name: '', handler: 'builtin.echo', payload: { x: 1 }, config: {}, timeoutSeconds: null, maxRetries: null, resourceKey: null, position: { x: 10, y: 20 } },
        { key: 'b', name: 'Bee', handler: 'http', payload: {}, config: { url: 'http://x' }, timeoutSeconds: 30, maxRetries: 2, resourceKey: 'db', position: { x: 300, y: 20 } },
      ],
      edges: [{ from: 'a', to: 'b', type: 'soft' }],
    });
  });

  it('lays out unplaced steps, keeps placed ones', () => {
    expect(needsLayout(steps)).toBe(false);
    const unplaced = steps.map((s) => ({ ...s, position: { x: 0, y: 0 } }));
    expect(needsLayout(unplaced)).toBe(true);
    const f = toFlow(unplaced, edges);
    expect(f.nodes[1]!.position.x).toBeGreaterThan(f.nodes[0]!.position.x);
  });

  it('snapshot ignores selection, ids and measurement but sees edits', () => {
    const f = toFlow(steps, edges);
    const s0 = snapshot(f.nodes, f.edges);
    const selected = f.nodes.map((n) => ({ ...n, selected: true, measured: { width: 200, height: 70 } }));
    expect(snapshot(selected, f.edges)).toBe(s0);
    const moved = f.nodes.map((n, i) => (i === 0 ? { ...n, position: { x: 11, y: 20 } } : n));
    expect(snapshot(moved, f.edges)).not.toBe(s0);
    expect(snapshot(f.nodes, [withEdgeType(f.edges[0]!, 'hard')])).not.toBe(s0);
    expect(snapshot(f.nodes, [...f.edges, makeEdge(f.nodes[1]!.id, f.nodes[0]!.id, 'hard')])).not.toBe(s0);
  });

  it('maps error paths back to steps and edges', () => {
    const { dag } = toDraft(toFlow(steps, edges).nodes, toFlow(steps, edges).edges);
    expect(parseErrorPath('steps.1.payload')).toEqual({ stepIndex: 1, field: 'payload' });
    expect(parseErrorPath('edges.0.to')).toEqual({ edgeIndex: 0 });
    // by the side panel's labels, never the input's property names
    expect(describeErrorPath('steps.1.key', dag)).toBe('Step "b", Key');
    expect(describeErrorPath('steps.0.timeoutSeconds', dag)).toBe('Step "a", Timeout (s)');
    expect(describeErrorPath('steps.0.payload', dag)).toBe('Step "a", Payload (JSON object)');
    expect(describeErrorPath('steps.0', dag)).toBe('Step "a"');
    expect(describeErrorPath('edges.0', dag)).toBe('Edge a -> b');
    expect(describeErrorPath('edges', dag)).toBe('Edges');
  });
});

describe('connectionRefusal (onConnectEnd: why a drop added no edge)', () => {
  const nodes = nodesOf('a', 'b', 'c');
  const edges = edgesOf('a>b', 'b>c');
  const end = (k: string, type: 'source' | 'target') => ({ nodeId: `id-${k}`, type });
  it('names the cycle, whichever end the drag started from', () => {
    expect(connectionRefusal(nodes, edges, end('c', 'source'), end('a', 'target'))).toBe('Refused: would create a cycle c -> a -> b -> c');
    expect(connectionRefusal(nodes, edges, end('a', 'target'), end('c', 'source'))).toBe('Refused: would create a cycle c -> a -> b -> c');
  });
  it('explains duplicates, self edges and output-to-output drops', () => {
    expect(connectionRefusal(nodes, edges, end('a', 'source'), end('b', 'target'))).toMatch(/a -> b already exists/);
    expect(connectionRefusal(nodes, edges, end('a', 'source'), end('a', 'target'))).toMatch(/cannot depend on itself/);
    expect(connectionRefusal(nodes, edges, end('a', 'source'), end('c', 'source'))).toMatch(/input \(its left handle\)/);
    expect(connectionRefusal(nodes, edges, end('a', 'target'), end('c', 'target'))).toMatch(/output \(its right handle\)/);
  });
  it('says nothing for a valid drop, a drop on nothing or back on the starting handle', () => {
    expect(connectionRefusal(nodes, edges, end('a', 'source'), end('c', 'target'))).toBeNull();
    expect(connectionRefusal(nodes, edges, end('a', 'source'), null)).toBeNull();
    expect(connectionRefusal(nodes, edges, end('a', 'source'), end('a', 'source'))).toBeNull();
  });
});

describe('freeSpot (where a palette step lands)', () => {
  const size = { width: 200, height: 64 };
  it('keeps the wanted spot when it is free', () => {
    expect(freeSpot({ x: 10.4, y: 20.6 }, size, [{ x: 500, y: 500, width: 200, height: 64 }])).toEqual({ x: 10, y: 21, inView: true });
  });
  it('never overlaps an existing step', () => {
    const taken = [0, 1, 2].map((i) => ({ x: 0, y: i * 100, width: 200, height: 64 }));
    const p = freeSpot({ x: 20, y: 90 }, size, taken);
    for (const r of taken) {
      const overlap = p.x < r.x + r.width && p.x + size.width > r.x && p.y < r.y + r.height && p.y + size.height > r.y;
      expect(overlap).toBe(false);
    }
    expect(Math.hypot(p.x - 20, p.y - 90)).toBeLessThan(400);
  });
  it('prefers a free slot on screen, and says when there is none', () => {
    const taken = [{ x: 0, y: 0, width: 200, height: 64 }];
    // Right of the step is off screen; below it is on screen.
    const p = freeSpot({ x: 0, y: 0 }, size, taken, { x: -10, y: -10, width: 230, height: 400 });
    expect(p).toMatchObject({ x: 0, inView: true });
    expect(p.y).toBeGreaterThanOrEqual(64);
    expect(freeSpot({ x: 0, y: 0 }, size, taken, { x: -10, y: -10, width: 230, height: 90 }).inView).toBe(false);
  });
});

describe('newStepSpot (palette clicks)', () => {
  const size = { width: 200, height: 64 };
  const view = { x: -100, y: -100, width: 700, height: 400 }; // on screen: a step of width 200 fits up to x = 400

  const inside = (p: { x: number; y: number }, v: { x: number; y: number; width: number; height: number }) =>
    p.x >= v.x && p.y >= v.y && p.x + size.width <= v.x + v.width && p.y + size.height <= v.y + v.height;
  const clear = (p: { x: number; y: number }, taken: { x: number; y: number; width: number; height: number }[]) =>
    taken.every((t) => p.x >= t.x + t.width || p.x + size.width <= t.x || p.y >= t.y + t.height || p.y + size.height <= t.y);

  it('lines successive steps up to the right of the one added last while they fit on screen', () => {
    const wide = { x: -100, y: -100, width: 1400, height: 400 };
    const taken = [{ x: 0, y: 0, width: 200, height: 64 }];
    let beside = taken[0]!;
    const xs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const p = newStepSpot(beside, { x: 0, y: 0 }, size, taken, wide);
      expect(clear(p, taken)).toBe(true);
      expect(p.y).toBe(0);
      xs.push(p.x);
      beside = { ...p, ...size };
      taken.push(beside);
    }
    expect(xs).toEqual([264, 528, 792]);
  });

  it('past the edge of the view, puts each new step in free room on screen, so the view need not move off the others', () => {
    const taken = [{ x: 0, y: 0, width: 200, height: 64 }];
    let beside = taken[0]!;
    for (let i = 0; i < 4; i++) {
      const p = newStepSpot(beside, { x: 250, y: 100 }, size, taken, view);
      expect(clear(p, taken), `step ${i + 1}`).toBe(true);
      expect(inside(p, view), `step ${i + 1} off screen: ${JSON.stringify(p)}`).toBe(true);
      beside = { ...p, ...size };
      taken.push(beside);
    }
  });

  it('finds room on screen that the card grid misses: three steps added beside a lone step in the middle of the view', () => {
    // 1280 px: the canvas shows about 455 x 252 flow px at zoom 1.25, the first step in its middle
    const shown = { x: 0, y: 0, width: 455, height: 252 };
    const taken = [{ x: 127, y: 94, width: 200, height: 64 }];
    let beside = taken[0]!;
    for (let i = 0; i < 3; i++) {
      const p = newStepSpot(beside, { x: 227, y: 126 }, size, taken, shown);
      expect(clear(p, taken), `step ${i + 1}`).toBe(true);
      expect(inside(p, shown), `step ${i + 1} off screen: ${JSON.stringify(p)}`).toBe(true);
      beside = { ...p, ...size };
      taken.push(beside);
    }
  });

  it('goes off screen, right of the step, only when the screen has no free room', () => {
    const small = { x: 0, y: 0, width: 220, height: 80 };
    const sel = { x: 0, y: 0, width: 200, height: 64 };
    expect(newStepSpot(sel, { x: 110, y: 40 }, size, [sel], small)).toEqual({ x: 264, y: 0 });
  });

  it('goes to the nearest free spot beside the selected step when its right is taken', () => {
    const sel = { x: 0, y: 0, width: 200, height: 64 };
    const child = { x: 264, y: 0, width: 200, height: 64 };
    const p = newStepSpot(sel, { x: 0, y: 0 }, size, [sel, child], view);
    expect(p).toEqual({ x: 264, y: 88 });
  });

  it('without a step to sit beside: the centre of the view, moved on screen off the steps there', () => {
    const centre = { x: 250, y: 100 };
    const onCentre = { x: 150, y: 68, width: 200, height: 64 };
    const p = newStepSpot(null, centre, size, [onCentre], view);
    expect(p.x + size.width).toBeLessThanOrEqual(view.x + view.width);
    expect(p).not.toEqual({ x: 150, y: 68 });
  });
});

describe('freeRoomOnScreen', () => {
  const size = { width: 200, height: 64 };
  it('the free spot inside the view nearest to the wanted one, clear of the others by the gap', () => {
    const p = freeRoomOnScreen({ x: 0, y: 0 }, size, [{ x: 0, y: 0, width: 200, height: 64 }], { x: 0, y: 0, width: 500, height: 64 });
    expect(p).toEqual({ x: 224, y: 0 });
  });
  it('null when the view has no room', () => {
    expect(freeRoomOnScreen({ x: 0, y: 0 }, size, [{ x: 0, y: 0, width: 200, height: 64 }], { x: 0, y: 0, width: 300, height: 100 })).toBeNull();
  });
});
