// Auto-layout for the editor and the run view: a pure function of node sizes and edges (xyflow examples' pattern),
// layered (Sugiyama style) so parents sit left of (LR) or above (TB) their children.
//
// Small and mid-sized graphs are laid out by dagre (network-simplex ranking, crossing-minimising ordering, Brandes-
// Köpf positioning): the nicest layouts. dagre's cost grows much faster than the graph: every edge spanning k ranks
// becomes k-1 dummy nodes, and ranking, ordering and positioning each iterate over all of them (300 steps / 1,200
// edges: ~13 s; 500 / 2,000, the API's limits: minutes and gigabytes, on the event loop of the console every
// operator shares). So the graph's size in dagre's terms is counted first (O(steps + edges), {@link layoutWork}), and
// beyond {@link DAGRE_WORK_LIMIT} or {@link DAGRE_MAX_STEPS} a linear layered layout is used instead: longest-path
// ranks, a few barycenter sweeps to order each rank, boxes stacked per rank. See docs/console.md "Graph views".
import dagre from '@dagrejs/dagre';
import { dictionary } from '../own-keys';

/** Default node box used when a node has no measured size yet; matches the editor's step card (px). */
export const DEFAULT_NODE_WIDTH = 200;
/** Default node height in px (see {@link DEFAULT_NODE_WIDTH}). */
export const DEFAULT_NODE_HEIGHT = 72;

/** Options of {@link layoutDag}: `LR` = left to right (the editor's default), `TB` = top to bottom. Gaps in px. */
export type LayoutOptions = { direction: 'LR' | 'TB'; nodeGap?: number; rankGap?: number };

/** The margin dagre leaves around the laid-out graph (px); the fallback layout leaves the same. */
const LAYOUT_MARGIN = 20;

/**
 * Largest graph laid out by dagre: at most {@link DAGRE_MAX_STEPS} steps and a {@link layoutWork} of at most this;
 * larger graphs get the linear layered layout. Measured with `node --import tsx bench/dag-layout.ts --dagre`
 * (warm, a 2-core machine at load average 7-10): dagre took up to ~250 ms of CPU at this size (a 60-step, 100-edge
 * DAG: 90-190 ms), 300-950 ms at work 560-1,200 (60-200 steps, 200-300 edges), and its cost depends on the
 * number of steps as much as on the work (network simplex), hence both bounds. Hand-drawn DAGs (tens of steps,
 * about as many edges) stay below them and keep dagre's layout.
 */
export const DAGRE_WORK_LIMIT = 500;
/** Most steps laid out by dagre (see {@link DAGRE_WORK_LIMIT}). */
export const DAGRE_MAX_STEPS = 100;

/** Whether {@link layoutDag} uses dagre for a graph of `steps` distinct steps and this {@link layoutWork}. */
export function usesDagre(steps: number, work: number): boolean {
  return steps <= DAGRE_MAX_STEPS && work <= DAGRE_WORK_LIMIT;
}

type Prepared = {
  ids: string[];
  w: number[];
  h: number[];
  /** Deduplicated edges by index, self edges and unknown ends dropped. */
  out: number[][];
  inn: number[][];
  edgeCount: number;
};

function prepare(
  nodes: readonly { id: string; width?: number; height?: number }[],
  edges: readonly { source: string; target: string }[],
): Prepared {
  const index = new Map<string, number>();
  const ids: string[] = [];
  const w: number[] = [];
  const h: number[] = [];
  for (const n of nodes) {
    const width = n.width && n.width > 0 ? n.width : DEFAULT_NODE_WIDTH;
    const height = n.height && n.height > 0 ? n.height : DEFAULT_NODE_HEIGHT;
    const at = index.get(n.id);
    // A repeated id is one node (as in dagre, where setNode replaces the label): the last size wins.
    if (at !== undefined) {
      w[at] = width;
      h[at] = height;
      continue;
    }
    index.set(n.id, ids.length);
    ids.push(n.id);
    w.push(width);
    h.push(height);
  }
  const out: number[][] = ids.map(() => []);
  const inn: number[][] = ids.map(() => []);
  const seen = new Set<number>();
  let edgeCount = 0;
  for (const e of edges) {
    const a = index.get(e.source);
    const b = index.get(e.target);
    if (a === undefined || b === undefined || a === b) continue;
    const key = a * ids.length + b;
    if (seen.has(key)) continue;
    seen.add(key);
    out[a]!.push(b);
    inn[b]!.push(a);
    edgeCount++;
  }
  return { ids, w, h, out, inn, edgeCount };
}

