/**
 * LISTEN/NOTIFY channel names (DESIGN.md §4: workers wake on NOTIFY and also
 * poll, so a lost notification only costs latency). NOTIFY is sent inside the
 * engine's transactions, so PostgreSQL delivers it only on commit.
 */

/** Payload '' : "some task became ready" (a run was created, a child was released, a retry was scheduled). */
export const TASKS_CHANNEL = 'tickflow_tasks';
/** Payload: a run id whose status changed to a final status (for live views). */
export const RUNS_CHANNEL = 'tickflow_runs';
/** Payload: JSON array of task ids that were cancelled while running; their workers should abort them. */
export const CANCEL_CHANNEL = 'tickflow_cancel';
