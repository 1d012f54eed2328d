/**
 * The input of the executors that ship with Tickflow (`http`, `sql`, `shell`, `grpc`): one zod
 * schema each, the only statement of what they accept. The worker parses every attempt's
 * settings with it (worker/handlers/http.ts, sql.ts, shell.ts, grpc.ts: `parseBuiltinSettings`),
 * saving a job checks the steps against it (lib/handlers/check-payloads.ts), a trigger with a
 * payload override checks the merged payload (lib/jobs/trigger-job.ts), and GET /api/v1/handlers
 * shows it as JSON Schema (builtinInputSchema). The numeric settings (`ms`, `failTimes`,
 * `killGraceMs`) stay in number-settings.ts and are added to the advertised schema from there.
 *
 * What a schema is applied to:
 * - `settings` handlers (`http`, `sql`, `shell`) read the step config overlaid by the task
 *   payload (worker/handlers/types.ts settings), and the task payload is job payload < step
 *   payload < run payload (shallow, README "Jobs"). So on save every field that is present is
 *   checked (a wrong type or value is wrong whichever layer brings it), but a REQUIRED field
 *   (`url`, `sql`, `command`) may still come from a later layer (a trigger's payload), so it is
 *   only required where the whole merge is known: a trigger with a payload override, and the
 *   worker. Unknown keys are allowed (a job payload is shared by steps of different handlers).
 * - `grpc` reads its settings from the step config alone (strict, all of it known on save); its
 *   payload is the request message, checked against the .proto by the worker.
 * Pure: no database, no Node APIs.
 */
import { outboundUrlProblem } from '../net/outbound-url.ts';
import { withSecretPlaceholders } from '../secrets/secret-references.ts';
import { z } from 'zod';
import { numberSettingRules } from './number-settings.ts';
import { ownValue } from '../own-keys.ts';
import type { JsonSchema } from './payload-schema.ts';

/** An HTTP token (RFC 9110 §5.6.2): a method or a header name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A header value fetch accepts: no NUL, CR or LF (RFC 9110 §5.5). */
const HEADER_VALUE = /^[^\0\r\n]*$/;

const STATUS_MESSAGE = 'must be an HTTP status (integer 100..599) or a non-empty list of at most 100 of them';
const status = z.union([z.int({ error: STATUS_MESSAGE }).min(100, { error: STATUS_MESSAGE }).max(599, { error: STATUS_MESSAGE }), z.string().regex(/^\s*[1-5]\d\d\s*$/, { error: STATUS_MESSAGE })], { error: STATUS_MESSAGE });

const headerValue = z.union([z.string(), z.number(), z.boolean()], { error: 'must be a string (or a number or boolean, sent as text)' });

/** `http` settings (worker/handlers/http.ts). */
export const HttpSettings = z.looseObject({
  method: z.string().max(32).regex(TOKEN, { error: 'must be an HTTP method name (letters, no spaces), e.g. GET or POST' }).nullish(),
  url: z
    .string()
    .max(8192)
    // the one rule of a URL Tickflow calls (lib/net/outbound-url.ts); fetch refuses credentials in a
    // URL anyway: they go in a header
    .superRefine((u, ctx) => {
      // a secret named in the URL is checked as a plain word here, and with its value by the worker
      const problem = outboundUrlProblem(withSecretPlaceholders(u));
      if (problem) ctx.addIssue({ code: 'custom', message: /user name or password/.test(problem) ? `${problem}; send credentials in a header, e.g. Authorization` : problem });
    }),
  headers: z
    .record(
      z.string().regex(TOKEN, { error: 'is not a valid header name (letters, digits and !#$%&\'*+.^_`|~- only, no spaces)' }),
      headerValue.refine((v) => HEADER_VALUE.test(String(v)), { error: 'must not contain line breaks or NUL (CR, LF, \\0)' }),
    )
    .nullish(),
  body: z.unknown().optional(),
  expectStatus: z.union([status, z.array(status).min(1, { error: STATUS_MESSAGE }).max(100, { error: STATUS_MESSAGE })], { error: STATUS_MESSAGE }).nullish(),
});
export type HttpSettings = z.output<typeof HttpSettings>;

