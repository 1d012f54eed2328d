/**
 * The rules of a claim, written once as SQL fragments: the routing rule (a boolean over a tasks
 * row: may this node take this task?), a draining node's refusal, and what taking a task
 * writes (its columns and its task_logs row). Used by the claim (claim-tasks.ts) and by the
 * hand-off of a DAG completion (complete-dag-tasks.ts), where a worker takes the step its
 * success made ready.
 *
 * task.routing is copied from the job at instantiation (insert-runs.ts):
 * - nodeGroup, when set, must equal the node's group;
 * - labels, when set, must all be among the node's labels with equal values;
 * - strategy `nodes` lists the node ids that may run it; `consistent_hash` makes one live node
 *   the owner by rendezvous hashing: among online worker_nodes with a fresh heartbeat that can
 *   run the handler and match group and labels, the owner maximises md5(routing key || ':' ||
 *   node_id) (a node joining moves only the keys it now wins; the owner's death hands its keys
 *   to the next highest); `any` (or none) lets every node take it.
 */

/** SQL expressions (parameters, usually) of the claiming node. */
export interface ClaimingNodeSql {
  /** text: the node id */
  nodeId: string;
  /** text: the node's group */
  group: string;
  /** jsonb: the node's labels */
  labels: string;
  /** timestamptz: the claim's clock */
  now: string;
  /** double precision: seconds after which a node without heartbeat is no owner */
  staleSeconds: string;
}

/**
 * The routing rule over tasks row `t` for node `n`.
 * @param consistentHash 'owner': consistent_hash tasks go to their owner (a subquery of the small
 *   worker_nodes table, evaluated only for such rows); 'never': they are never taken this way
 */
export function routingAllowsSql(t: string, n: ClaimingNodeSql, consistentHash: 'owner' | 'never'): string {
  const owner = consistentHash === 'never' ? 'false' : `${n.nodeId} = (
                  SELECT w.node_id FROM worker_nodes w
                   WHERE w.status = 'online'
                     AND w.last_heartbeat_at >= ${n.now} - make_interval(secs => ${n.staleSeconds})
                     AND (cardinality(w.handlers) = 0 OR ${t}.handler = ANY(w.handlers))
                     AND (${t}.routing->>'nodeGroup' IS NULL OR w."group" = ${t}.routing->>'nodeGroup')
                     AND w.labels @> coalesce(${t}.routing->'labels', '{}'::jsonb)
                   ORDER BY md5(coalesce(${t}.routing->>'key', ${t}.job_id) || ':' || w.node_id) DESC, w.node_id
                   LIMIT 1)`;
  return `(${t}.routing->>'nodeGroup' IS NULL OR ${t}.routing->>'nodeGroup' = ${n.group})
          AND (${t}.routing->'labels' IS NULL OR ${n.labels} @> (${t}.routing->'labels'))
          AND CASE coalesce(${t}.routing->>'strategy', 'any')
                WHEN 'nodes' THEN coalesce(${t}.routing->'nodes', '[]'::jsonb) @> to_jsonb(${n.nodeId})
                WHEN 'consistent_hash' THEN ${owner}
                ELSE true
              END`;
}

/**
 * SQL (boolean) that is true while node `nodeId` is not draining: an operator's drain stops its
 * claims from that moment, not from its next heartbeat. Uncorrelated: evaluated once per
 * statement (one worker_nodes primary-key probe).
 */
export function nodeNotDrainingSql(nodeId: string): string {
  return `NOT EXISTS (SELECT 1 FROM worker_nodes me WHERE me.node_id = ${nodeId} AND me.status = 'draining')`;
}

/**
 * What a claim writes on a task it gives to a node — running, the node's lock, the lease, the
 * start, whether the worker holds it before starting it, the previous attempt's end marks
 * cleared, a new row version — as (column, SQL value) pairs over the task row `t`, written once
 * for the claim (claim-tasks.ts, every pair set) and the hand-off (complete-dag-tasks.ts, each
 * pair under the hand-off's condition).
 * @param p.nodeId SQL of the node id (text); p.start SQL of the attempt's start (timestamptz);
 *   p.leaseSeconds SQL of the lease length in seconds (double precision), counted from the start;
 *   p.held SQL (boolean) of "the worker holds it before starting it" (ClaimedTask.held)
 */
export function claimSetColumns(t: string, p: { nodeId: string; start: string; leaseSeconds: string; held: string }): [column: string, value: string][] {
  return [
    ['status', `'running'::task_status`],
    ['locked_by', p.nodeId],
    ['lease_until', `${p.start} + make_interval(secs => ${p.leaseSeconds})`],
    ['started_at', p.start],
    ['held', p.held],
    ['completed_at', 'NULL'],
    ['timed_out_at', 'NULL'],
    ['version', `${t}.version + 1`],
  ];
}

/**
 * The claim's task_logs row of each claimed task in `from` (a CTE of task rows): pending ->
 * running, "claimed by <node>", at `now`.
 * @param nodeId SQL of the node id (text); now SQL of the instant (timestamptz; it may read `from`'s
 *   columns); where an optional filter over `from`
 */
export function claimLogSql(from: string, nodeId: string, now: string, where = 'true'): string {
  return `INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, node_id, created_at)
       SELECT id, run_id, scheduled_for, attempt, 'pending', 'running', 'claimed by ' || ${nodeId}, ${nodeId}, ${now} FROM ${from} WHERE ${where}`;
}
