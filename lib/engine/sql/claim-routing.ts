/**
 * The routing rule of a claim, written once as an SQL fragment (a boolean over a tasks row):
 * may this node take this task? Used by the claim (claim-tasks.ts) and by the hand-off of a
 * DAG completion (complete-dag-tasks.ts), where a worker takes the step its success made ready.
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
