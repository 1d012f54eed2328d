// Auto-layout for the editor and the run view: a pure function of node sizes and edges (xyflow examples' pattern),
// computed with dagre's layered (Sugiyama) layout so parents sit left of (LR) or above (TB) their children.
import dagre from '@dagrejs/dagre';

/** Default node box used when a node has no measured size yet; matches the editor's step card (px). */
export const DEFAULT_NODE_WIDTH = 200;
/** Default node height in px (see {@link DEFAULT_NODE_WIDTH}). */
export const DEFAULT_NODE_HEIGHT = 72;

/** Options of {@link layoutDag}: `LR` = left to right (the editor's default), `TB` = top to bottom. Gaps in px. */
export type LayoutOptions = { direction: 'LR' | 'TB'; nodeGap?: number; rankGap?: number };

/** The margin dagre leaves around the laid-out graph (px). */
const LAYOUT_MARGIN = 20;

/**
 * Lays out a DAG with dagre.
 *
 * `nodes`: ids with optional measured size in px (default {@link DEFAULT_NODE_WIDTH} x {@link DEFAULT_NODE_HEIGHT});
 * `edges`: `source -> target` ids (edges to unknown ids are ignored; cycles are tolerated by dagre's acyclic pass).
 * Returns each node's TOP-LEFT position in px (React Flow's `node.position`; dagre itself reports centres).
 * Deterministic for the same input; does not mutate its arguments.
 */
export function layoutDag(
  nodes: readonly { id: string; width?: number; height?: number }[],
  edges: readonly { source: string; target: string }[],
  options: LayoutOptions = { direction: 'LR' },
): Record<string, { x: number; y: number }> {
  if (nodes.length === 1) {
    // One node (a one-step job): dagre puts it at its margins; the same answer without building a graph.
    return { [nodes[0]!.id]: { x: LAYOUT_MARGIN, y: LAYOUT_MARGIN } };
  }
  const g = new dagre.graphlib.Graph({ multigraph: false });
  g.setGraph({
    rankdir: options.direction,
    nodesep: options.nodeGap ?? 40,
    ranksep: options.rankGap ?? 120,
    marginx: LAYOUT_MARGIN,
    marginy: LAYOUT_MARGIN,
  });
  g.setDefaultEdgeLabel(() => ({}));
  const sizes = new Map<string, { w: number; h: number }>();
  for (const n of nodes) {
    const w = n.width && n.width > 0 ? n.width : DEFAULT_NODE_WIDTH;
    const h = n.height && n.height > 0 ? n.height : DEFAULT_NODE_HEIGHT;
    sizes.set(n.id, { w, h });
    g.setNode(n.id, { width: w, height: h });
  }
  for (const e of edges) {
    if (e.source === e.target || !sizes.has(e.source) || !sizes.has(e.target)) continue;
    g.setEdge(e.source, e.target);
  }
  dagre.layout(g);
  const out: Record<string, { x: number; y: number }> = {};
  for (const [id, { w, h }] of sizes) {
    const p = g.node(id) as { x: number; y: number };
    out[id] = { x: Math.round(p.x - w / 2), y: Math.round(p.y - h / 2) };
  }
  return out;
}