const statement = z.string().max(1024 * 1024).refine((s) => s.trim() !== '', { error: 'must not be empty' });

/** `sql` settings (worker/handlers/sql.ts); `statement` is an alias of `sql`. */
export const SqlSettings = z.looseObject({
  sql: statement.optional(),
  statement: statement.optional(),
  params: z.array(z.unknown()).max(10_000).nullish(),
  connection: z.string().max(200).nullish(),
  searchPath: z.string().max(1000).regex(/^[A-Za-z_][A-Za-z0-9_, ]*$/, { error: 'must be schema names separated by commas' }).nullish(),
});
export type SqlSettings = z.output<typeof SqlSettings>;

/** A variable name a `shell` step may set in `env` (worker/handlers/shell-sandbox.ts applies it too). */
export const SHELL_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const argv = z.array(z.string({ error: 'must be a string' }), { error: 'must be a non-empty array of strings (argv), e.g. ["/bin/echo", "hi"]' }).min(1, { error: 'must be a non-empty array of strings (argv), e.g. ["/bin/echo", "hi"]' }).max(10_000);

/** `shell` settings (worker/handlers/shell.ts); `argv` is an alias of `command`. `killGraceMs`: number-settings.ts. */
export const ShellSettings = z.looseObject({
  command: argv.optional(),
  argv: argv.optional(),
  cwd: z.string().refine((c) => c === '' || c.startsWith('/'), { error: 'must be an absolute path' }).nullish(),
  env: z.record(z.string().regex(SHELL_ENV_NAME, { error: 'is not a valid variable name' }), z.union([z.string(), z.number(), z.boolean()], { error: 'must be a string (or a number or boolean)' })).nullish(),
  input: z.string().nullish(),
});
export type ShellSettings = z.output<typeof ShellSettings>;

/** `grpc` step config (worker/handlers/grpc.ts): every key known, unknown keys refused. */
export const GrpcConfig = z.strictObject({
  address: z.string().min(1).max(1024),
  service: z.string().min(1).max(512),
  method: z.string().min(1).max(256),
  proto: z.string().min(1).max(1024 * 1024),
  tls: z.boolean().default(false),
  tlsCa: z.string().max(256 * 1024).optional(),
  tlsServerName: z.string().min(1).max(255).optional(),
  metadata: z.record(z.string(), z.string().max(16 * 1024)).default({}),
});
export type GrpcConfig = z.output<typeof GrpcConfig>;

/** One alternative set of fields a full settings object needs one of (`sql` or `statement`). */
type Required = { anyOf: readonly string[]; message: string };

/** A shipped executor's input: the schema, where it applies, and the fields a complete input needs. */
export type BuiltinInput = {
  schema: z.ZodObject;
  /** `settings`: config overlaid by the payload; `config`: the step config alone (checked whole on save) */
  appliesTo: 'settings' | 'config';
  required: readonly Required[];
};

/** The shipped executors' inputs, by handler name. */
export const BUILTIN_INPUTS: Readonly<Record<string, BuiltinInput>> = {
  http: { schema: HttpSettings, appliesTo: 'settings', required: [{ anyOf: ['url'], message: 'is required (an http:// or https:// URL)' }] },
  sql: { schema: SqlSettings, appliesTo: 'settings', required: [{ anyOf: ['sql', 'statement'], message: 'is required (the SQL statement)' }] },
  shell: { schema: ShellSettings, appliesTo: 'settings', required: [{ anyOf: ['command', 'argv'], message: 'is required: a non-empty array of strings (argv), e.g. ["/bin/echo", "hi"]' }] },
  grpc: { schema: GrpcConfig, appliesTo: 'config', required: [] },
};

/** The input of the shipped handler named `handler` (BUILTIN_INPUTS), undefined for any other name (lib/own-keys.ts). */
export function builtinInput(handler: string): BuiltinInput | undefined {
  return ownValue(BUILTIN_INPUTS, handler);
}

/** A problem with one field, its path relative to the checked object (`headers.a b`). */
export type SettingsIssue = { path: string[]; message: string };

