/**
 * The function executor: turns a `defineHandler` definition (worker/handlers/define.ts)
 * into a worker Handler, and into the spec a worker advertises with its handler
 * list (worker_nodes.handler_specs; lib/handlers/catalogue.ts reads it).
 *
 * Per attempt: the payload is parsed by the definition's zod `input` first; a payload
 * it refuses fails the attempt with every bad field named (`payload.a.b: …`) and
 * `retryable: false` (the same payload would fail again), so the task goes dead at
 * once. Then `run` gets the typed payload and the attempt's context; `ctx.log` is the
 * task log and `ctx.progress` the progress callback of the runner. An `output` schema,
 * when given, checks the result (a mismatch is an ordinary, retryable failure).
 */
import { z } from 'zod';
import { HandlerDefinitionError, type HandlerDefinition } from './define.ts';
import { HandlerError, type Handler, type JsonObject } from './types.ts';

/** What a worker advertises for one handler (docs/handlers.md "What a worker advertises"). */
export interface HandlerSpec {
  description: string;
  /** JSON Schema (draft 2020-12) of the payload, from zod's toJSONSchema (input side) */
  inputSchema: JsonObject;
  /** JSON Schema of the output, when the definition has one */
  outputSchema?: JsonObject;
  /** default Timeout (s) of a new step using the handler */
  timeoutSeconds?: number;
  /** default Max retries of a new step using the handler */
  maxRetries?: number;
}

/** Formats zod issues as `prefix.path: message` lines, the field paths the REST errors use. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], prefix: string): { fields: Record<string, string>; message: string } {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    // An unknown key of a strict object is named at its own path, like the REST errors do.
    const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
    for (const p of paths) {
      const path = [prefix, ...p.map(String)].filter(Boolean).join('.');
      if (!(path in fields)) fields[path] = issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message;
    }
  }
  const message = Object.entries(fields)
    .map(([p, m]) => `${p}: ${m}`)
    .join('; ');
  return { fields, message };
}

/**
 * The spec a worker advertises for `def`.
 * @throws HandlerDefinitionError when the input (or output) schema has no JSON Schema form
 *   (e.g. a transform's output type), or the input accepts no object (mayAcceptObject) — named by handler and field
 */
export function handlerSpec(def: HandlerDefinition): HandlerSpec {
  const toJson = (schema: z.ZodType, field: 'input' | 'output'): JsonObject => {
    try {
      return z.toJSONSchema(schema, { io: field === 'input' ? 'input' : 'output', unrepresentable: 'throw' }) as JsonObject;
    } catch (err) {
      throw new HandlerDefinitionError(`handler "${def.name}": ${field} has no JSON Schema form (${(err as Error).message}); use plain zod types there`);
    }
  };
  const inputSchema = toJson(def.input, 'input');
  if (!mayAcceptObject(inputSchema)) {
    // the runner hands `input` the task's payload, which is always a JSON object (job < step < trigger
    // payload, merged): such a handler could never run, and every save naming it would be refused
    throw new HandlerDefinitionError(`handler "${def.name}": input must accept an object (a task's payload is always a JSON object); use z.object({ … }), not ${describeType(inputSchema)}`);
  }
  return {
    description: def.description.trim(),
    inputSchema,
    ...(def.output ? { outputSchema: toJson(def.output, 'output') } : {}),
    ...(def.timeoutSeconds !== undefined ? { timeoutSeconds: def.timeoutSeconds } : {}),
    ...(def.retry !== undefined ? { maxRetries: def.retry.maxRetries } : {}),
  };
}

/**
 * False when the JSON Schema `js` accepts no JSON object at all (a `type` without "object", a union none of whose
 * members does, an intersection one of whose members does not, a `const` / `enum` of non-objects, `not: {}`);
 * true when it may (what it cannot judge, such as a `$ref`, counts as may).
 */
export function mayAcceptObject(js: unknown): boolean {
  if (js === false) return false;
  if (!js || typeof js !== 'object') return true;
  const s = js as Record<string, unknown>;
  const isObject = (v: unknown) => !!v && typeof v === 'object' && !Array.isArray(v);
  if (typeof s.type === 'string' && s.type !== 'object') return false;
  if (Array.isArray(s.type) && !s.type.includes('object')) return false;
  if ('const' in s && !isObject(s.const)) return false;
  if (Array.isArray(s.enum) && !s.enum.some(isObject)) return false;
  if (isObject(s.not) && Object.keys(s.not as object).length === 0) return false;
  for (const key of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[key]) && !(s[key] as unknown[]).some(mayAcceptObject)) return false;
  if (Array.isArray(s.allOf) && !(s.allOf as unknown[]).every(mayAcceptObject)) return false;
  return true;
}

/** What a JSON Schema describes, for an error message: its `type`, else `a schema that accepts no object`. */
function describeType(js: JsonObject): string {
  const t = js.type;
  return typeof t === 'string' ? `a schema of type "${t}"` : Array.isArray(t) ? `a schema of type ${t.map((x) => `"${x}"`).join(' | ')}` : 'a schema that accepts no object';
}

/** The worker Handler that runs `def` (validation, context mapping, output check). */
export function toHandler(def: HandlerDefinition): Handler {
  return async (ctx) => {
    const parsed = await def.input.safeParseAsync(ctx.payload);
    if (!parsed.success) {
      const { message } = describeIssues(parsed.error.issues, 'payload');
      throw new HandlerError(`${def.name}: the payload does not fit the handler's input: ${message}`, { code: 'input', retryable: false });
    }
    const out = await def.run({
      payload: parsed.data,
      config: ctx.config as JsonObject,
      attempt: ctx.attempt,
      runId: ctx.runId,
      taskId: ctx.taskId,
      jobKey: ctx.jobKey ?? null,
      scheduledFor: ctx.scheduledFor ?? null,
      signal: ctx.signal,
      log: ctx.taskLog,
      progress: (done, total, message) => ctx.progress(done, total, message),
      timeoutMs: ctx.timeoutMs,
      leaseRemainingMs: () => ctx.leaseRemainingMs?.() ?? Infinity,
    });
    if (!def.output) return out;
    const checked = await def.output.safeParseAsync(out);
    if (!checked.success) {
      const { message } = describeIssues(checked.error.issues, 'output');
      throw new HandlerError(`${def.name}: the result does not fit the handler's output: ${message}`, { code: 'output' });
    }
    return checked.data;
  };
}