/**
 * Ranks by longest path from the roots (Kahn's order), then each root moved next to its nearest child, so that
 * every edge goes from a lower to a higher rank. A cycle (the editor may hold one while it is being drawn; the API
 * refuses them) is broken at its first node in input order: its in-edges from inside the cycle are ignored. O(V+E).
 */
function rankNodes(g: Prepared): Int32Array {
  const n = g.ids.length;
  const rank = new Int32Array(n);
  const pending = new Int32Array(n);
  const placed = new Uint8Array(n);
  const queue: number[] = [];
  for (let v = 0; v < n; v++) {
    pending[v] = g.inn[v]!.length;
    if (pending[v] === 0) {
      placed[v] = 1;
      queue.push(v);
    }
  }
  let head = 0;
  let next = 0;
  while (head < n) {
    if (head === queue.length) {
      while (placed[next]) next++;
      placed[next] = 1;
      queue.push(next);
    }
    const u = queue[head++]!;
    for (const v of g.out[u]!) {
      if (placed[v]) continue; // an edge into a broken cycle's node: not a ranking constraint
      if (rank[v]! < rank[u]! + 1) rank[v] = rank[u]! + 1;
      if (--pending[v] === 0) {
        placed[v] = 1;
        queue.push(v);
      }
    }
  }
  // Longest-path ranking puts every root in rank 0, however far its first child is: pull it up to that child.
  for (let v = 0; v < n; v++) {
    if (g.inn[v]!.length > 0 || g.out[v]!.length === 0) continue;
    let nearest = Infinity;
    for (const c of g.out[v]!) nearest = Math.min(nearest, rank[c]!);
    rank[v] = nearest - 1;
  }
  return rank;
}

function work(g: Prepared, rank: Int32Array): number {
  let dummies = 0;
  for (let u = 0; u < g.ids.length; u++) for (const v of g.out[u]!) dummies += Math.max(0, Math.abs(rank[v]! - rank[u]!) - 1);
  return g.ids.length + g.edgeCount + dummies;
}

/**
 * The size of a DAG as dagre's layout sees it: steps + edges + the dummy nodes of edges that span more than one
 * rank (counted on the longest-path ranking {@link layoutDag} starts from, which dagre's network-simplex ranking
 * never exceeds). Pure, O(steps + edges); edges to unknown ids, self edges and repeats are not counted.
 * {@link layoutDag} uses dagre only when this is at most {@link DAGRE_WORK_LIMIT} (and steps at most
 * {@link DAGRE_MAX_STEPS}).
 */
export function layoutWork(
  nodes: readonly { id: string; width?: number; height?: number }[],
  edges: readonly { source: string; target: string }[],
): number {
  const g = prepare(nodes, edges);
  return work(g, rankNodes(g));
}

/**
 * Lays out a DAG: with dagre when it is small enough ({@link usesDagre}), else with a linear
 * layered layout (same direction, gaps and margin; bounded cost for every graph the API accepts: 500 steps, 2,000
 * edges).
 *
 * `nodes`: ids with optional measured size in px (default {@link DEFAULT_NODE_WIDTH} x {@link DEFAULT_NODE_HEIGHT});
 * `edges`: `source -> target` ids (edges to unknown ids and self edges are ignored; cycles are tolerated).
 * Returns each node's TOP-LEFT position in px (React Flow's `node.position`; dagre itself reports centres), in a
 * record without a prototype (lib/own-keys.ts dictionary: a step key may be `constructor`).
 * Deterministic for the same input; does not mutate its arguments.
 */
export function layoutDag(
  nodes: readonly { id: string; width?: number; height?: number }[],
  edges: readonly { source: string; target: string }[],
  options: LayoutOptions = { direction: 'LR' },
): Record<string, { x: number; y: number }> {
  if (nodes.length === 0) return {};
  if (nodes.length === 1) {
    // One node (a one-step job): dagre puts it at its margins; the same answer without building a graph.
    const out = dictionary<{ x: number; y: number }>();
    out[nodes[0]!.id] = { x: LAYOUT_MARGIN, y: LAYOUT_MARGIN };
    return out;
  }
  const g = prepare(nodes, edges);
  const rank = rankNodes(g);
  return usesDagre(g.ids.length, work(g, rank)) ? dagreLayout(g, options) : layeredLayout(g, rank, options);
}

