// Graph algorithms over step keys: cycle detection, topological order, "would this edge close a cycle?".
// All iterative (explicit stacks/queues) so a 10,000-step chain cannot overflow the JS call stack,
// and O(steps + edges). Edges whose endpoints are not in `keys` are ignored here; validateDag reports them.
import type { DagEdgeRef } from './types';

/** Adjacency as index lists; built once per call so every algorithm below is linear. */
type Indexed = { index: Map<string, number>; out: number[][] };

function indexGraph(keys: readonly string[], edges: readonly DagEdgeRef[]): Indexed {
  const index = new Map<string, number>();
  // First occurrence wins: duplicates are a validation error reported elsewhere, not a graph property.
  keys.forEach((k, i) => {
    if (!index.has(k)) index.set(k, i);
  });
  const out: number[][] = keys.map(() => []);
  for (const e of edges) {
    const a = index.get(e.from);
    const b = index.get(e.to);
    if (a === undefined || b === undefined) continue;
    out[a]!.push(b);
  }
  return { index, out };
}

/**
 * Finds one directed cycle among `keys` connected by `edges` (self edges count as a cycle of one step).
 *
 * Returns the cycle as a closed walk of step keys, e.g. `['a', 'b', 'c', 'a']`, rotated so that it starts at the
 * step listed first in `keys` (a stable, readable message for the same graph), or `null` when the graph is acyclic.
 * Iterative three-colour DFS; O(keys + edges).
 */
export function findCycle(keys: readonly string[], edges: readonly DagEdgeRef[]): string[] | null {
  const { out } = indexGraph(keys, edges);
  const n = keys.length;
  // 0 = unvisited, 1 = on the current DFS path, 2 = finished.
  const colour = new Uint8Array(n);
  const nextChild = new Uint32Array(n);
  const path: number[] = [];
  const posInPath = new Int32Array(n).fill(-1);

  for (let root = 0; root < n; root++) {
    if (colour[root] !== 0) continue;
    path.push(root);
    posInPath[root] = 0;
    colour[root] = 1;
    while (path.length > 0) {
      const u = path[path.length - 1]!;
      const children = out[u]!;
      if (nextChild[u]! < children.length) {
        const v = children[nextChild[u]!++]!;
        if (colour[v] === 1) {
          // Back edge u -> v: the cycle is the path from v to u, closed by v.
          const cycle = path.slice(posInPath[v]!);
          return closeAndRotate(cycle).map((i) => keys[i]!);
        }
        if (colour[v] === 0) {
          colour[v] = 1;
          posInPath[v] = path.length;
          path.push(v);
        }
      } else {
        colour[u] = 2;
        posInPath[u] = -1;
        path.pop();
      }
    }
  }
  return null;
}

/** Rotates a cycle (open list of indexes) to start at its smallest index, then repeats the first element at the end. */
function closeAndRotate(cycle: number[]): number[] {
  let min = 0;
  for (let i = 1; i < cycle.length; i++) if (cycle[i]! < cycle[min]!) min = i;
  const rotated = [...cycle.slice(min), ...cycle.slice(0, min)];
  rotated.push(rotated[0]!);
  return rotated;
}

/**
 * Topological order of `keys` (every edge's `from` before its `to`), or `null` when the graph has a cycle.
 *
 * Kahn's algorithm; among the steps that are ready at the same time, the one listed first in `keys` comes first
 * (a min-heap on the listed index), so the order is stable and readable: a diamond a->b, a->c, b->d, c->d listed as
 * d, c, b, a comes out a, c, b, d. O((keys + edges) log keys); duplicate edges are harmless.
 */
export function topologicalOrder(keys: readonly string[], edges: readonly DagEdgeRef[]): string[] | null {
  const { index, out } = indexGraph(keys, edges);
  const n = keys.length;
  const indeg = new Uint32Array(n);
  for (const children of out) for (const v of children) indeg[v]!++;
  const heap = new MinHeap();
  // Only the first occurrence of a duplicated key takes part (see indexGraph).
  for (let i = 0; i < n; i++) if (indeg[i] === 0 && index.get(keys[i]!) === i) heap.push(i);
  const order: string[] = [];
  while (heap.size > 0) {
    const u = heap.pop();
    order.push(keys[u]!);
    for (const v of out[u]!) if (--indeg[v]! === 0) heap.push(v);
  }
  return order.length === index.size ? order : null;
}

/** Binary min-heap of non-negative integers (listed indexes); tiny on purpose, no dependency. */
class MinHeap {
  private a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  push(x: number): void {
    const a = this.a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= x) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = x;
  }
  pop(): number {
    const a = this.a;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r]! < a[l]! ? r : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

/**
 * Would adding the edge `from -> to` to `edges` close a cycle?
 *
 * Returns the cycle the new edge would close, starting with the new edge, e.g. adding `b -> a` when `a -> b` exists
 * gives `['b', 'a', 'b']` (shown by the editor as "b -> a -> b"); a self edge gives `[from, from]`; `null` when the
 * edge is safe. Breadth-first search from `to` looking for `from`, so the reported path is a shortest one.
 * Only reads edges (any key is accepted); O(edges).
 */
export function wouldCreateCycle(edges: readonly DagEdgeRef[], from: string, to: string): string[] | null {
  if (from === to) return [from, from];
  const out = new Map<string, string[]>();
  for (const e of edges) {
    const list = out.get(e.from);
    if (list) list.push(e.to);
    else out.set(e.from, [e.to]);
  }
  const parent = new Map<string, string | null>([[to, null]]);
  const queue: string[] = [to];
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head]!;
    if (u === from) {
      const back: string[] = [];
      for (let cur: string | null = u; cur !== null; cur = parent.get(cur) ?? null) back.push(cur);
      // back = [from, ..., to]; the cycle is from -> to -> ... -> from.
      return [from, ...back.reverse()];
    }
    for (const v of out.get(u) ?? []) {
      if (!parent.has(v)) {
        parent.set(v, u);
        queue.push(v);
      }
    }
  }
  return null;
}

/** Formats a cycle walk for messages: `['a','b','a']` -> `"a -> b -> a"`. */
export function formatCycle(cycle: readonly string[]): string {
  return cycle.join(' -> ');
}

/**
 * The order the console lists a job's steps and a run's tasks in: topological (parents first), ties in
 * the listed order (topologicalOrder); as listed when the graph has a cycle (a definition validation
 * would refuse, shown rather than hidden).
 */
export function dagListOrder(keys: readonly string[], edges: readonly DagEdgeRef[]): string[] {
  return topologicalOrder(keys, edges) ?? [...keys];
}
