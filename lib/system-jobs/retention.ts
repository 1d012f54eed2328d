import { inTransaction, type Db } from '../db.ts';
import { dropHistoryWeek, listHistoryWeeks } from './history-partitions.ts';

export interface RetentionOptions {
  /** runs finished more than this many days before `now` are deleted (TICKFLOW_RETENTION_DAYS, default 30) */
  olderThanDays?: number;
  /** runs per transaction (TICKFLOW_RETENTION_BATCH, default 1000): bounds lock time and WAL per commit */
  batchSize?: number;
  /** transactions per call (default 50); the system job runs hourly and continues next time */
  maxBatches?: number;
}

export interface RetentionResult {
  cutoff: string;
  runs: number;
  tasks: number;
  taskLogs: number;
  /** task_log_lines rows deleted (the lines handlers wrote, docs/task-logs.md) */
  taskLogLines: number;
  batches: number;
  /** true when maxBatches stopped the call before everything old was gone */
  more: boolean;
  /** Mondays (YYYY-MM-DD, UTC) of the weekly partitions dropped whole; their rows are not in the counts above */
  droppedWeeks: string[];
  /** runs in the dropped weeks, from the planner's estimate of each partition (pg_class.reltuples), not a count */
  droppedRunsEstimate: number;
  /** weeks past the cutoff left for the next pass because the history tables were busy (lock_timeout) */
  busyWeeks: string[];
}

/** TICKFLOW_RETENTION_DAYS (default 30, at least 1). */
export function retentionDays(): number {
  const v = Number(process.env.TICKFLOW_RETENTION_DAYS);
  return Number.isFinite(v) && v >= 1 ? Math.floor(v) : 30;
}

/**
 * Run-log retention (a system job): removes final runs that finished before
 * `now - olderThanDays` together with their tasks, task dependencies, task_logs and
 * task_log_lines (docs/task-logs.md). handler_stats_daily is never touched, so dashboards keep
 * their history after the detail rows are gone.
 *
 * Two steps, one rule (a run goes when it was scheduled and finished before the cutoff):
 * 1. Whole weeks (docs/operations.md "History partitions"): a weekly partition set that ends
 *    before the cutoff and holds no run that must stay is detached and dropped
 *    (history-partitions.ts dropHistoryWeek): no DELETE, no dead tuples.
 * 2. Row by row, for what is left (a week that still holds an open or recently finished run,
 *    and the default partitions): `batchSize` runs per transaction, their rows deleted.
 *
 * task_logs and task_log_lines are append-only (triggers `task_logs_append_only`,
 * `task_log_lines_append_only`); the only way to delete from them is
 * `SET LOCAL tickflow.retention = 'on'` in the deleting transaction, which this function
 * does — and nothing else in Tickflow does.
 *
 * Lock (step 2): the batch's run rows FOR UPDATE SKIP LOCKED (a concurrent retention pass
 * takes other runs; an operator retrying one of them simply wins). Index: runs_time_idx
 * (scheduled_for) — a run finishes after it was scheduled, so `scheduled_for < cutoff` bounds
 * the scan — and task_logs_run_idx for the logs; task_log_lines by the batch's task ids (the
 * leading column of its primary key; it has no foreign key, so nothing cascades to it). Each
 * child table is matched on the run's scheduled_for too, which prunes it to one partition.
 * @param now injected clock (the cutoff is relative to it)
 */
export async function purgeOldRuns(db: Db, opts: RetentionOptions = {}, now: Date = new Date()): Promise<RetentionResult> {
  const days = opts.olderThanDays ?? retentionDays();
  const batchSize = opts.batchSize ?? (Number(process.env.TICKFLOW_RETENTION_BATCH) || 1000);
  const maxBatches = opts.maxBatches ?? 50;
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  const out: RetentionResult = {
    cutoff: cutoff.toISOString(), runs: 0, tasks: 0, taskLogs: 0, taskLogLines: 0, batches: 0, more: false,
    droppedWeeks: [], droppedRunsEstimate: 0, busyWeeks: [],
  };
  for (const week of await listHistoryWeeks(db)) {
    if (week.end.getTime() > cutoff.getTime()) break;
    const outcome = await dropHistoryWeek(db, week, cutoff);
    const name = week.week.toISOString().slice(0, 10);
    if (outcome === 'dropped') {
      out.droppedWeeks.push(name);
      out.droppedRunsEstimate += week.estimatedRuns;
    } else if (outcome === 'busy') out.busyWeeks.push(name);
  }
  for (;;) {
    if (out.batches >= maxBatches) {
      out.more = true;
      break;
    }
    const r = await inTransaction(db, async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL tickflow.retention = 'on'`);
      const rows = await tx.$queryRawUnsafe<{ runs: number; tasks: number; logs: number; lines: number }[]>(
        `WITH batch AS (
           SELECT id, scheduled_for FROM runs
            WHERE scheduled_for < $1::timestamptz AND finished_at < $1::timestamptz
            ORDER BY scheduled_for
            LIMIT $2::int
            FOR UPDATE SKIP LOCKED
         ), batch_tasks AS (
           SELECT t.id, t.scheduled_for FROM tasks t JOIN batch b ON t.run_id = b.id AND t.scheduled_for = b.scheduled_for
         ), logs AS (
           DELETE FROM task_logs l USING batch b WHERE l.run_id = b.id AND l.scheduled_for = b.scheduled_for RETURNING 1
         ), lines AS (
           DELETE FROM task_log_lines l USING batch_tasks t WHERE l.task_id = t.id AND l.scheduled_for = t.scheduled_for RETURNING 1
         ), gone AS (
           DELETE FROM runs r USING batch b WHERE r.id = b.id AND r.scheduled_for = b.scheduled_for RETURNING 1
         )
         SELECT (SELECT count(*) FROM gone)::int AS runs, (SELECT count(*) FROM batch_tasks)::int AS tasks,
                (SELECT count(*) FROM logs)::int AS logs, (SELECT count(*) FROM lines)::int AS lines`,
        cutoff, batchSize,
      );
      return rows[0];
    });
    if (r.runs === 0) break;
    out.batches++;
    out.runs += r.runs;
    out.tasks += r.tasks;
    out.taskLogs += r.logs;
    out.taskLogLines += r.lines;
    if (r.runs < batchSize) break;
  }
  return out;
}
