/**
 * `tickflow/handlers`: the public module for writing your own handlers
 * (docs/handlers.md). A handler module imports `defineHandler` and `z` from
 * here and exports what `defineHandler` returns; a worker started with
 * `TICKFLOW_HANDLERS=./path/to/module.ts` loads it (worker/handlers/module-loader.ts).
 *
 * ```ts
 * import { defineHandler, z } from 'tickflow/handlers';
 * export default defineHandler({
 *   name: 'billing.invoice',
 *   description: 'Creates the invoice of one customer',
 *   input: z.object({ customerId: z.string().min(1) }),
 *   async run(ctx) { ctx.log.info(`invoicing ${ctx.payload.customerId}`); return { ok: true }; },
 * });
 * ```
 *
 * `z` is re-exported so a handler file outside this checkout needs no zod of its own
 * (and the worker converts the same zod's schemas to JSON Schema).
 */
import { z } from 'zod';
import type { JsonObject, TaskLog } from './types.ts';

export { z };
export type { JsonObject, TaskLog };
/**
 * The outbound guard (lib/net/outbound.ts, docs/security.md "Outbound calls") for handlers that
 * call out: a handler's payload is the operator's to write, so a URL or address in it must go
 * through `outboundFetch` (a fetch that refuses loopback, private, link-local and metadata
 * addresses unless TICKFLOW_OUTBOUND_ALLOW lists them, re-checked on every redirect and pinned
 * against DNS rebinding) or, for a connection of your own, `resolveOutboundAddress(host, port)`
 * and then connect to the address it returns. Plain `fetch` reaches whatever the worker can.
 */
export { outboundFetch, resolveOutboundAddress, OutboundRefusedError } from '../../lib/net/outbound.ts';

/** Marks a value as made by defineHandler (Symbol.for: survives two copies of this module). */
export const HANDLER_DEFINITION = Symbol.for('tickflow.handlerDefinition');

/** Handler names: like the built-ins (`billing.invoice`, `reports-daily`), 1-100 characters. */
export const HANDLER_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.:-]{0,99}$/;

/** Bounds of the per-handler defaults; the same as a step's own timeout / retries (lib/api/schemas.ts). */
export const HANDLER_MAX_TIMEOUT_SECONDS = 7 * 86_400;
export const HANDLER_MAX_RETRIES = 100;

/** What `run` gets: one attempt of one task. */
export interface HandlerRunContext<Input> {
  /** the task's payload after `input` parsed it (defaults applied, typed) */
  payload: Input;
  /** the step's config, as saved (free-form JSON object) */
  config: JsonObject;
  /** 1-based attempt number */
  attempt: number;
  runId: string;
  taskId: string;
  /** the key of the job the run belongs to (null only for a task whose job key is not known) */
  jobKey: string | null;
  /** the run's nominal time (UTC): the schedule slot, or the trigger time of a manual / API run; null when unknown */
  scheduledFor: Date | null;
  /** aborted at the task timeout, on cancellation and on a forced worker stop */
  signal: AbortSignal;
  /** lines for the run page, per attempt */
  log: TaskLog;
  /** reports progress: `done` of `total` units, with an optional message */
  progress(done: number, total?: number, message?: string): void;
  /** the attempt's time budget in ms (the task timeout) */
  timeoutMs: number;
  /**
   * ms left on this attempt's lease by the worker's clock (negative once it ran out; -Infinity once
   * the worker knows the task is no longer its own: cancelled, or the lease taken over; Infinity
   * outside a worker): a worker stalled or cut off from the database past its lease may have lost
   * the task to another worker, so check it before a step that cannot be undone
   */
  leaseRemainingMs(): number;
}

