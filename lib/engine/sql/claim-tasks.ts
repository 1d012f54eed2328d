import { preparedSql, type SqlClient } from '../../db.ts';
import type { ClaimedTask, ClaimInput } from '../types.ts';
import { claimedTaskColumns } from './columns.ts';
import { claimLogSql, claimSetColumns, nodeNotDrainingSql, routingAllowsSql, type ClaimingNodeSql } from './claim-routing.ts';

/** The claiming node as this statement's parameters. */
const CLAIMING_NODE: ClaimingNodeSql = {
  nodeId: '$1::text', group: '$3', labels: '$4::jsonb', now: '$5::timestamptz', staleSeconds: '$7::double precision',
};

/** The claim as lib/engine/claim-tasks.ts issues it (ClaimInput, its default filled in). */
export interface ClaimParams extends Required<ClaimInput> {
  /** false on the last retry after unique violations: leave every resource-keyed task for a later claim */
  allowResourceKeys: boolean;
}

/**
 * The claim: ready tasks -> running for one node, in one statement.
 *
 * Why this locking strategy. The candidate scan walks the partial index
 * `tasks_claim_idx` (priority DESC, schedule_at) WHERE status = 'pending' AND
 * pending_parents = 0 — only ready rows, already in claim order — and locks
 * `FOR UPDATE SKIP LOCKED` (docs/design.md §4, graphile-worker's and River's
 * pattern): concurrent claimers never wait on each other and never get the same
 * row, and the UPDATE ... RETURNING, the task_logs rows and the run's
 * pending -> running move (a run of several tasks) all commit together, so a claim is one
 * round trip.
 *
 * On the worker's hot-path pool (lib/sql-pool.ts: sequential and bitmap scans off) the
 * candidate scan walks tasks_claim_idx in order and stops after `limit` rows; the routing
 * predicates are row filters evaluated only on those rows. Without those settings PostgreSQL
 * may take the routing filters (expressions over jsonb, default selectivities) to match almost
 * nothing, and read every ready task of a week and sort them instead (measured: 17 ms a claim
 * of 64 over 20,000 ready tasks, against under 1 ms). Each returned row also carries `onlyTask` (no other task
 * in its run: one tasks_run_step_uniq probe), which lets completeTask finish a
 * one-step run in one statement (complete-only-tasks.ts) and skip that attempt
 * for DAG tasks.
 *
 * Resource keys (at most one running task per key across all runs) are enforced
 * by the primary key of `running_resources` (resource_key), one row per running
 * keyed task, written by the tasks_running_resource trigger in the statement that
 * starts the attempt and deleted in the one that ends it (a unique index on the
 * partitioned tasks table could only hold per partition), not by a global
 * lock: candidates whose key is already running are filtered out here, and at
 * most one candidate per key is picked (row_number over resource_key). Two
 * claimers racing for *different* tasks of the same key both pass the filter
 * (neither sees the other's uncommitted row); the second one's trigger insert then
 * hits the primary key, waits for the first to commit and fails with 23505. The
 * caller (claim-tasks.ts) retries the whole statement: the retry takes a new
 * snapshot, sees the committed running row and skips that key. We chose this
 * over `pg_try_advisory_xact_lock(hashtext(key))` in the filter because the
 * advisory lock is released at the first claimer's commit while the second
 * claimer's snapshot may still predate it, so it narrows but does not close the
 * race, costs a lock per scanned row, and hash collisions would serialise
 * unrelated keys; the primary key is exact and costs nothing when keys are
 * not contended (the trigger runs only for tasks that have a key).
 *
 * Handlers: the node's own ($2), and its fallback handlers ($9, ClaimInput.fallbackHandlers:
 * held only to fail with a clear error) only while no other live node advertises them in
 * worker_nodes.handlers — a probe of the small worker_nodes table, evaluated only for such rows.
 *
 * Routing (task.routing copied from the job: node group, labels, strategy `nodes` or
 * `consistent_hash`): the rule is claim-routing.ts routingAllowsSql, row filters evaluated only
 * on the candidate rows; the consistent_hash owner subquery runs per candidate row only for such
 * tasks (CASE), over the small worker_nodes table.
 *
 * A prepared statement per batch size (lib/db.ts preparedSql; the limit is written into the
 * text, so each size is its own statement): with the history tables partitioned by week
 * (docs/operations.md "History partitions") planning this statement over every partition of
 * tasks and runs cost more than running it (measured: 8.1 ms a claim with 17 partitions,
 * 2.1 ms before partitioning). A literal LIMIT keeps the generic plan on the ordered scan of
 * the claim index: with `LIMIT $n` unknown, PostgreSQL's generic plan reads every ready task
 * through a bitmap scan and sorts them (EXPLAIN (GENERIC_PLAN), 20,000 ready tasks: cost
 * 56,000 against a few hundred for the ordered index scan).
 *
 * The picked tasks and their runs are updated by (id, scheduled_for), the partition key carried
 * from the candidate scan: PostgreSQL then reads one week's partition of each while the statement
 * runs, instead of probing every week's primary key (measured on 10 M runs in 17 weeks: 2.3 ms a
 * claim before, 1.6 ms after, against 1.35 ms on an empty database).
 */
