/**
 * LISTEN/NOTIFY channel names (docs/design.md §4: workers wake on NOTIFY and also
 * poll, so a lost notification only costs latency). NOTIFY is sent inside the
 * engine's transactions, so PostgreSQL delivers it only on commit — except on the
 * worker's path of batched DAG completions, which notifies after its commits
 * (notifyTasksReadyNow).
 *
 * Only what a worker must react to is notified: a NOTIFY makes its transaction
 * take PostgreSQL's single notify-queue lock at commit and hold it through the
 * WAL flush, so commits that notify run one at a time. Finished runs are not
 * notified (the console polls through TanStack Query).
 */
import { preparedSql, type SqlClient } from '../db.ts';

/**
 * "Some task became ready" (a run was created, a child was released, a retry was scheduled).
 * Payload '' : ready now; or the epoch milliseconds (UTC) of the earliest `schedule_at` of the
 * new tasks when that lies in the future (a run created ahead of its slot, a retry in backoff),
 * so a worker can sleep until then instead of polling (docs/on-time.md).
 */
export const TASKS_CHANNEL = 'tickflow_tasks';
/**
 * A job may fire earlier than tickers planned for (created, resumed, restored, next_run_at moved
 * earlier): payload = its next_run_at in epoch milliseconds. Sent by the jobs_notify_* triggers
 * (migration 20261201400000_lookahead_fires), never by the tick itself.
 */
export const JOBS_CHANNEL = 'tickflow_jobs';

/**
 * The instant a tickflow_tasks / tickflow_jobs payload names, in epoch milliseconds, or null
 * for '' / anything that is not a non-negative integer (which means "now").
 */
export function notifiedAt(payload: string | undefined | null): number | null {
  if (!payload || !/^\d{1,15}$/.test(payload)) return null;
  return Number(payload);
}
/** Payload: JSON array of task ids that were cancelled while running; their workers should abort them. */
export const CANCEL_CHANNEL = 'tickflow_cancel';

/**
 * NOTIFY tickflow_tasks ('' : ready now) as a statement of its own, sent after the writes it
 * announces have committed. A transaction that writes nothing but a notification commits without
 * waiting for a WAL flush (PostgreSQL's RecordTransactionCommit flushes only for transactions that
 * wrote WAL), so it holds the notify-queue lock for an instant, where a NOTIFY inside a writing
 * transaction holds it through that transaction's flush and makes concurrent notifying commits
 * wait one behind the other (bench/dag.ts with another process loading the 2 cores: 1,470–1,710
 * tasks/s with the releases notifying inside their transactions, 2,270–2,580 so; on a quiet machine
 * the two are within the spread of single runs). A worker that dies before sending it costs the
 * other workers their safety poll, as any lost notification does.
 */
export async function notifyTasksReadyNow(db: SqlClient): Promise<void> {
  await db.$queryRawUnsafe(preparedSql('notify-tasks-ready', `SELECT pg_notify('${TASKS_CHANNEL}', '')`));
}
