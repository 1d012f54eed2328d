/**
 * A run's task graph in memory, for the operator actions that re-open tasks
 * (retry, mark success, clear; docs/recovery.md). Internal.
 */
import type { GraphEdge, GraphTask } from './sql/load-run-graph.ts';

const FINAL = new Set(['success', 'dead', 'cancelled', 'skipped']);

export interface RunGraph {
  byId: Map<string, GraphTask>;
  children: Map<string, GraphEdge[]>;
  parents: Map<string, GraphEdge[]>;
}

export function indexRunGraph(tasks: GraphTask[], edges: GraphEdge[]): RunGraph {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const children = new Map<string, GraphEdge[]>();
  const parents = new Map<string, GraphEdge[]>();
  for (const e of edges) {
    (children.get(e.parentTaskId) ?? children.set(e.parentTaskId, []).get(e.parentTaskId)!).push(e);
    (parents.get(e.taskId) ?? parents.set(e.taskId, []).get(e.taskId)!).push(e);
  }
  return { byId, children, parents };
}

export function isFinal(status: string): boolean {
  return FINAL.has(status);
}

/**
 * Whether a final parent's status forces its child over this edge to be
 * skipped (the table in lib/engine/sql/propagate-final.ts): hard needs success,
 * on_failure needs dead, soft accepts anything.
 */
export function forcesSkip(parentStatus: string, depType: GraphEdge['depType']): boolean {
  if (depType === 'hard') return parentStatus !== 'success';
  if (depType === 'on_failure') return parentStatus !== 'dead';
  return false;
}

/**
 * The tasks of `set` (other than `root`) that a final parent outside the set
 * excludes: they would be skipped again, so they are not re-opened.
 * `statusOf` lets a caller see a parent in the status it is about to get.
 */
export function excludedBy(g: RunGraph, id: string, set: Set<string>, statusOf: (id: string) => string): GraphEdge[] {
  return (g.parents.get(id) ?? []).filter((e) => !set.has(e.parentTaskId) && isFinal(statusOf(e.parentTaskId)) && forcesSkip(statusOf(e.parentTaskId), e.depType));
}

/**
 * Re-open set: `root`, then every descendant `follow` accepts, reached through
 * accepted tasks, minus those a final parent outside the set excludes (iterated
 * to a fixed point, since dropping a task can expose its children).
 */
export function reopenSet(g: RunGraph, root: string, follow: (t: GraphTask) => boolean, statusOf: (id: string) => string): Set<string> {
  const excluded = new Set<string>();
  for (;;) {
    const set = new Set([root]);
    const queue = [root];
    while (queue.length) {
      const id = queue.shift()!;
      for (const e of g.children.get(id) ?? []) {
        const c = g.byId.get(e.taskId)!;
        if (!set.has(c.id) && !excluded.has(c.id) && follow(c)) {
          set.add(c.id);
          queue.push(c.id);
        }
      }
    }
    const bad = [...set].filter((id) => id !== root && excludedBy(g, id, set, statusOf).length > 0);
    if (bad.length === 0) return set;
    for (const id of bad) excluded.add(id);
  }
}

/** Parents a task of the re-open set still waits for: those in the set, and those not final. */
export function openParentCount(g: RunGraph, id: string, set: Set<string>, statusOf: (id: string) => string): number {
  return (g.parents.get(id) ?? []).filter((e) => set.has(e.parentTaskId) || !isFinal(statusOf(e.parentTaskId))).length;
}

/**
 * The tasks outside the re-open `set` whose parent counter the re-open must recount (reopen-tasks.ts
 * rows that re-open nothing): the children of a task in the set that are not final. A pending child
 * waits for its parents; a child in an attempt (running, or failed / timeout between attempts) had
 * counted its re-opened parent as done when it was released, and goes back to pending when that
 * attempt fails: it must then wait for the parent again, not run before it (nor have its counter go
 * below zero when that parent ends). A final child keeps what it did.
 * @returns each such task with its new counter (openParentCount), where it differs from the stored one
 */
export function recountOutside(g: RunGraph, set: Set<string>, statusOf: (id: string) => string): { id: string; pendingParents: number }[] {
  const outside = new Set<string>();
  for (const id of set) for (const e of g.children.get(id) ?? []) if (!set.has(e.taskId) && !isFinal(statusOf(e.taskId))) outside.add(e.taskId);
  return [...outside]
    .map((id) => ({ id, pendingParents: openParentCount(g, id, set, statusOf) }))
    .filter((r) => r.pendingParents !== g.byId.get(r.id)!.pendingParents);
}