export async function claimTasksSql(tx: SqlClient, p: ClaimParams, now: Date): Promise<ClaimedTask[]> {
  const limit = Math.max(1, Math.floor(p.limit));
  return tx.$queryRawUnsafe<ClaimedTask[]>(
    preparedSql('claim-tasks', `WITH cand AS (
       SELECT t.id, t.scheduled_for, t.resource_key, t.priority, t.schedule_at
         FROM tasks t
        -- $10: the claim's horizon, now + ClaimInput.aheadMs (a task due within it is claimed ahead)
        WHERE t.status = 'pending' AND t.pending_parents = 0 AND t.schedule_at <= $10::timestamptz
          AND ${nodeNotDrainingSql('$1')}
          AND (t.handler = ANY($2::text[])
               -- a handler held only to fail clearly: left to any live node that offers it
               OR (t.handler = ANY($9::text[]) AND NOT EXISTS (
                     SELECT 1 FROM worker_nodes o
                      WHERE o.node_id <> $1 AND o.status = 'online'
                        AND o.last_heartbeat_at >= $5::timestamptz - make_interval(secs => $7::double precision)
                        AND t.handler = ANY(o.handlers))))
          AND ${routingAllowsSql('t', CLAIMING_NODE, 'owner')}
          AND (t.resource_key IS NULL OR ($8::boolean AND NOT EXISTS (
                SELECT 1 FROM running_resources rr WHERE rr.resource_key = t.resource_key)))
        ORDER BY t.priority DESC, t.schedule_at
        LIMIT ${limit}
        FOR UPDATE OF t SKIP LOCKED
     ), pick AS (
       -- held: claimed ahead, or due now but beyond the $11 tasks the worker starts at once, counted
       -- in the order the statement returns them (the worker's runner starts them in that order)
       SELECT id, scheduled_for,
              schedule_at > $5::timestamptz
                OR row_number() OVER (PARTITION BY schedule_at > $5::timestamptz ORDER BY priority DESC, schedule_at, id) > $11::int AS held
         FROM (
         SELECT id, scheduled_for, resource_key, priority, schedule_at,
                row_number() OVER (PARTITION BY resource_key ORDER BY priority DESC, schedule_at, id) AS rn
           FROM cand) x
        WHERE resource_key IS NULL OR rn = 1
     ), upd AS (
       UPDATE tasks t
          -- a task claimed ahead starts at its schedule_at: that is its (planned) start, corrected by
          -- its completion if the worker started it later (complete-task.ts, CompleteTaskInput.startedAt).
          -- Never before its release (ready_at, its last parent's end): this claim's clock reading
          -- may predate a completion that committed before the statement ran, or come from a
          -- worker whose clock is a little behind, and a child must not start before its parent ended
          SET ${claimSetColumns('t', { nodeId: '$1', start: 'GREATEST($5::timestamptz, t.schedule_at, t.ready_at)', leaseSeconds: '$6::double precision', held: 'pick.held' })
                .map(([column, value]) => `${column} = ${value}`).join(', ')},
              updated_at = $5::timestamptz
         FROM pick WHERE t.id = pick.id AND t.scheduled_for = pick.scheduled_for
       RETURNING t.*
     ), logs AS (
       -- the 'claimed' row no earlier than the release either, so a run's task log never shows a
       -- child taken before its parent's end
       ${claimLogSql('upd', '$1', 'GREATEST($5::timestamptz, ready_at)')}
       RETURNING 1
     ), only_task AS (
       -- A run's task set is fixed when the run is created, so the statement's snapshot answers
       -- this exactly (one tasks_run_step_uniq probe in the run's week).
       SELECT u.id, NOT EXISTS (SELECT 1 FROM tasks o WHERE o.run_id = u.run_id AND o.scheduled_for = u.scheduled_for AND o.id <> u.id) AS only
         FROM upd u
     ), started AS (
       -- A run of several tasks starts with its first claim. A one-step run does not: it goes
       -- from pending to its end in the completion, or to running when its attempt has lasted a
       -- while (mark-runs-started.ts) or ends without ending it (finish-attempt.ts) — one write
       -- of the run row per task instead of two (docs/engine.md "Run start").
       -- SKIP LOCKED: the claim holds task rows, and the lock order (lib/engine/lock-order.ts) puts
       -- runs before tasks; so it never waits for a run row. A run held by someone else (a cancel,
       -- a completion) stays 'pending' until a later claim or its end; nothing reads run status
       -- to decide task work.
       UPDATE runs r SET status = 'running', updated_at = $5::timestamptz,
              started_at = (SELECT min(u.started_at) FROM upd u WHERE u.run_id = r.id AND u.scheduled_for = r.scheduled_for)
        WHERE (r.id, r.scheduled_for) IN (SELECT l.id, l.scheduled_for FROM runs l
                                            WHERE (l.id, l.scheduled_for) IN (SELECT u.run_id, u.scheduled_for FROM upd u JOIN only_task o ON o.id = u.id WHERE NOT o.only)
                                              AND l.status::text = 'pending'
                                            ORDER BY l.id FOR UPDATE SKIP LOCKED)
          -- status::text (twice): not an index condition, so the plan probes the run by its key
          -- rather than reading every week's pending runs
          AND r.status::text = 'pending'
       RETURNING r.id
     )
     SELECT ${claimedTaskColumns('upd', 'cr', 'o.only')},
            (SELECT count(*) FROM logs)::int AS "_logs", (SELECT count(*) FROM started)::int AS "_started"
       -- the statement's snapshot of the run (job_key and trigger never change): one join for both
       FROM upd JOIN runs cr ON cr.id = upd.run_id AND cr.scheduled_for = upd.scheduled_for
       JOIN only_task o ON o.id = upd.id
      ORDER BY upd.priority DESC, upd.schedule_at, upd.id`),
    p.nodeId, p.handlers, p.group, JSON.stringify(p.labels ?? {}), now, p.leaseSeconds, p.nodeStaleSeconds,
    p.allowResourceKeys, p.fallbackHandlers, new Date(now.getTime() + Math.max(0, p.aheadMs)), p.startNow,
  );
}
