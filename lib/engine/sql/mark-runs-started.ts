import { preparedSql, type SqlClient } from '../../db.ts';

/** A run to mark running: its keys and the instant its first attempt started. */
export interface RunStart {
  runId: string;
  /** runs.scheduled_for (the partition key) */
  scheduledFor: Date;
  /** tasks.started_at of the attempt that has been running */
  startedAt: Date;
}

/**
 * Moves one-step runs whose attempt is still running from `pending` to `running`, with the
 * attempt's start as the run's start (docs/engine.md "Run start": a one-step run is not marked
 * at its claim, so that a short attempt writes its run once). Runs no longer pending (ended,
 * cancelled, marked by a completion) are left alone: a compare-and-set on status.
 *
 * Lock: the run rows, in ascending id (lib/engine/lock-order.ts), nothing else. Index: runs
 * primary key, one week's partition per run.
 * @returns how many runs moved
 */
export async function markRunsStartedSql(db: SqlClient, runs: readonly RunStart[], now: Date): Promise<number> {
  if (runs.length === 0) return 0;
  const rows = await db.$queryRawUnsafe<{ n: number }[]>(
    preparedSql('mark-runs-started', `WITH x AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, scheduled_for timestamptz, started_at timestamptz)
     ), l AS (
       SELECT r.id, r.scheduled_for FROM runs r
        WHERE (r.id, r.scheduled_for) IN (SELECT id, scheduled_for FROM x) AND r.status::text = 'pending'
        ORDER BY r.id FOR UPDATE OF r
     ), upd AS (
       UPDATE runs r SET status = 'running', started_at = x.started_at, updated_at = $2::timestamptz
         FROM x, l
        WHERE r.id = l.id AND r.scheduled_for = l.scheduled_for AND x.id = l.id AND r.status::text = 'pending'
       RETURNING 1
     )
     SELECT count(*)::int AS n FROM upd`),
    JSON.stringify(runs.map((r) => ({ id: r.runId, scheduled_for: r.scheduledFor.toISOString(), started_at: r.startedAt.toISOString() }))),
    now,
  );
  return rows[0]?.n ?? 0;
}
