import { preparedSql, type SqlClient } from '../../db.ts';

/** A job's last run as the console and the REST API show it: one run's id, own status and creation instant. */
export type LastRun = { id: string; status: string; createdAt: Date };

/** What a job row says of its last run (jobs.last_run_id, last_run_scheduled_for: the run created last). */
export type LastRunRef = { id: string; lastRunId: string | null; lastRunScheduledFor: Date | null };

/**
 * For a page of jobs (the jobs list, the job page, GET /jobs, the answers of a job change): each job's
 * last run — the run created last, which jobs.last_run_at / last_run_id / last_run_scheduled_for name
 * (written with the run: insert-runs.ts, insert-run.ts) — with that run's own status and creation
 * instant, so that the status and the time the console shows belong to one run (docs/console.md "Last
 * run"): a pending or running run shows as such, and an older run ending later does not replace it.
 * Read-only, no locks. One statement for the whole page: per job, one index lookup by (scheduled_for,
 * id) — runs_time_idx, or runs_pkey — in the one weekly partition its scheduled_for names (run-time
 * partition pruning leaves the other partitions unread), never a scan of history; the completion
 * path writes nothing for it.
 * @param jobs job rows (any number; those without a last run are skipped)
 * @returns job id (lower case) -> its last run; a job whose last run is gone (retention, a dropped
 *   partition) or that has none is left out
 */
export async function selectLastRuns(db: SqlClient, jobs: readonly LastRunRef[]): Promise<Map<string, LastRun>> {
  const refs = jobs.filter((j) => j.lastRunId && j.lastRunScheduledFor);
  if (refs.length === 0) return new Map();
  const rows = await db.$queryRawUnsafe<{ jobId: string; id: string; status: string; createdAt: Date }[]>(
    preparedSql('select-last-runs', `SELECT x.job_id AS "jobId", r.id::text AS id, r.status::text AS status, r.created_at AS "createdAt"
       FROM unnest($1::text[], $2::uuid[], $3::timestamptz[]) AS x(job_id, run_id, scheduled_for)
       CROSS JOIN LATERAL (SELECT runs.id, runs.status, runs.created_at FROM runs
                            WHERE runs.id = x.run_id AND runs.scheduled_for = x.scheduled_for) r`),
    refs.map((j) => j.id.toLowerCase()), refs.map((j) => j.lastRunId), refs.map((j) => j.lastRunScheduledFor),
  );
  return new Map(rows.map((r) => [r.jobId, { id: r.id, status: r.status, createdAt: r.createdAt }]));
}

/** The last run selectLastRuns found for `jobId` (any case), or null. */
export function lastRunOf(runs: Map<string, LastRun>, jobId: string): LastRun | null {
  return runs.get(jobId.toLowerCase()) ?? null;
}

/** selectLastRuns for one job: its last run, or null. */
export async function selectLastRun(db: SqlClient, job: LastRunRef): Promise<LastRun | null> {
  return lastRunOf(await selectLastRuns(db, [job]), job.id);
}
