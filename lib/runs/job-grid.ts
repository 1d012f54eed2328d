import type { Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { DEFAULT_GRID_RUNS, JobGridQuery } from '../api/view-schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { cursorInstant, decodeCursor, encodeCursor } from '../api/cursor.ts';
import { findJob, loadGraph } from '../jobs/store.ts';
import { dagListOrder } from '../dag/index.ts';
import { dictionary } from '../own-keys.ts';

/** One column of the grid: a run. Instants are ISO UTC strings. */
export interface GridRun {
  id: string;
  status: string;
  trigger: string;
  scheduledFor: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
}

/** One cell: the task of a step in a run. `durationMs` = completed_at - started_at (null until both are known). */
export interface GridCell {
  taskId: string;
  status: string;
  attempt: number;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
}

/**
 * A job's run grid: `runs` oldest first (the newest on the right), `steps` in DAG order,
 * `cells[runId][stepKey]` (absent when the run has no task of that step, e.g. a step added later).
 * `nextCursor` pages to older runs.
 */
export interface JobGrid {
  jobId: string;
  runs: GridRun[];
  steps: string[];
  cells: Record<string, Record<string, GridCell>>;
  nextCursor: string | null;
}

/**
 * The grid of a job's latest runs (docs/console.md "Grid"): at most `limit` runs (keyset on
 * scheduled_for desc, id desc: runs_job_idx, the same order and cursor as listRuns) and their
 * tasks (tasks_run_step_uniq, run_id first), so it reads at most limit × steps task rows. Steps are ordered by the
 * job's current graph (lib/dag dagListOrder, the order the run page lists tasks in, ties by
 * key); steps that only older runs have (removed since) follow, by key. Works on deleted jobs.
 * Raw query input is accepted and parsed here.
 * @throws DomainError not_found (unknown job), validation (bad limit/cursor, naming the field).
 */
export async function getJobGrid(db: Db, jobId: string, rawQuery: unknown, actor: Actor): Promise<JobGrid> {
  requireCan(actor, 'read');
  const q = parseOrThrow(JobGridQuery, rawQuery ?? {});
  const limit = q.limit ?? DEFAULT_GRID_RUNS;
  const job = await findJob(db, jobId, 'allow');
  const keyset = q.cursor
    ? (() => {
        const c = decodeCursor(q.cursor, 'runs');
        const v = cursorInstant(c);
        return { OR: [{ scheduledFor: { lt: v } }, { scheduledFor: v, id: { lt: c.id } }] };
      })()
    : {};
  const [graph, rows] = await Promise.all([
    loadGraph(db, job),
    db.run.findMany({ where: { jobId: job.id, ...keyset }, orderBy: [{ scheduledFor: 'desc' }, { id: 'desc' }], take: limit + 1 }),
  ]);
  const page = rows.slice(0, limit);
  const tasks = page.length
    ? await db.task.findMany({
        where: { runId: { in: page.map((r) => r.id) } },
        select: { id: true, runId: true, stepKey: true, status: true, attempt: true, startedAt: true, completedAt: true },
      })
    : [];
  const order = dagListOrder(graph.steps.map((s) => s.key), graph.edges.map((e) => ({ from: e.fromStep, to: e.toStep, type: e.depType })));
  const known = new Set(order);
  const extra = [...new Set(tasks.map((t) => t.stepKey).filter((k) => !known.has(k)))].sort();
  // keyed by run id, then step key: a step may be named `constructor` (lib/own-keys.ts)
  const cells: JobGrid['cells'] = dictionary();
  for (const t of tasks) {
    (cells[t.runId] ??= dictionary())[t.stepKey] = {
      taskId: t.id,
      status: t.status,
      attempt: t.attempt,
      startedAt: t.startedAt?.toISOString() ?? null,
      finishedAt: t.completedAt?.toISOString() ?? null,
      durationMs: t.startedAt && t.completedAt ? Math.max(0, t.completedAt.getTime() - t.startedAt.getTime()) : null,
    };
  }
  const last = page[page.length - 1];
  return {
    jobId: job.id,
    runs: page
      .map((r) => ({ id: r.id, status: r.status, trigger: r.trigger, scheduledFor: r.scheduledFor.toISOString(), startedAt: r.startedAt?.toISOString() ?? null, finishedAt: r.finishedAt?.toISOString() ?? null, durationMs: r.durationMs }))
      .reverse(),
    steps: [...order, ...extra],
    cells,
    nextCursor: rows.length > limit && last ? encodeCursor({ s: 'runs', v: last.scheduledFor.toISOString(), id: last.id }) : null,
  };
}
