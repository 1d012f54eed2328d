/**
 * The handler catalogue: every handler a job step may name, with what workers advertise
 * about it (worker_nodes.handlers and worker_nodes.handler_specs, written at registration
 * by lib/engine/nodes/register-node.ts) and whether a live worker offers it now.
 *
 * - available: some node offering it is online or draining with a heartbeat younger than
 *   HEARTBEAT_STALE_SECONDS (lib/workers/node-status.ts); otherwise `lastOfferedAt` is the
 *   newest heartbeat of a node that offered it (null when no registered node ever did —
 *   node rows are deleted after TICKFLOW_NODE_RETENTION_DAYS offline or stopped).
 * - spec (description, input JSON Schema, step defaults): from the node with the newest
 *   heartbeat that advertised one, so a redeployed handler's new schema wins.
 * Built-ins are always listed (every worker ships them), with their own descriptions and input schemas.
 */
import type { Db } from '../db.ts';
import { BUILTIN_HANDLER_NAMES } from '../jobs/known-handlers.ts';
import { HEARTBEAT_STALE_SECONDS, heartbeatFreshSince } from '../workers/node-status.ts';
import { routingAllowsSql } from '../engine/sql/claim-routing.ts';
import type { JsonSchema } from './payload-schema.ts';
import { builtinInputSchema } from './builtin-schemas.ts';
import { ownValue } from '../own-keys.ts';

export interface HandlerCatalogueEntry {
  name: string;
  builtin: boolean;
  description: string;
  /**
   * JSON Schema of the payload (custom handlers; null when none was advertised). For a built-in, what it
   * reads (lib/handlers/builtin-schemas.ts builtinInputSchema): the step config overlaid by the payload
   * (`http`, `sql`, `shell`, the numeric settings of `builtin.*`) or the step config (`grpc`); null without inputs.
   */
  inputSchema: JsonSchema | null;
  /** defaults the console fills into a new step using the handler */
  timeoutSeconds: number | null;
  maxRetries: number | null;
  available: boolean;
  /** ISO time of the newest heartbeat of a node that offered it (null: none registered) */
  lastOfferedAt: string | null;
}

/** One line per built-in handler (README "Handlers"). */
export const BUILTIN_DESCRIPTIONS: Record<string, string> = {
  'builtin.noop': 'Does nothing and succeeds',
  'builtin.echo': 'Output = payload',
  'builtin.sleep': 'Waits { ms } milliseconds',
  'builtin.fail': 'Always fails with { message }',
  'builtin.flaky': 'Fails while attempt ≤ { failTimes }',
  'builtin.ignore-abort': 'Test helper: sleeps ignoring cancellation',
  http: 'One HTTP request: method, url, headers, body, expectStatus',
  shell: 'Runs an argv command (needs TICKFLOW_ALLOW_SHELL=1 on the worker)',
  sql: 'Runs SQL on the restricted scratch role or a named connection',
  grpc: 'One gRPC call: address, service, method and .proto in config; payload = request',
};

type NodeRow = { handlers: string[]; handler_specs: Record<string, Record<string, unknown>> | null; live: boolean; last_heartbeat_at: Date };

async function nodeRows(db: Db, now: Date): Promise<NodeRow[]> {
  const fresh = heartbeatFreshSince(now);
  return db.$queryRaw<NodeRow[]>`
    SELECT handlers, handler_specs, (status IN ('online', 'draining') AND last_heartbeat_at >= ${fresh}) AS live, last_heartbeat_at
      FROM worker_nodes
     ORDER BY last_heartbeat_at DESC`;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}

/**
 * The catalogue: built-ins first (in BUILTIN_HANDLER_NAMES order, system handlers left out
 * unless `includeSystem`), then custom handlers by name.
 * @param now the clock of "available" (heartbeat age)
 */
