import { preparedSql, type EngineDb, type Prisma } from '../db.ts';

/**
 * Records the real start of tasks a worker held before starting them (ClaimedTask.held: claimed
 * ahead of their slot, or prefetched beyond its free slots; docs/on-time.md "Prefetch"): held is
 * cleared and started_at set to the instant the worker started the handler. The worker calls
 * it for an attempt that has lasted RUN_START_DELAY_MS (worker/runner.ts recordStart), and
 * aborts a task this does not return (the reaper handed it back, or it was cancelled): a task
 * whose start is recorded is never handed back unstarted.
 *
 * Compare-and-set on (id, week, attempt, running, locked_by = nodeId), not on held: the heartbeat
 * may have marked the task started first (extend-leases.ts), and the task is still the worker's;
 * started_at is then left as that mark found it. One autocommit
 * statement; lock: the task rows, in ascending id (lib/engine/lock-order.ts), like the heartbeat
 * that renews the same node's leases. Index: tasks primary key (id, scheduled_for).
 * @param input.tasks id, attempt, scheduled_for (the partition key) and the real start (UTC)
 * @param now the clock (UTC): updated_at
 * @returns the ids whose start was recorded
 */
export async function markHeldTasksStarted(
  db: EngineDb,
  input: { nodeId: string; tasks: { id: string; attempt: number; scheduledFor: Date; startedAt: Date }[] },
  now: Date = new Date(),
): Promise<string[]> {
  if (input.tasks.length === 0) return [];
  const rows = await (db as Prisma.TransactionClient).$queryRawUnsafe<{ id: string }[]>(
    preparedSql('mark-held-tasks-started', `WITH x AS (
       SELECT * FROM unnest($2::uuid[], $3::int[], $4::timestamptz[], $5::timestamptz[]) AS x(id, attempt, scheduled_for, started_at)
     ), mine AS (
       -- status::text keeps the planner on the primary key (finish-attempt.ts)
       SELECT t.id, t.scheduled_for, x.started_at FROM tasks t JOIN x ON t.id = x.id AND t.scheduled_for = x.scheduled_for AND t.attempt = x.attempt
        WHERE t.status::text = 'running' AND t.locked_by = $1
        ORDER BY t.id FOR UPDATE OF t
     )
     UPDATE tasks t SET held = false, started_at = CASE WHEN t.held THEN mine.started_at ELSE t.started_at END, updated_at = $6::timestamptz
       FROM mine WHERE t.id = mine.id AND t.scheduled_for = mine.scheduled_for AND t.status::text = 'running' AND t.locked_by = $1
     RETURNING t.id`),
    input.nodeId, input.tasks.map((t) => t.id), input.tasks.map((t) => t.attempt), input.tasks.map((t) => t.scheduledFor),
    input.tasks.map((t) => t.startedAt), now,
  );
  return rows.map((r) => r.id);
}
