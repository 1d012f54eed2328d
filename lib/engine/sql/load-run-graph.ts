import { preparedSql, type SqlClient } from '../../db.ts';

export interface GraphTask {
  id: string;
  stepKey: string;
  status: string;
  error: string | null;
  started: boolean;
  pendingParents: number;
}
export interface GraphEdge {
  taskId: string;
  parentTaskId: string;
  depType: 'hard' | 'soft' | 'on_failure';
}

/**
 * The tasks and dependencies of one run, for operator retries (rare, so the
 * graph is walked in TypeScript). Lock: none (the caller holds the run row).
 * Index: tasks_run_step_uniq (run_id first); task_dependencies via its unique (task_id, ...) index.
 */
export async function loadRunGraph(tx: SqlClient, p: { runId: string }): Promise<{ tasks: GraphTask[]; edges: GraphEdge[] }> {
  const rows = await tx.$queryRawUnsafe<{ tasks: GraphTask[] | null; edges: GraphEdge[] | null }[]>(
    preparedSql('load-run-graph', `SELECT (SELECT jsonb_agg(jsonb_build_object('id', t.id, 'stepKey', t.step_key, 'status', t.status, 'error', t.error,
                                                 'started', t.started_at IS NOT NULL, 'pendingParents', t.pending_parents))
               FROM tasks t WHERE t.run_id = $1::uuid) AS tasks,
            (SELECT jsonb_agg(jsonb_build_object('taskId', d.task_id, 'parentTaskId', d.parent_task_id, 'depType', d.dep_type))
               FROM task_dependencies d JOIN tasks t ON t.id = d.task_id AND t.scheduled_for = d.scheduled_for WHERE t.run_id = $1::uuid) AS edges`),
    p.runId,
  );
  return { tasks: rows[0]?.tasks ?? [], edges: rows[0]?.edges ?? [] };
}
