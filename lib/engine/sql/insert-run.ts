import { preparedSql, type SqlClient } from '../../db.ts';
import type { Run } from '../types.ts';
import { runColumns } from './columns.ts';

export interface InsertRunParams {
  jobId: string;
  trigger: string;
  triggeredBy: string;
  scheduledFor: Date;
  /** 'pending' for a run with tasks, 'skipped' for a record-only run */
  status: 'pending' | 'skipped';
  reason: string | null;
  params: Record<string, unknown>;
  traceId: string;
  parentRunId: string | null;
  /** whether the run counts in jobs.total_runs / last_run_at / last_run_id (skipped records do not) */
  countOnJob: boolean;
}

/**
 * Inserts a run (copying job key and version), bumps the job's run counter and makes it the job's last
 * run (last_run_at, last_run_id, last_run_scheduled_for: lib/engine/sql/last-runs.ts).
 *
 * Lock: the job row is already locked by `lockJob` (or, for a skipped record,
 * the UPDATE takes it); no other row is touched. Index: jobs primary key.
 * `runs_schedule_fire_uniq` rejects a second run for the same schedule instant
 * (exactly-once firing) with a unique violation the tick relies on.
 */
export async function insertRun(tx: SqlClient, p: InsertRunParams, now: Date): Promise<Run | null> {
  const rows = await tx.$queryRawUnsafe<Run[]>(
    preparedSql('insert-run', `WITH j AS (
       SELECT id, key, version FROM jobs WHERE id = $1::uuid
     ), ins AS (
       INSERT INTO runs (job_id, job_key, job_version, trigger, triggered_by, scheduled_for, status, reason, params,
                         finished_at, duration_ms, trace_id, parent_run_id, created_at, updated_at)
       SELECT j.id::text, j.key, j.version, $2::run_trigger, $3, $4::timestamptz, $5::run_status, $6, $7::jsonb,
              CASE WHEN $5 = 'skipped' THEN $10::timestamptz END, NULL, -- a skipped run never started: no duration (run-outcome.ts)
              $8, $9::uuid, $10::timestamptz, $10::timestamptz
         FROM j
       RETURNING *
     ), bump AS (
       -- last_run_id / last_run_scheduled_for: the run last_run_at describes (lib/engine/sql/last-runs.ts)
       UPDATE jobs SET total_runs = total_runs + 1, last_run_at = $10::timestamptz,
                       last_run_id = ins.id, last_run_scheduled_for = ins.scheduled_for
         FROM ins
        WHERE jobs.id = $1::uuid AND $11::boolean
     )
     SELECT ${runColumns('ins')} FROM ins`),
    p.jobId, p.trigger, p.triggeredBy, p.scheduledFor, p.status, p.reason, JSON.stringify(p.params ?? {}),
    p.traceId, p.parentRunId, now, p.countOnJob,
  );
  return rows[0] ?? null;
}
