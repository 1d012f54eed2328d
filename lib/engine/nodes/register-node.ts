/**
 * Registers this worker process as a node (docs/design.md §3 `worker_nodes`).
 *
 * Every process gets a NEW random node id: a restarted worker on the same host
 * is a different node and never adopts the dead process's running tasks — those
 * come back only through lease expiry (docs/engine-cases.md case 4).
 * Plain INSERT on the primary key; no lock beyond the row itself.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db.ts';

export interface RegisterNodeInput {
  name: string;
  host: string;
  pid: number;
  group: string;
  labels: Record<string, string>;
  handlers: string[];
  /**
   * what the node advertises per handler (description, input JSON Schema, step defaults;
   * worker/handlers/function-executor.ts HandlerSpec), read by lib/handlers/catalogue.ts
   */
  handlerSpecs?: Record<string, unknown>;
  /** names of the secrets the node holds (worker/task-secrets.ts), never their values */
  secretNames?: string[];
  version: string;
  /** tests may fix the id; production leaves it out */
  nodeId?: string;
}

/** A fresh node id: `<host>-<pid>-<12 hex>`, unique per process start. */
export function newNodeId(host: string, pid: number): string {
  const h = host.replace(/[^A-Za-z0-9.-]+/g, '-').slice(0, 40) || 'host';
  return `${h}-${pid}-${randomBytes(6).toString('hex')}`;
}

export async function registerNode(db: Db, input: RegisterNodeInput, now: Date = new Date()): Promise<string> {
  const nodeId = input.nodeId ?? newNodeId(input.host, input.pid);
  await db.$executeRaw`
    INSERT INTO worker_nodes (node_id, name, host, pid, "group", labels, handlers, handler_specs, secret_names, status, last_heartbeat_at, running_tasks, version, started_at)
    VALUES (${nodeId}, ${input.name}, ${input.host}, ${input.pid}, ${input.group}, ${JSON.stringify(input.labels)}::jsonb,
            ${input.handlers}::text[], ${JSON.stringify(input.handlerSpecs ?? {})}::json, ${input.secretNames ?? []}::text[], 'online', ${now}, 0, ${input.version}, ${now})`;
  return nodeId;
}