export async function loadHandlerCatalogue(db: Db, now: Date = new Date(), opts: { includeSystem?: boolean } = {}): Promise<HandlerCatalogueEntry[]> {
  const rows = await nodeRows(db, now);
  const byName = new Map<string, HandlerCatalogueEntry>();
  const builtins = BUILTIN_HANDLER_NAMES.filter((n) => opts.includeSystem || !n.startsWith('system.'));
  for (const name of builtins) {
    byName.set(name, { name, builtin: true, description: ownValue(BUILTIN_DESCRIPTIONS, name) ?? '', inputSchema: builtinInputSchema(name), timeoutSeconds: null, maxRetries: null, available: false, lastOfferedAt: null });
  }
  for (const row of rows) {
    for (const name of row.handlers) {
      if (name.startsWith('system.') && !opts.includeSystem) continue;
      let e = byName.get(name);
      if (!e) {
        e = { name, builtin: false, description: '', inputSchema: null, timeoutSeconds: null, maxRetries: null, available: false, lastOfferedAt: null };
        byName.set(name, e);
      }
      e.available ||= row.live;
      // Rows come newest heartbeat first: the first one seen is the latest.
      e.lastOfferedAt ??= row.last_heartbeat_at.toISOString();
      const spec = ownValue(row.handler_specs, name);
      if (spec && !e.builtin && e.inputSchema === null) {
        e.description = typeof spec.description === 'string' ? spec.description : '';
        e.inputSchema = spec.inputSchema && typeof spec.inputSchema === 'object' ? (spec.inputSchema as JsonSchema) : null;
        e.timeoutSeconds = num(spec.timeoutSeconds);
        e.maxRetries = num(spec.maxRetries);
      }
    }
  }
  const custom = [...byName.values()].filter((e) => !e.builtin).sort((a, b) => a.name.localeCompare(b.name));
  return [...builtins.map((n) => byName.get(n)!), ...custom];
}

/**
 * Whether a live worker offers each of `names` now (`available`, the catalogue's rule), and the
 * newest heartbeat of a worker that offered it (`lastOfferedAt`, ISO; null when none registered).
 * One query over worker_nodes; none for an empty list.
 * @param now the clock of "live" (heartbeat age)
 */
export async function handlerAvailability(db: Db, names: readonly string[], now: Date = new Date()): Promise<Map<string, { available: boolean; lastOfferedAt: string | null }>> {
  const out = new Map<string, { available: boolean; lastOfferedAt: string | null }>();
  if (names.length === 0) return out;
  for (const name of names) out.set(name, { available: false, lastOfferedAt: null });
  for (const row of await nodeRows(db, now)) {
    for (const name of row.handlers) {
      const e = out.get(name);
      if (!e) continue;
      e.available ||= row.live;
      e.lastOfferedAt ??= row.last_heartbeat_at.toISOString();
    }
  }
  return out;
}

/**
 * Of the tasks `taskIds` of one run (its id and scheduled_for: the partition), those that no live worker
 * may claim although one offers their handler: none of the live workers offering it is one their routing
 * lets take them (node group, labels, strategy `nodes` / `consistent_hash`; the claim's own rule,
 * lib/engine/sql/claim-routing.ts routingAllowsSql). "Live" is the catalogue's rule (online or draining,
 * heartbeat fresher than HEARTBEAT_STALE_SECONDS). One query; none for an empty list.
 * @param now the clock of "live" (heartbeat age)
 */
export async function tasksOutsideLiveRouting(db: Db, run: { id: string; scheduledFor: Date }, taskIds: readonly string[], now: Date = new Date()): Promise<Set<string>> {
  if (taskIds.length === 0) return new Set();
  const node = { nodeId: 'w.node_id', group: 'w."group"', labels: 'w.labels', now: '$4::timestamptz', staleSeconds: '$5::double precision' };
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `SELECT t.id::text AS id
       FROM tasks t
      WHERE t.run_id = $1::uuid AND t.scheduled_for = $2::timestamptz AND t.id = ANY($3::uuid[])
        AND NOT EXISTS (
              SELECT 1 FROM worker_nodes w
               WHERE w.status IN ('online', 'draining') AND w.last_heartbeat_at >= $6::timestamptz
                 AND (cardinality(w.handlers) = 0 OR t.handler = ANY(w.handlers))
                 AND ${routingAllowsSql('t', node, 'owner')})`,
    run.id,
    run.scheduledFor,
    [...taskIds],
    now,
    HEARTBEAT_STALE_SECONDS,
    heartbeatFreshSince(now),
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * The newest advertised input schema of each of `names` (handlers without one are absent).
 * One query over worker_nodes (a small table: one row per worker process).
 */
export async function loadInputSchemas(db: Db, names: readonly string[]): Promise<Map<string, JsonSchema>> {
  const wanted = [...new Set(names)].filter((n) => !BUILTIN_HANDLER_NAMES.includes(n));
  if (wanted.length === 0) return new Map();
  const rows = await db.$queryRaw<{ name: string; schema: JsonSchema | null }[]>`
    SELECT DISTINCT ON (h.name) h.name, w.handler_specs -> h.name -> 'inputSchema' AS schema
      FROM worker_nodes w, unnest(w.handlers) AS h(name)
     WHERE h.name = ANY(${wanted}::text[]) AND w.handler_specs -> h.name IS NOT NULL
     ORDER BY h.name, w.last_heartbeat_at DESC`;
  return new Map(rows.filter((r) => r.schema && typeof r.schema === 'object').map((r) => [r.name, r.schema!]));
}
