import { inTransaction, type Db } from '../db.ts';
import pg from 'pg';
import { dropHistoryWeek, listHistoryWeeks, weekSuffix } from './history-partitions.ts';

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
 * Run-log retention (a system job): removes final runs that were scheduled and finished before
 * `now - olderThanDays` together with their tasks, task dependencies, task_logs and
 * task_log_lines (docs/task-logs.md). handler_stats_daily is never touched, so dashboards keep
 * their history after the detail rows are gone.
 *
 * The history tables are partitioned by week (docs/operations.md "History partitions"), and a
 * week goes whole:
 * 1. A weekly partition set that ends before the cutoff and holds no run that must stay (open,
 *    or finished after the cutoff) is detached and dropped (history-partitions.ts
 *    dropHistoryWeek): no DELETE, no dead tuples. A week that ends after the cutoff waits,
 *    whole, until it does: a run is kept for `olderThanDays`, and up to 7 days more.
 * 2. Row by row, `batchSize` runs per transaction, only where a week cannot go whole: the
 *    weeks past the cutoff that were kept (an open or recently finished run) or busy (their
 *    locks not had in time), and the default partitions (weeks that have no partition).
 *
 * task_logs and task_log_lines are append-only (triggers `task_logs_append_only`,
 * `task_log_lines_append_only`); the only way to delete from them is
 * `SET LOCAL tickflow.retention = 'on'` in the deleting transaction, which this function
 * does — and nothing else in Tickflow does.
 *
 * Lock (step 2): the batch's run rows FOR UPDATE SKIP LOCKED (a concurrent retention pass
 * takes other runs; an operator retrying one of them simply wins). Each statement reads and
 * deletes the partitions of one week (or the default ones) by name. Index: runs_time_idx
 * (scheduled_for) — a run finishes after it was scheduled, so `scheduled_for < cutoff` bounds
 * the scan — task_logs_task_idx for the logs, and the primary key of task_log_lines (its
 * leading column is the task id; it has no foreign key, so nothing cascades to it); tasks and
 * task_dependencies go by the foreign keys' cascade.
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
  // the partition suffixes left to step 2: the default partitions, then weeks that could not go whole
  const rowWise = ['default'];
  for (const week of await listHistoryWeeks(db)) {
    if (week.end.getTime() > cutoff.getTime()) break;
    const outcome = await dropHistoryWeek(db, week, cutoff);
    const name = week.week.toISOString().slice(0, 10);
    if (outcome === 'dropped') {
      out.droppedWeeks.push(name);
      out.droppedRunsEstimate += week.estimatedRuns;
      continue;
    }
    if (outcome === 'gone') continue;
    if (outcome === 'busy') out.busyWeeks.push(name);
    rowWise.push(`w${weekSuffix(week.week)}`);
  }
  for (const suffix of rowWise) {
    for (;;) {
      if (out.batches >= maxBatches) {
        out.more = true;
        return out;
      }
      const r = await deleteBatch(db, suffix, cutoff, batchSize);
      if (r.runs === 0) break;
      out.batches++;
      out.runs += r.runs;
      out.tasks += r.tasks;
      out.taskLogs += r.logs;
      out.taskLogLines += r.lines;
      if (r.runs < batchSize) break;
    }
  }
  return out;
}

/** One row-wise batch in the partitions `<table>_<suffix>`: up to `batchSize` runs past the cutoff, with all they own. */
async function deleteBatch(db: Db, suffix: string, cutoff: Date, batchSize: number) {
  const part = (table: string) => pg.escapeIdentifier(`${table}_${suffix}`);
  return inTransaction(db, async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL tickflow.retention = 'on'`);
    const rows = await tx.$queryRawUnsafe<{ runs: number; tasks: number; logs: number; lines: number }[]>(
      `WITH batch AS (
         SELECT id FROM ${part('runs')}
          WHERE scheduled_for < $1::timestamptz AND finished_at < $1::timestamptz
          ORDER BY scheduled_for
          LIMIT $2::int
          FOR UPDATE SKIP LOCKED
       ), batch_tasks AS (
         SELECT t.id FROM ${part('tasks')} t JOIN batch b ON t.run_id = b.id
       ), logs AS (
         DELETE FROM ${part('task_logs')} l USING batch_tasks t WHERE l.task_id = t.id RETURNING 1
       ), lines AS (
         DELETE FROM ${part('task_log_lines')} l USING batch_tasks t WHERE l.task_id = t.id RETURNING 1
       ), gone AS (
         DELETE FROM ${part('runs')} r USING batch b WHERE r.id = b.id RETURNING 1
       )
       SELECT (SELECT count(*) FROM gone)::int AS runs, (SELECT count(*) FROM batch_tasks)::int AS tasks,
              (SELECT count(*) FROM logs)::int AS logs, (SELECT count(*) FROM lines)::int AS lines`,
      cutoff, batchSize,
    );
    return rows[0]!;
  });
}
