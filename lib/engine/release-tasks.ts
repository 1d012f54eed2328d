import { preparedSql, type EngineDb, type Prisma, type SqlClient } from '../db.ts';
import { TASKS_CHANNEL } from './notify.ts';
import { withEngineTransaction } from './pg.ts';
import { shareRunsOfTasks } from './sql/lock-job-row.ts';
import { unsatisfiedParentsSql } from './sql/release-joins.ts';

/**
 * How many times the reaper hands one attempt of a task back unstarted (its worker presumed dead
 * while the task was still held) before it fails the attempt instead, as for any expired lease.
 * `held` is cleared only once an attempt has lasted a moment (worker/runner.ts recordStart), so a
 * task whose handler kills its worker at once would otherwise be handed back, and kill the next
 * worker, forever.
 */
export const MAX_UNSTARTED_HAND_BACKS = 2;

/**
 * Hands back tasks a worker claimed but never started (docs/on-time.md "Prefetch"): claimed
 * ahead and held until their start, or prefetched and waiting for a slot, when the worker
 * stops. Each goes running -> pending on the same attempt (no handler ran, so no attempt is
 * counted and no stats event is booked), its lock, lease and planned start cleared, with a
 * task_logs row `handed back unstarted by <node>: <reason>`. NOTIFY tickflow_tasks wakes the
 * other workers: payload '' when one is claimable now, and the epoch ms of the earliest
 * schedule_at still to come when one is held for later (notify.ts).
 *
 * The reaper hands back the same way a task still `held` (its start not recorded) whose
 * worker's lease expired (reclaim-expired-leases.ts): `reaped` adds `held AND lease_until < now`
 * to the compare-and-set, so a heartbeat or a start recorded meanwhile wins, and fewer than
 * MAX_UNSTARTED_HAND_BACKS such hand-backs of this attempt before (their log rows carry
 * detail.presumedDead; task_logs_task_idx); the log row says the worker is presumed dead.
 *
 * Compare-and-set on (id, week, attempt, running, locked_by = nodeId): a task cancelled or
 * reclaimed meanwhile is left alone. Each task's pending_parents is recounted from its parents'
 * statuses (an operator may have re-opened one since it was released): one transaction that first
 * holds the tasks' runs FOR SHARE (shareRunsOfTasks), so that the recount, a later statement, sees
 * a re-open that held a run when the hand-back began. Lock: runs, then the task rows (the
 * running_resources row of a resource-keyed task is released by its trigger).
 * @param input.tasks the claimed tasks: id, attempt, and scheduled_for (the partition key)
 * @param now the clock (UTC): updated_at and the log row's instant
 * @returns how many tasks were handed back
 */
export async function releaseTasks(
  db: EngineDb,
  input: { nodeId: string; tasks: { id: string; attempt: number; scheduledFor: Date }[]; reason: string; reaped?: boolean },
  now: Date = new Date(),
): Promise<number> {
  if (input.tasks.length === 0) return 0;
  return withEngineTransaction(db, async (tx) => {
    await shareRunsOfTasks(tx, input.tasks.map((t) => t.id), input.tasks.map((t) => t.scheduledFor));
    return handBack(tx, input, now);
  });
}

