import { preparedSql, type EngineDb, type SqlClient } from '../db.ts';

/**
 * Resource keys a cancelled attempt still holds (docs/engine.md "Resource keys").
 *
 * Cancelling a run moves its running tasks to `cancelled` at once, while the attempts' work goes
 * on until their workers hear of it and the handlers return (a shell program: SIGTERM, then its
 * kill grace before SIGKILL). So the move keeps the key's `running_resources` row, marked with
 * the worker (`held_by`) and the attempt's lease end (`held_until`), and no task of the key is
 * claimed until one of these ends it:
 * - the worker, once the handler returned or the attempt never started (releaseHeldResourceKeys);
 * - the reaper, once `held_until` has passed (expireHeldResourceKeys): the worker died, and its
 *   shell programs were killed by then (the guardian's deadline, docs/engine.md);
 * the heartbeat moves `held_until` on while the handler still runs (renewHeldResourceKeys).
 * Deleting the row wakes the workers when a task waits on the key (the running_resources_freed
 * trigger, prisma/migrations/20261212000000_resource_key_freed_notify).
 */

/**
 * Frees the keys that `nodeId`'s cancelled attempts of `taskIds` hold: their handlers have
 * returned, or never started. Returns the keys freed; a task whose key is not held by this node
 * (already expired, or never held) is skipped.
 */
export async function releaseHeldResourceKeys(db: EngineDb, input: { nodeId: string; taskIds: string[] }): Promise<string[]> {
  if (input.taskIds.length === 0) return [];
  const rows = await (db as SqlClient).$queryRawUnsafe<{ resourceKey: string }[]>(
    preparedSql('release-held-resource-keys', `DELETE FROM running_resources
      WHERE task_id = ANY($1::uuid[]) AND held_by = $2
      RETURNING resource_key AS "resourceKey"`),
    input.taskIds, input.nodeId,
  );
  return rows.map((r) => r.resourceKey);
}

/**
 * Moves `held_until` to `now` + `leaseSeconds` (s) for the keys that `nodeId`'s cancelled
 * attempts of `taskIds` hold while their handlers still run (the heartbeat, as it renews leases).
 * Returns how many it renewed.
 */
export async function renewHeldResourceKeys(
  db: EngineDb,
  input: { nodeId: string; taskIds: string[]; leaseSeconds: number },
  now: Date,
): Promise<number> {
  if (input.taskIds.length === 0) return 0;
  const rows = await (db as SqlClient).$queryRawUnsafe<{ n: number }[]>(
    preparedSql('renew-held-resource-keys', `WITH renewed AS (
       UPDATE running_resources SET held_until = $3::timestamptz + make_interval(secs => $4::double precision)
        WHERE task_id = ANY($1::uuid[]) AND held_by = $2
       RETURNING 1)
     SELECT count(*)::int AS n FROM renewed`),
    input.taskIds, input.nodeId, now, input.leaseSeconds,
  );
  return rows[0]?.n ?? 0;
}

/**
 * Frees every key a cancelled attempt held whose `held_until` is before `now` (the reaper, under
 * the same reachability rule as its lease reclaims: docs/engine.md "Liveness"). Returns the keys
 * with the worker that held them.
 */
export async function expireHeldResourceKeys(db: EngineDb, now: Date): Promise<{ resourceKey: string; taskId: string; heldBy: string }[]> {
  return (db as SqlClient).$queryRawUnsafe<{ resourceKey: string; taskId: string; heldBy: string }[]>(
    preparedSql('expire-held-resource-keys', `DELETE FROM running_resources
      WHERE held_until < $1::timestamptz
      RETURNING resource_key AS "resourceKey", task_id::text AS "taskId", held_by AS "heldBy"`),
    now,
  );
}
