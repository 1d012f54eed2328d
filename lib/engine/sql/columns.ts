/** SELECT-list fragments (not statements) mapping snake_case rows to the engine's camelCase shapes. */
import { latenessFromSql } from './stats-outcome.ts';

/** Every `runs` column aliased to Prisma's `Run` field names. Prefix with a table alias via `runColumns('r')`. */
export function runColumns(alias = 'runs'): string {
  const a = alias;
  return `${a}.id, ${a}.job_id AS "jobId", ${a}.job_key AS "jobKey", ${a}.job_version AS "jobVersion", ${a}.trigger::text AS "trigger",
    ${a}.triggered_by AS "triggeredBy", ${a}.scheduled_for AS "scheduledFor", ${a}.status::text AS "status", ${a}.reason,
    ${a}.params, ${a}.started_at AS "startedAt", ${a}.finished_at AS "finishedAt", ${a}.duration_ms AS "durationMs",
    ${a}.error, ${a}.trace_id AS "traceId", ${a}.parent_run_id AS "parentRunId", ${a}.created_at AS "createdAt",
    ${a}.updated_at AS "updatedAt"`;
}

/**
 * The task columns a claim returns (ClaimedTask).
 * @param alias the tasks row
 * @param run the alias of the task's runs row, joined by the caller (job key, lateness rule)
 * @param onlyTask SQL (boolean) of "the run has no other task", computed by the caller
 */
export function claimedTaskColumns(alias: string, run: string, onlyTask: string): string {
  const a = alias;
  return `${a}.id, ${a}.run_id AS "runId", ${a}.job_id AS "jobId", ${a}.step_key AS "stepKey", ${a}.handler, ${a}.config,
    ${a}.payload, ${a}.attempt, ${a}.max_retries AS "maxRetries", ${a}.timeout_seconds AS "timeoutSeconds", ${a}.priority,
    ${a}.resource_key AS "resourceKey", ${a}.scheduled_for AS "scheduledFor", ${a}.started_at AS "startedAt",
    ${a}.lease_until AS "leaseUntil", ${a}.version, ${latenessFromSql(a, run)} AS "latenessFrom",
    ${run}.job_key AS "jobKey", ${onlyTask} AS "onlyTask", ${a}.held`;
}

/** Task statuses that are not final, as an SQL list (docs/design.md §4). */
export const OPEN_TASK_STATUSES_SQL = `('pending', 'running', 'failed', 'timeout')`;