/**
 * The definition a handler module exports.
 * - `name`: the handler name steps use (HANDLER_NAME_PATTERN; not a built-in's).
 * - `description`: one line for the console's palette and job form.
 * - `input`: a zod schema of the payload. It is checked before `run` (a bad payload fails
 *   the attempt naming the field, without retries) and, as JSON Schema, when a job is saved.
 * - `output`: optional zod schema the result must fit (a mismatch fails the attempt).
 * - `timeoutSeconds` / `retry.maxRetries`: what the console fills into a new step using
 *   this handler (the step's own Timeout / Max retries); docs/handlers.md "Defaults".
 */
export interface HandlerDefinitionInput<S extends z.ZodType, O> {
  name: string;
  description: string;
  input: S;
  output?: z.ZodType<O>;
  timeoutSeconds?: number;
  retry?: { maxRetries: number };
  run(ctx: HandlerRunContext<z.output<S>>): Promise<O> | O;
}

/** A checked, frozen handler definition (what the worker loads). */
export type HandlerDefinition<S extends z.ZodType = z.ZodType, O = unknown> = Readonly<HandlerDefinitionInput<S, O>> & {
  readonly [HANDLER_DEFINITION]: true;
};

/** Error in a handler definition (thrown by defineHandler at import time; the worker does not start). */
export class HandlerDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HandlerDefinitionError';
  }
}

function isZodSchema(v: unknown): v is z.ZodType {
  return !!v && typeof v === 'object' && '_zod' in v && typeof (v as { safeParse?: unknown }).safeParse === 'function';
}

/**
 * Checks a handler definition and returns it frozen and marked for the loader.
 * @throws HandlerDefinitionError naming the handler and the bad field (name pattern or the
 *   reserved `system.` prefix, empty description, `input` not a zod schema, `run` not a function, timeoutSeconds
 *   outside 1..604800, retry.maxRetries outside 0..100)
 */
export function defineHandler<S extends z.ZodType, O>(def: HandlerDefinitionInput<S, O>): HandlerDefinition<S, O> {
  const label = typeof def?.name === 'string' ? `handler "${def.name}"` : 'handler';
  const bad = (field: string, why: string): never => {
    throw new HandlerDefinitionError(`${label}: ${field} ${why}`);
  };
  if (!def || typeof def !== 'object') bad('definition', 'must be an object');
  if (typeof def.name !== 'string' || !HANDLER_NAME_PATTERN.test(def.name)) {
    bad('name', 'must start with a letter and use letters, digits, . _ : - (at most 100 characters)');
  }
  // lib/jobs/handler-permissions.ts gives `system.*` to Tickflow's system jobs alone and the catalogue hides
  // them: such a handler would load and never be offered nor allowed on any job
  if (def.name.startsWith('system.')) bad('name', 'must not start with "system." (reserved for the handlers of Tickflow\'s system jobs)');
  if (typeof def.description !== 'string' || def.description.trim() === '') bad('description', 'must be a non-empty string');
  if (!isZodSchema(def.input)) bad('input', 'must be a zod schema (import { z } from "tickflow/handlers")');
  if (def.output !== undefined && !isZodSchema(def.output)) bad('output', 'must be a zod schema when given');
  if (typeof def.run !== 'function') bad('run', 'must be a function');
  if (def.timeoutSeconds !== undefined) {
    const t = def.timeoutSeconds;
    if (!Number.isInteger(t) || t < 1 || t > HANDLER_MAX_TIMEOUT_SECONDS) bad('timeoutSeconds', `must be an integer between 1 and ${HANDLER_MAX_TIMEOUT_SECONDS}`);
  }
  if (def.retry !== undefined) {
    const r = def.retry?.maxRetries;
    if (!Number.isInteger(r) || r < 0 || r > HANDLER_MAX_RETRIES) bad('retry.maxRetries', `must be an integer between 0 and ${HANDLER_MAX_RETRIES}`);
  }
  return Object.freeze({ ...def, [HANDLER_DEFINITION]: true as const });
}

/** True for a value defineHandler returned. */
export function isHandlerDefinition(v: unknown): v is HandlerDefinition {
  return !!v && typeof v === 'object' && (v as Record<symbol, unknown>)[HANDLER_DEFINITION] === true;
}