function dagreLayout(g: Prepared, options: LayoutOptions): Record<string, { x: number; y: number }> {
  const dg = new dagre.graphlib.Graph({ multigraph: false });
  dg.setGraph({
    rankdir: options.direction,
    nodesep: options.nodeGap ?? 40,
    ranksep: options.rankGap ?? 120,
    marginx: LAYOUT_MARGIN,
    marginy: LAYOUT_MARGIN,
  });
  dg.setDefaultEdgeLabel(() => ({}));
  // dagre's graphlib keeps nodes and edges in plain objects keyed by node id: a step key such as
  // `constructor` would read and write Object's own properties there (lib/own-keys.ts). It gets
  // each node's index instead.
  g.ids.forEach((_, i) => dg.setNode(String(i), { width: g.w[i]!, height: g.h[i]! }));
  g.out.forEach((targets, a) => {
    for (const b of targets) dg.setEdge(String(a), String(b));
  });
  dagre.layout(dg);
  const out = dictionary<{ x: number; y: number }>();
  g.ids.forEach((id, i) => {
    const p = dg.node(String(i)) as { x: number; y: number };
    out[id] = { x: Math.round(p.x - g.w[i]! / 2), y: Math.round(p.y - g.h[i]! / 2) };
  });
  return out;
}

/**
 * The large-graph layout: ranks from {@link rankNodes}; each rank ordered by input order, then by three barycenter
 * sweeps (down by parents, up by children, down again: each node sorted by the mean slot of its neighbours in the
 * ranks before it, ties by input order); boxes stacked along each rank with `nodeGap`, ranks centred on one line
 * and `rankGap` apart, as dagre draws them. O(V log V + E).
 */
function layeredLayout(g: Prepared, rank: Int32Array, options: LayoutOptions): Record<string, { x: number; y: number }> {
  const n = g.ids.length;
  const nodeGap = options.nodeGap ?? 40;
  const rankGap = options.rankGap ?? 120;
  const lr = options.direction === 'LR';
  let maxRank = 0;
  for (let v = 0; v < n; v++) maxRank = Math.max(maxRank, rank[v]!);
  const layers: number[][] = Array.from({ length: maxRank + 1 }, () => []);
  for (let v = 0; v < n; v++) layers[rank[v]!]!.push(v);

  // A node's slot, centred on its rank (-(k-1)/2 .. (k-1)/2), so that ranks of different sizes compare.
  const slot = new Float64Array(n);
  const setSlots = (layer: number[]) => layer.forEach((v, i) => (slot[v] = i - (layer.length - 1) / 2));
  layers.forEach(setSlots);
  const key = new Float64Array(n);
  const sweep = (order: number[], neighbours: number[][], before: (u: number, v: number) => boolean) => {
    for (const r of order) {
      const layer = layers[r]!;
      for (const v of layer) {
        let sum = 0;
        let count = 0;
        for (const u of neighbours[v]!) {
          if (!before(u, v)) continue;
          sum += slot[u]!;
          count++;
        }
        key[v] = count > 0 ? sum / count : slot[v]!;
      }
      layer.sort((a, b) => key[a]! - key[b]! || a - b);
      setSlots(layer);
    }
  };
  const down = Array.from({ length: maxRank + 1 }, (_, r) => r);
  const up = [...down].reverse();
  sweep(down, g.inn, (u, v) => rank[u]! < rank[v]!);
  sweep(up, g.out, (u, v) => rank[u]! > rank[v]!);
  sweep(down, g.inn, (u, v) => rank[u]! < rank[v]!);

  const along = lr ? g.w : g.h; // extent along the rank axis
  const across = lr ? g.h : g.w; // extent along a rank
  const centre = new Float64Array(n); // centre along the rank axis
  const offset = new Float64Array(n); // top/left edge along a rank, before the margin shift
  let at = LAYOUT_MARGIN;
  let minOffset = Infinity;
  for (const layer of layers) {
    if (layer.length === 0) continue;
    let depth = 0;
    let length = -nodeGap;
    for (const v of layer) {
      depth = Math.max(depth, along[v]!);
      length += across[v]! + nodeGap;
    }
    let pos = -length / 2;
    for (const v of layer) {
      centre[v] = at + depth / 2;
      offset[v] = pos;
      pos += across[v]! + nodeGap;
    }
    minOffset = Math.min(minOffset, -length / 2);
    at += depth + rankGap;
  }
  const out = dictionary<{ x: number; y: number }>();
  for (let v = 0; v < n; v++) {
    const a = Math.round(centre[v]! - along[v]! / 2);
    const b = Math.round(offset[v]! - minOffset + LAYOUT_MARGIN);
    out[g.ids[v]!] = lr ? { x: a, y: b } : { x: b, y: a };
  }
  return out;
}