/** releaseTasks' statement, in its transaction. */
async function handBack(
  db: SqlClient,
  input: { nodeId: string; tasks: { id: string; attempt: number; scheduledFor: Date }[]; reason: string; reaped?: boolean },
  now: Date,
): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ n: number }[]>(
    preparedSql('release-tasks', `WITH x AS (
       SELECT * FROM unnest($2::uuid[], $3::int[], $4::timestamptz[]) AS x(id, attempt, scheduled_for)
     ), rc AS (
       -- its parents may have been re-opened by an operator since it was released (release-joins.ts)
       ${unsatisfiedParentsSql('x')}
     ), upd AS (
       UPDATE tasks t SET status = 'pending', locked_by = NULL, lease_until = NULL, started_at = NULL, held = false,
              pending_parents = rc.n, version = t.version + 1, updated_at = $5::timestamptz
         FROM x JOIN rc ON rc.id = x.id
        WHERE t.id = x.id AND t.scheduled_for = x.scheduled_for AND t.attempt = x.attempt
          AND t.status::text = 'running' AND t.locked_by = $1
          AND (NOT $7::boolean OR (t.held AND t.lease_until < $5::timestamptz
                                   AND (SELECT count(*) FROM task_logs l
                                         WHERE l.task_id = t.id AND l.scheduled_for = t.scheduled_for AND l.attempt = t.attempt
                                           AND l.to_status = 'pending' AND (l.detail ->> 'presumedDead') = 'true') < ${MAX_UNSTARTED_HAND_BACKS}))
       RETURNING t.id, t.run_id, t.scheduled_for, t.attempt, t.schedule_at
     ), logs AS (
       INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, node_id, created_at)
       SELECT id, run_id, scheduled_for, attempt, 'running', 'pending',
              CASE WHEN $7::boolean THEN 'handed back unstarted: worker ' || $1 || ' presumed dead before it started the task (' || $6 || ')'
                   ELSE 'handed back unstarted by ' || $1 || ': ' || $6 END,
              CASE WHEN $7::boolean THEN jsonb_build_object('presumedDead', true) END, $1, $5::timestamptz
         FROM upd
       RETURNING 1
     ), due AS (
       SELECT bool_or(schedule_at <= $5::timestamptz) AS now_due, min(schedule_at) FILTER (WHERE schedule_at > $5::timestamptz) AS later
         FROM upd
     )
     SELECT (SELECT count(*) FROM upd)::int AS n, (SELECT count(*) FROM logs)::int AS logged,
            -- payloads as the tick's (notify.ts): '' = claimable now, else the epoch ms it becomes so
            (SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}', '') FROM due WHERE now_due) n)::int AS notified_now,
            (SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}', floor(extract(epoch FROM later) * 1000)::bigint::text)
                                     FROM due WHERE later IS NOT NULL) n)::int AS notified_later`),
    input.nodeId, input.tasks.map((t) => t.id), input.tasks.map((t) => t.attempt), input.tasks.map((t) => t.scheduledFor), now, input.reason,
    input.reaped ?? false,
  );
  return rows[0]?.n ?? 0;
}

/**
 * Hands back the tasks the database says `nodeId` holds (running, locked_by = nodeId, held or
 * not) but the worker does not know: assigned by a claim or a hand-off (docs/engine.md
 * "Hand-off") that committed after the worker had stopped waiting for its answer (a client-side
 * query timeout, a lost connection). The worker never started them, so each goes back to pending
 * on the same attempt through releaseTasks (its compare-and-set, task_logs row
 * `handed back unstarted by <node>: <reason>`, and NOTIFY) instead of waiting for its lease to
 * expire and the reaper to fail it as if the worker had died (docs/engine.md "Lost answers").
 *
 * The caller must have no statement in flight that may still assign tasks to `nodeId` and whose
 * answer it still awaits (worker/claimer.ts reconcile): such a statement's tasks are not in
 * `knownTaskIds` yet, and would be handed back from under it.
 *
 * Two statements: a read of the node's running tasks (tasks_lease_idx, a partial index of
 * running tasks), then releaseTasks. Run only after an assignment's outcome was unknown, never on
 * the claim's hot path.
 * @param input.knownTaskIds every task the worker holds or is still recording (Runner.activeTaskIds)
 * @param input.reason why, for the task_logs row
 * @param now the clock (UTC)
 * @returns the stray tasks found (ids) and how many of them were handed back (one cancelled or
 *   reclaimed meanwhile is left alone)
 */
export async function releaseStrayTasks(
  db: EngineDb,
  input: { nodeId: string; knownTaskIds: string[]; reason: string },
  now: Date = new Date(),
): Promise<{ found: string[]; handedBack: number }> {
  const strays = await (db as Prisma.TransactionClient).$queryRawUnsafe<{ id: string; attempt: number; scheduledFor: Date }[]>(
    preparedSql('select-stray-tasks', `SELECT id, attempt, scheduled_for AS "scheduledFor" FROM tasks
      WHERE status = 'running' AND locked_by = $1 AND NOT (id = ANY($2::uuid[]))`),
    input.nodeId, input.knownTaskIds,
  );
  if (strays.length === 0) return { found: [], handedBack: 0 };
  const handedBack = await releaseTasks(db, { nodeId: input.nodeId, tasks: strays, reason: input.reason }, now);
  return { found: strays.map((s) => s.id), handedBack };
}
