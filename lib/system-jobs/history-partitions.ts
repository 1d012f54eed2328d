import pg from 'pg';
import { inTransaction, type Db } from '../db.ts';
import { pgErrorCode } from '../engine/pg.ts';

/**
 * Weekly partitions of the history tables (runs, tasks, task_dependencies, task_logs,
 * task_log_lines), partitioned by range on the run's `scheduled_for`, one partition per UTC
 * week named `<table>_w<YYYYMMDD>` after its Monday, plus `<table>_default` for the rest
 * (prisma/migrations/20261203000000_history_partitions, docs/operations.md "History
 * partitions"). This module creates them ahead and drops them whole.
 */

/** How far ahead of now weekly partitions exist (days): the retention job runs hourly, so two weeks leave room for outages. */
export const PARTITION_AHEAD_DAYS = 15;

const DAY_MS = 86_400_000;

/** The Monday 00:00 UTC of the week holding `at`. */
export function weekStart(at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const dow = (new Date(day).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return new Date(day - dow * DAY_MS);
}

/** `YYYYMMDD` of a week's Monday, the suffix of its partitions' names. */
export function weekSuffix(week: Date): string {
  return week.toISOString().slice(0, 10).replaceAll('-', '');
}

/**
 * Creates the missing weekly partitions of every history table for the weeks overlapping
 * [from, to) (default: the current week through PARTITION_AHEAD_DAYS ahead of `now`), through
 * the SQL function tickflow_ensure_history_partitions, which skips a week whose range already
 * has rows in runs_default (PostgreSQL refuses such a partition; those rows stay in the
 * default partition, which retention empties row by row).
 * Lock: creating a partition takes an ACCESS EXCLUSIVE lock on each parent for a moment;
 * `lock_timeout` (2 s) makes a busy moment fail fast, to be tried again by the next pass.
 * @returns the Mondays (UTC) of the weeks created
 */
export async function ensureHistoryPartitions(db: Db, now: Date = new Date(), range: { from?: Date; to?: Date } = {}): Promise<Date[]> {
  const from = range.from ?? weekStart(now);
  const to = range.to ?? new Date(now.getTime() + PARTITION_AHEAD_DAYS * DAY_MS);
  const rows = await inTransaction(db, async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '2s'`);
    return tx.$queryRawUnsafe<{ week: Date }[]>(
      `SELECT w::timestamp AT TIME ZONE 'UTC' AS week FROM tickflow_ensure_history_partitions($1::timestamptz, $2::timestamptz) AS w`,
      from, to,
    );
    // no replay: failing fast on a busy moment is the point of the lock_timeout (the next pass tries again)
  }, { replay: false });
  return rows.map((r) => r.week);
}

/** A weekly partition set: its Monday and the next (UTC), and the planner's row estimate of its runs partition. */
export interface HistoryWeek {
  week: Date;
  end: Date;
  /** pg_class.reltuples of runs_w…: an estimate kept by ANALYZE / autovacuum (0 before the first) */
  estimatedRuns: number;
}

/** The weekly partitions of `runs`, oldest first (the other history tables have the same weeks). */
export async function listHistoryWeeks(db: Db): Promise<HistoryWeek[]> {
  const rows = await db.$queryRawUnsafe<{ name: string; estimate: number }[]>(
    `SELECT c.relname AS name, greatest(c.reltuples, 0)::float8 AS estimate
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'runs'::regclass AND c.relname ~ '^runs_w[0-9]{8}$'
      ORDER BY c.relname`,
  );
  return rows.map((r) => {
    const s = r.name.slice('runs_w'.length);
    const week = new Date(Date.UTC(Number(s.slice(0, 4)), Number(s.slice(4, 6)) - 1, Number(s.slice(6, 8))));
    return { week, end: new Date(week.getTime() + 7 * DAY_MS), estimatedRuns: Math.round(r.estimate) };
  });
}

/** SQL: does the runs partition `table` hold a run that retention must keep (open, or finished at or after $1)? */
function keepsRunSql(table: string): string {
  return `SELECT EXISTS (SELECT 1 FROM ${pg.escapeIdentifier(table)}
                          WHERE status IN ('pending', 'running') OR finished_at >= $1::timestamptz) AS keeps`;
}

export type DropWeekOutcome = 'dropped' | 'kept' | 'busy' | 'gone';

/**
 * Drops one week of history whole when retention would delete every run in it: the week ends
 * at or before `cutoff` and none of its runs is open or finished at or after `cutoff` (the
 * row-wise rule of purgeOldRuns, for all rows at once). Its five partitions go in one DROP
 * TABLE: their foreign keys join only each other (tickflow_link_history_partition), so nothing
 * outside the week has to be checked.
 * Lock: ACCESS EXCLUSIVE on the five parent tables, taken at once in child-to-parent order
 * under lock_timeout 2 s, held for the re-check and the drop (milliseconds); engine
 * statements wait that long. A lock not had in time answers 'busy', to be tried next pass.
 * @returns 'dropped', 'kept' (a run must stay: the week waits, purgeOldRuns deletes its
 *   finished rows), 'busy', or 'gone' (another pass dropped it first)
 */
export async function dropHistoryWeek(db: Db, week: HistoryWeek, cutoff: Date): Promise<DropWeekOutcome> {
  if (week.end.getTime() > cutoff.getTime()) return 'kept';
  const suffix = weekSuffix(week.week);
  const part = (table: string) => `${table}_w${suffix}`;
  try {
    const first = await db.$queryRawUnsafe<{ keeps: boolean }[]>(keepsRunSql(part('runs')), cutoff);
    if (first[0]?.keeps) return 'kept';
    return await inTransaction(db, async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '2s'`);
      // the history tables child first: the SQL function is their one list (parent to child)
      const [{ tables }] = await tx.$queryRawUnsafe<{ tables: string[] }[]>(
        `SELECT array(SELECT t FROM unnest(tickflow_history_tables()) WITH ORDINALITY AS x(t, n) ORDER BY n DESC) AS tables`,
      );
      await tx.$executeRawUnsafe(`LOCK TABLE ${tables.map((t) => pg.escapeIdentifier(t)).join(', ')} IN ACCESS EXCLUSIVE MODE`);
      // an operator's retry may have re-opened a run since the first look
      const again = await tx.$queryRawUnsafe<{ keeps: boolean }[]>(keepsRunSql(part('runs')), cutoff);
      if (again[0]?.keeps) return 'kept' as const;
      await tx.$executeRawUnsafe(`DROP TABLE ${tables.map((t) => pg.escapeIdentifier(part(t))).join(', ')}`);
      return 'dropped' as const;
      // no replay: a lock conflict means the engine is busy with the week's tables, and the next pass tries again
    }, { replay: false });
  } catch (error) {
    // 55P03 lock_not_available (lock_timeout), 40P01 a deadlock with an engine statement
    if (['55P03', '40P01'].includes(pgErrorCode(error) ?? '')) return 'busy';
    // 42P01 undefined_table: another retention pass dropped the week first
    if (pgErrorCode(error) === '42P01') return 'gone';
    throw error;
  }
}
