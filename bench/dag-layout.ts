/**
 * DAG auto-layout benchmark (not a test): lib/dag layoutDag, as the console runs it for steps saved without a
 * position (PUT /jobs/:id/dag, POST /jobs, PATCH /jobs/:id) and the editor on "Layout", on seeded random DAGs up
 * to the API's limits (500 steps, 2,000 edges). Prints per graph: its layoutWork, which layout ran (dagre or the
 * linear layered one: usesDagre), and the median wall time of layoutDag (after a warm-up run).
 * With --dagre also the time of dagre alone on the same graph (the layout before the large-graph fallback), for
 * graphs whose layoutWork is at most --dagre-max-work (default 20,000: beyond it dagre takes minutes).
 *
 *   node --import tsx bench/dag-layout.ts [--dagre] [--dagre-max-work=20000] [--runs=5]
 *
 * Shapes: `spread` = edges between uniformly random pairs (i < j; long edges, dagre's worst case);
 * `local` = each edge to one of the next 8 steps (pipelines). No database.
 */
import dagre from '@dagrejs/dagre';
import { DAGRE_MAX_STEPS, DAGRE_WORK_LIMIT, layoutDag, layoutWork, usesDagre } from '../lib/dag/layout-dag.ts';

type Graph = { nodes: { id: string }[]; edges: { source: string; target: string }[] };

/** A seeded random DAG (LCG: the same graph on every run): `steps` nodes, `edges` distinct edges from i to j > i. */
function randomDag(shape: 'spread' | 'local', steps: number, edges: number, seed = 7): Graph {
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const seen = new Set<number>();
  const out: Graph['edges'] = [];
  const max = shape === 'spread' ? (steps * (steps - 1)) / 2 : steps * 8;
  for (let tries = 0; out.length < Math.min(edges, max) && tries < edges * 100; tries++) {
    const a = Math.floor(rand() * steps);
    const b = shape === 'spread' ? Math.floor(rand() * steps) : a + 1 + Math.floor(rand() * 8);
    const [u, v] = a < b ? [a, b] : [b, a];
    if (u === v || v >= steps || seen.has(u * steps + v)) continue;
    seen.add(u * steps + v);
    out.push({ source: `s${u}`, target: `s${v}` });
  }
  return { nodes: Array.from({ length: steps }, (_, i) => ({ id: `s${i}` })), edges: out };
}

/** dagre alone, with the options layoutDag gives it: the layout every graph got before the fallback. */
function dagreOnly({ nodes, edges }: Graph) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 120, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: 200, height: 72 });
  for (const e of edges) g.setEdge(e.source, e.target);
  dagre.layout(g);
}

function median(fn: () => void, runs: number): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function main() {
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const withDagre = process.argv.includes('--dagre');
  const dagreMaxWork = Number(arg('dagre-max-work') ?? 20000);
  const runs = Number(arg('runs') ?? 5);
  const sizes: [number, number][] = [[5, 5], [12, 15], [30, 45], [60, 100], [60, 200], [100, 300], [200, 700], [250, 1000], [500, 700], [500, 2000]];
  console.log(`dagre up to ${DAGRE_MAX_STEPS} steps and work ${DAGRE_WORK_LIMIT}`);
  console.log(['shape', 'steps', 'edges', 'work', 'layout', 'layoutDag ms', ...(withDagre ? ['dagre alone ms'] : [])].join('\t'));
  for (const shape of ['local', 'spread'] as const) {
    for (const [steps, edges] of sizes) {
      const g = randomDag(shape, steps, edges);
      const work = layoutWork(g.nodes, g.edges);
      // Fewer repetitions where one run takes seconds.
      const reps = work > 20000 ? 1 : runs;
      const ms = median(() => layoutDag(g.nodes, g.edges, { direction: 'LR' }), reps);
      const row = [shape, steps, g.edges.length, work, usesDagre(steps, work) ? 'dagre' : 'layered', ms.toFixed(1)];
      if (withDagre) row.push(work <= dagreMaxWork ? median(() => dagreOnly(g), work > 5000 ? 1 : runs).toFixed(1) : '-');
      console.log(row.join('\t'));
    }
  }
}

main();