/** zod issues as field problems (a bad record key or an unknown key named at its own path). */
export function settingsIssues(issues: readonly z.core.$ZodIssue[]): SettingsIssue[] {
  return issues.flatMap((issue): SettingsIssue[] => {
    const path = issue.path.map(String);
    if (issue.code === 'unrecognized_keys') return issue.keys.map((k) => ({ path: [...path, k], message: 'unknown field' }));
    if (issue.code === 'invalid_key') return [{ path, message: issue.issues[0]?.message ?? issue.message }];
    return [{ path, message: issue.message }];
  });
}

/**
 * Checks a shipped executor's input.
 * @param handler the handler name (no check, `[]`, for one without a schema here)
 * @param value the settings (`http`/`sql`/`shell`: config overlaid by payload) or the config (`grpc`)
 * @param complete true when nothing can be merged over `value` any more (a trigger, the worker):
 *   required fields are then required too; false on save, where only the fields present are judged
 * @returns the problems, empty when it fits
 */
export function checkBuiltinInput(handler: string, value: Record<string, unknown>, complete: boolean): SettingsIssue[] {
  const input = builtinInput(handler);
  if (!input) return [];
  // a missing required field is reported once, by the `required` list below (with its own message)
  const schema = input.appliesTo === 'config' ? input.schema : input.schema.partial();
  const r = schema.safeParse(value);
  const out = r.success ? [] : settingsIssues(r.error.issues);
  if (complete) {
    for (const req of input.required) {
      if (!req.anyOf.some((k) => value[k] !== undefined && value[k] !== null)) out.push({ path: [req.anyOf[0]!], message: req.message });
    }
  }
  return out;
}

/**
 * The settings of a shipped `settings` executor, parsed for one attempt (the worker's only reading of them).
 * @throws Error whose message names every bad field as `payload.<path>: <message>` (e.g. `http: payload.url: is required …`)
 */
export function parseBuiltinSettings<S extends z.ZodObject>(handler: string, schema: S, settings: Record<string, unknown>): z.output<S> {
  const issues = checkBuiltinInput(handler, settings, true);
  if (issues.length) throw new BuiltinInputError(handler, issues.map((i) => `payload.${i.path.join('.')}: ${i.message}`).join('; '));
  return schema.parse(settings);
}

/** A shipped executor's input does not fit its schema (the worker turns it into a non-retryable HandlerError). */
export class BuiltinInputError extends Error {
  constructor(
    readonly handler: string,
    detail: string,
  ) {
    super(`${handler}: ${detail}`);
    this.name = 'BuiltinInputError';
  }
}

/**
 * The JSON Schema GET /api/v1/handlers shows for a built-in handler: its zod schema (input side),
 * the required fields (`anyOf` when there are aliases) and its numeric settings from
 * number-settings.ts. Null for a built-in without inputs (`builtin.noop`).
 */
export function builtinInputSchema(handler: string): JsonSchema | null {
  const input = builtinInput(handler);
  const numbers = numberSettingRules(handler);
  if (!input && numbers.length === 0) return null;
  const schema: JsonSchema = input ? (z.toJSONSchema(input.schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema) : { type: 'object', properties: {} };
  const properties = { ...((schema.properties as Record<string, unknown>) ?? {}) };
  for (const rule of numbers) {
    properties[rule.name] = { type: rule.integer ? 'integer' : 'number', minimum: rule.min, maximum: rule.max, ...(rule.unit ? { description: `in ${rule.unit}` } : {}) };
  }
  const required = (input?.required ?? []).filter((r) => r.anyOf.length === 1).map((r) => r.anyOf[0]!);
  const alternatives = (input?.required ?? []).filter((r) => r.anyOf.length > 1).map((r) => ({ anyOf: r.anyOf.map((k) => ({ required: [k] })) }));
  return {
    ...schema,
    properties,
    ...(input?.appliesTo === 'settings' ? { description: 'Settings: the step config overlaid by the task payload (job payload < step payload < run payload)' } : input ? { description: 'The step config (the payload is the request message)' } : {}),
    ...(required.length || input?.appliesTo === 'config' ? { required: input?.appliesTo === 'config' ? (schema.required as string[] | undefined) ?? [] : required } : {}),
    ...(alternatives.length ? { allOf: alternatives } : {}),
  };
}
