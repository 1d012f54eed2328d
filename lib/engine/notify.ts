/**
 * LISTEN/NOTIFY channel names (DESIGN.md §4: workers wake on NOTIFY and also
 * poll, so a lost notification only costs latency). NOTIFY is sent inside the
 * engine's transactions, so PostgreSQL delivers it only on commit.
 *
 * Only what a worker must react to is notified: a NOTIFY makes its transaction
 * take PostgreSQL's single notify-queue lock at commit and hold it through the
 * WAL flush, so commits that notify run one at a time. Finished runs are not
 * notified (the console polls through TanStack Query).
 */

/** Payload '' : "some task became ready" (a run was created, a child was released, a retry was scheduled). */
export const TASKS_CHANNEL = 'tickflow_tasks';
/** Payload: JSON array of task ids that were cancelled while running; their workers should abort them. */
export const CANCEL_CHANNEL = 'tickflow_cancel';
