/**
 * zod 4 schemas shared by server actions and the REST door (docs/design.md §5).
 * Both doors parse with these, then call the same lib/jobs, lib/runs functions.
 *
 * Field paths of errors are dot-separated (`schedule.cron`, `steps.1.key`,
 * `policy.backoff.factor`) — see zodToFieldErrors in ./validation.ts.
 *
 * Defaults are NOT applied here (so that UpdateJobInput can be a true partial);
 * lib/jobs/job-input.ts fills them when a job is created (JOB_DEFAULTS).
 */
import { NO_TRIGRAM_MESSAGE, searchTextHasTrigram } from './like.ts';
import { outboundUrlProblem } from '../net/outbound-url.ts';
import { z } from 'zod';
import { validateDag } from '../dag/index.ts';
import { INSTANT_RANGE_MESSAGE, isAcceptedInstant } from './instant.ts';
import { canonicalId } from './ids.ts';
import { listParameter } from './validation.ts';
// the modules themselves, not lib/schedule/index.ts: the job form runs these schemas in the browser,
// and the index brings the stagger hash (node:crypto)
import { parseCron } from '../schedule/cron.ts';
import { isValidTimeZone } from '../schedule/timezone.ts';
import { ScheduleError } from '../schedule/errors.ts';
import { MAX_PREVIEW_COUNT } from '../schedule/limits.ts';
import { MAX_JSON_DEPTH, scanJson, unstorableString } from './json-guard.ts';

export { MAX_JSON_DEPTH, NUL_MESSAGE, SURROGATE_MESSAGE } from './json-guard.ts';

/** Largest value of a PostgreSQL int4 (versions, ids in paths). */
export const INT4_MAX = 2_147_483_647;

/**
 * Every string of every input goes through `str()`, which refuses what
 * PostgreSQL rejects in text/jsonb (the NUL character, an unpaired UTF-16
 * surrogate) with a message at the field, before any other check.
 */
export const str = (params?: Parameters<typeof z.string>[0]) =>
  z.string(params).superRefine((v, ctx) => {
    const why = unstorableString(v);
    if (why) ctx.addIssue({ code: 'custom', message: why, abort: true });
  });

/** Characters that reorder the text around them (embeddings, overrides, isolates: Unicode UAX #9). */
export const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;
/**
 * Characters that show nothing: invisible format characters (Unicode category Cf: zero-width space,
 * joiners, BOM), every Default_Ignorable_Code_Point (combining grapheme joiner U+034F, variation
 * selectors U+FE00–FE0F, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, tag characters), and
 * the blank-looking characters outside both (U+2800 braille pattern blank; the Hangul fillers are
 * listed again, so the rule does not hang on one Unicode version's property tables).
 */
const INVISIBLE_CHARS = '\\p{Cf}\\p{Default_Ignorable_Code_Point}\\u2800\\u3164\\u115F\\u1160\\uFFA0';
/** A character that shows: neither white space nor one of INVISIBLE_CHARS. */
const VISIBLE = new RegExp(`[^\\s${INVISIBLE_CHARS}]`, 'u');
/** Contains a character that shows nothing (INVISIBLE_CHARS): refused in routing labels. */
const HAS_INVISIBLE = new RegExp(`[${INVISIBLE_CHARS}]`, 'u');

/**
 * A name people read in the console and in alarms (jobs, steps, users, tokens): trimmed, at most
 * `max` characters, with no bidirectional control characters (U+202A–202E, U+2066–2069: "‮RTL"
 * shows reversed and can pass for another name; right-to-left text itself is fine) and at least one
 * visible character (VISIBLE: a name of only a zero-width space or a Hangul filler looks empty); when not
 * `required` it may be empty (no name), but a name given must show.
 */
export const displayName = (max: number, required: boolean) =>
  str()
    .trim()
    .max(max, `At most ${max} characters`)
    .superRefine((v, ctx) => {
      if (BIDI_CONTROL.test(v)) ctx.addIssue({ code: 'custom', message: 'Must not contain bidirectional control characters (U+202A–202E, U+2066–2069)', abort: true });
      else if (v === '' ? required : !VISIBLE.test(v)) ctx.addIssue({ code: 'custom', message: v === '' ? 'Name is required' : 'Name must contain a visible character', abort: true });
    });

/**
 * Routing labels (`{ zone: "eu" }`): matched exactly against a worker's labels, so an invisible
 * character (HAS_INVISIBLE: a zero-width space in `\u200bzone`, a Hangul filler) would make a label that
 * silently never matches: refused in keys and values, as is an empty key. Named at `labels.<key>`.
 */
const RoutingLabels = z.record(str().max(200), str().max(200)).superRefine((labels, ctx) => {
  for (const [key, value] of Object.entries(labels)) {
    // labels are written `key=value, key=value` (a worker's TICKFLOW_NODE_LABELS, the console's field), so a
    // comma, an equals sign, a line break or spaces around either part cannot be written back as they are
    const unwritable = (t: string) => /[,=\r\n\v\f\u0085\u2028\u2029]/.test(t) || t !== t.trim();
    if (key.trim() === '') ctx.addIssue({ code: 'custom', path: [key], message: 'A label key must not be empty' });
    else if (HAS_INVISIBLE.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'A label key must not contain invisible characters (zero-width spaces, joiners, direction marks, fillers, blank patterns)' });
    else if (HAS_INVISIBLE.test(value)) ctx.addIssue({ code: 'custom', path: [key], message: 'A label value must not contain invisible characters (zero-width spaces, joiners, direction marks, fillers, blank patterns)' });
    else if (unwritable(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'A label key must not contain a comma, "=", a line break, or spaces at either end' });
    else if (unwritable(value)) ctx.addIssue({ code: 'custom', path: [key], message: 'A label value must not contain a comma, "=", a line break, or spaces at either end' });
  }
});

/**
 * A step's resource key: tasks whose keys are equal never run at once (docs/engine.md "Resource
 * keys"), compared as stored, character for character. So two keys that read alike must be one
 * key: it is trimmed and put in Unicode normalization form C (`e` + U+0301 and `é` are one key),
 * and a key holding a character that shows nothing (HAS_INVISIBLE: zero-width spaces, direction
 * marks and overrides, fillers) or a control character (a line break, U+0007) is refused, since
 * `db` and `db` + U+200B would look the same and never exclude each other. 1–200 characters.
 */
const resourceKey = () =>
  str()
    .trim()
    .min(1, 'Must not be empty')
    .max(200, 'At most 200 characters')
    .superRefine((v, ctx) => {
      if (HAS_INVISIBLE.test(v)) ctx.addIssue({ code: 'custom', message: 'Must not contain invisible characters (zero-width spaces, joiners, direction marks and overrides, fillers, blank patterns)', abort: true });
      else if (/\p{Cc}/u.test(v)) ctx.addIssue({ code: 'custom', message: 'Must not contain control characters (line breaks, tabs, U+0000–001F, U+007F–009F)', abort: true });
    })
    .transform((v) => v.normalize('NFC'));

/**
 * An object's id where an input names one (`jobId` in a query or a silence, `ids` of a bulk action, a token's `ownerId`): a UUID
 * as the list routes return it (README "REST"). A job key or a typo in its place would match
 * nothing and read as "none", so it is refused with `Must be a job id (uuid)` at the field.
 * The same pattern as a path's id (lib/api/ids.ts isUuid), where a malformed id is a 404.
 */
export const objectId = (what: string) => z.guid({ message: `Must be a ${what} id (uuid)` }).transform(canonicalId);

/**
 * Canonical spelling of an IANA zone (`asia/shanghai` -> `Asia/Shanghai`), so a
 * zone is stored the way Intl reports it; an unknown zone is returned as given.
 */
export function canonicalTimeZone(tz: string): string {
  let canonical = canonicalZones.get(tz);
  if (canonical === undefined) {
    // Intl's answers do not change while the process runs; a job import asks up to 1,000 times
    if (canonicalZones.size >= 1000) canonicalZones.clear();
    canonical = canonicalZoneOf(tz);
    canonicalZones.set(tz, canonical);
  }
  return canonical;
}

const canonicalZones = new Map<string, string>();

function canonicalZoneOf(tz: string): string {
  try {
    const lower = tz.toLowerCase();
    const supported = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
    const hit = supported.find((z) => z.toLowerCase() === lower);
    if (hit) return hit;
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    return resolved.toLowerCase() === lower ? resolved : tz;
  } catch {
    return tz;
  }
}

/** Job key: 1–128 chars, letters/digits then `.`, `_`, `:`, `-` (also a DB CHECK). */
export const JOB_KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
/** Step key (mirrors lib/dag STEP_KEY_RE and the DB CHECK). */
export const STEP_KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Largest JSON payload (UTF-8 bytes of its JSON text). */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

/** Byte size of a value's JSON text. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
}

/** An ISO-8601 instant with offset (`2026-03-07T00:00:00Z`) or a Date -> Date, inside lib/api/instant.ts's range. */
const INSTANT_MESSAGE = 'Must be an ISO-8601 date-time string with offset, e.g. 2026-03-07T00:00:00Z';
export const Instant = z
  .union([z.date(), z.iso.datetime({ offset: true, message: INSTANT_MESSAGE })], { message: INSTANT_MESSAGE })
  .transform((v) => new Date(v))
  .refine((d) => !Number.isNaN(d.getTime()), 'Invalid date')
  .refine((d) => isAcceptedInstant(d), INSTANT_RANGE_MESSAGE);

/**
 * A free-form JSON object (payload/config; any keys) of at most 64 KB, nested at
 * most MAX_JSON_DEPTH levels, with no NUL character or unpaired surrogate in any
 * string or key and no number beyond ±1.8e308 (the error names the exact path,
 * e.g. `payload.a.0`). Measured without recursion.
 */
export const JsonObject = z.record(z.string(), z.unknown(), { message: 'Must be a JSON object' }).superRefine((v, ctx) => {
  const scan = scanJson(v, { maxDepth: MAX_JSON_DEPTH });
  if (scan.tooDeep) {
    ctx.addIssue({ code: 'custom', message: `Must be nested at most ${MAX_JSON_DEPTH} levels deep` });
    return;
  }
  for (const p of scan.problems) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
  if (scan.problems.length) return;
  if (jsonBytes(v) > MAX_PAYLOAD_BYTES) ctx.addIssue({ code: 'custom', message: `Must be at most ${MAX_PAYLOAD_BYTES / 1024} KB as JSON` });
});

const intIn = (min: number, max: number) => {
  const msg = `Must be a whole number from ${min} to ${max}`;
  return z.number({ message: msg }).int(msg).min(min, msg).max(max, msg);
};

/** A version number / positive int4 (`expectedVersion`, `version`). */
const positiveInt = (requiredMessage = 'Must be a positive integer') =>
  z
    .number({ error: (i) => (i.input === undefined ? requiredMessage : 'Must be a positive integer') })
    // the bound first: a number past 2^53 is no safe integer either, and "too large" is what it is
    .max(INT4_MAX, `Must be at most ${INT4_MAX}`)
    .int('Must be a positive integer')
    .min(1, 'Must be a positive integer');

/** A time zone field: trimmed, canonical IANA spelling. */
const timeZoneField = () =>
  str()
    .trim()
    .min(1, 'Time zone is required')
    .max(100)
    .transform((tz) => canonicalTimeZone(tz));

// ---------------------------------------------------------------- schedule

/** Refuses an unknown zone at `timezone` (the display zone of a once or interval schedule, when given). */
function knownZone(tz: string | undefined, ctx: z.RefinementCtx): void {
  if (tz !== undefined && !isValidTimeZone(tz)) ctx.addIssue({ code: 'custom', path: ['timezone'], message: `Unknown time zone: ${tz}` });
}

export const CronScheduleInput = z
  .strictObject({
    kind: z.literal('cron'),
    cron: str().trim().min(1, 'Cron expression is required').max(200),
    timezone: timeZoneField().optional(),
  })
  .superRefine((s, ctx) => {
    const tz = s.timezone ?? 'UTC';
    const zoneKnown = isValidTimeZone(tz);
    if (!zoneKnown) ctx.addIssue({ code: 'custom', path: ['timezone'], message: `Unknown time zone: ${tz}` });
    // The expression's fields do not depend on the zone: with an unknown zone it is still
    // checked (in UTC), so both mistakes are reported at once.
    try {
      parseCron(s.cron, zoneKnown ? tz : 'UTC', { refuseOversizedSteps: true });
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
      if (e.field !== 'timezone') ctx.addIssue({ code: 'custom', path: ['cron'], message: e.message });
      else if (zoneKnown) ctx.addIssue({ code: 'custom', path: ['timezone'], message: e.message });
    }
  });
/** Longest interval a job may have: 10 years, in seconds. */
export const MAX_INTERVAL_SECONDS = 10 * 365 * 86400;
/** Every `intervalSeconds`; `timezone`, as for a once job, is only the zone its window is shown and edited in. */
export const IntervalScheduleInput = z
  .strictObject({
    kind: z.literal('interval'),
    intervalSeconds: intIn(1, MAX_INTERVAL_SECONDS),
    timezone: timeZoneField().optional(),
  })
  .superRefine((s, ctx) => knownZone(s.timezone, ctx));
/**
 * A single instant. `timezone` is the zone it was written in, kept for showing it (the console's edit form reads
 * the run-at as a wall time there); it does not change the instant.
 */
export const OnceScheduleInput = z
  .strictObject({ kind: z.literal('once'), runAt: Instant, timezone: timeZoneField().optional() })
  .superRefine((s, ctx) => knownZone(s.timezone, ctx));
export const ManualScheduleInput = z.strictObject({ kind: z.literal('manual') });

export const ScheduleInput = z.discriminatedUnion(
  'kind',
  [CronScheduleInput, IntervalScheduleInput, OnceScheduleInput, ManualScheduleInput],
  { message: 'Schedule kind must be cron, interval, once or manual' },
);
export type ScheduleInput = z.output<typeof ScheduleInput>;

// ---------------------------------------------------------------- steps, edges, policy, routing, alarms

export const StepInput = z.strictObject({
  key: str().regex(STEP_KEY_RE, 'Step key must be 1-64 characters: letters, digits, ".", "_" or "-", starting with a letter or digit'),
  name: displayName(200, false).optional(),
  handler: str().trim().min(1, 'Handler is required').max(200),
  payload: JsonObject.optional(),
  config: JsonObject.optional(),
  timeoutSeconds: intIn(1, 7 * 86400).nullish(),
  maxRetries: intIn(0, 100).nullish(),
  resourceKey: resourceKey().nullish(),
  position: z.strictObject({ x: z.number().finite(), y: z.number().finite() }).optional(),
});
export type StepInput = z.output<typeof StepInput>;

export const EdgeInput = z.strictObject({
  from: str().min(1, 'Required'),
  to: str().min(1, 'Required'),
  type: z.enum(['hard', 'soft', 'on_failure'], { message: 'Edge type must be hard, soft or on_failure' }).optional(),
});
export type EdgeInput = z.output<typeof EdgeInput>;

export const BackoffInput = z.strictObject({
  baseSeconds: z.number().min(0).max(86400).optional(),
  factor: z.number().min(1).max(100).optional(),
  maxSeconds: z.number().min(0).max(7 * 86400).optional(),
  jitter: z.number().min(0).max(1).optional(),
});

export const PolicyInput = z.strictObject({
  timeoutSeconds: intIn(1, 7 * 86400).optional(),
  maxRetries: intIn(0, 100).optional(),
  backoff: BackoffInput.optional(),
  blockStrategy: z.enum(['discard_later', 'serial_execution', 'cover_early']).optional(),
  misfirePolicy: z.enum(['skip', 'fire_once', 'fire_all']).optional(),
  misfireMaxCatchup: intIn(1, 1000).optional(),
  deadLetterAfter: intIn(0, 1000).optional(),
  priority: intIn(-1000, 1000).optional(),
});
export type PolicyInput = z.output<typeof PolicyInput>;

export const RoutingInput = z.strictObject({
  nodeGroup: str().trim().max(100).nullish(),
  labels: RoutingLabels.optional(),
  strategy: z.enum(['any', 'consistent_hash', 'nodes']).optional(),
  nodes: z.array(str().min(1).max(200)).max(100).superRefine((nodes, ctx) => {
    nodes.forEach((node, i) => {
      if (nodes.indexOf(node) < i) ctx.addIssue({ code: 'custom', path: [i], message: `Listed twice: ${node}` });
    });
  }).optional(),
  key: str().max(200).nullish(),
});
export type RoutingInput = z.output<typeof RoutingInput>;

export const AlarmChannelInput = z
  .strictObject({ type: z.enum(['webhook', 'email', 'log']), target: str().trim().max(500).default('') })
  .superRefine((c, ctx) => {
    // the one rule of a URL Tickflow calls (lib/net/outbound-url.ts): written as it will be called
    const problem = c.type === 'webhook' ? outboundUrlProblem(c.target) : null;
    if (problem) {
      const hint = /user name or password/.test(problem) ? ': the request could never be sent; put a token in its path or query' : '';
      ctx.addIssue({ code: 'custom', path: ['target'], message: `Webhook target ${problem}${hint}` });
    }
    // the log channel writes a worker log line and has no destination: a target would be text shown in
    // the alarms list (to every role) and used for nothing, and two of them would log the alarm twice
    if (c.type === 'log' && c.target !== '') {
      ctx.addIssue({ code: 'custom', path: ['target'], message: 'A log channel has no target: leave it empty (it writes a line to the worker log)' });
    }
    // one address, as the mailer reads it: `a@b.com,c` passed a looser pattern and mailed a@b.com only
    if (c.type === 'email' && !z.email().safeParse(c.target).success) {
      ctx.addIssue({ code: 'custom', path: ['target'], message: 'Email target must be one email address' });
    }
  });
export const AlarmsInput = z.strictObject({
  onFailure: z.boolean().optional(),
  onTimeout: z.boolean().optional(),
  onDeadLetter: z.boolean().optional(),
  onSuccess: z.boolean().optional(),
  channels: z.array(AlarmChannelInput).max(20).optional(),
});
export type AlarmsInput = z.output<typeof AlarmsInput>;

// ---------------------------------------------------------------- jobs

const jobFields = {
  // an empty key says so, as an empty name does, rather than quoting the key's character rules
  key: str().min(1, 'Key is required').regex(JOB_KEY_RE, 'Key must be 1-128 characters: letters, digits, ".", "_", ":" or "-", starting with a letter or digit'),
  name: displayName(200, true),
  description: str().max(5000).optional(),
  schedule: ScheduleInput,
  startAt: Instant.nullish(),
  endAt: Instant.nullish(),
  staggerSeconds: intIn(0, 86400).optional(),
  /** Shorthand: one step `main` with this handler (instead of `steps`). */
  handler: str().trim().min(1, 'Handler is required').max(200).optional(),
  /** With `handler`: the step's payload. With `steps`: the job-level payload (merged under each step's). */
  payload: JsonObject.optional(),
  steps: z.array(StepInput).min(1, 'A job needs at least one step').max(500).optional(),
  edges: z.array(EdgeInput).max(2000).optional(),
  policy: PolicyInput.optional(),
  routing: RoutingInput.optional(),
  alarms: AlarmsInput.optional(),
};

type GraphLike = { steps?: StepInput[]; edges?: EdgeInput[]; handler?: string; startAt?: Date | null; endAt?: Date | null };

const isStepShaped = (s: unknown) => typeof s === 'object' && s !== null && typeof (s as { key?: unknown }).key === 'string';
const isEdgeShaped = (e: unknown) =>
  typeof e === 'object' && e !== null && typeof (e as { from?: unknown }).from === 'string' && typeof (e as { to?: unknown }).to === 'string';

/** Cross-field rules shared by create and update: steps/handler shorthand, DAG, window order. */
function refineJob(v: GraphLike, ctx: z.RefinementCtx, mode: 'create' | 'update'): void {
  if (v.handler && v.steps) {
    ctx.addIssue({ code: 'custom', path: ['handler'], message: 'Give either handler (one-step shorthand) or steps, not both' });
  }
  // An empty handler is refused by its own field rule (named there), not as a missing graph.
  if (mode === 'create' && v.handler === undefined && !v.steps) {
    ctx.addIssue({ code: 'custom', path: ['steps'], message: 'A job needs steps (or a top-level handler)' });
  }
  if (v.edges && v.edges.length && !v.steps && v.handler) {
    ctx.addIssue({ code: 'custom', path: ['edges'], message: 'Edges need steps' });
  }
  if (Array.isArray(v.steps) && v.steps.every(isStepShaped) && (v.edges === undefined || (Array.isArray(v.edges) && v.edges.every(isEdgeShaped)))) {
    const r = validateDag({ steps: v.steps, edges: (v.edges ?? []).map((e) => ({ from: e.from, to: e.to, type: e.type ?? 'hard' })) });
    if (!r.ok) for (const err of r.errors) ctx.addIssue({ code: 'custom', path: err.path.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)), message: err.message });
  }
  // Object-level rules also run when a field already failed (zod keeps the raw
  // value there), so each rule checks the types it relies on.
  if (v.startAt instanceof Date && v.endAt instanceof Date && v.startAt.getTime() >= v.endAt.getTime()) {
    ctx.addIssue({ code: 'custom', path: ['endAt'], message: 'endAt must be after startAt' });
  }
}

/**
 * POST /api/v1/jobs and the create form. Either `steps` (+ `edges`) or the
 * top-level `handler` (+ `payload`) shorthand (one step `main`).
 */
export const CreateJobInput = z.strictObject(jobFields).superRefine((v, ctx) => refineJob(v, ctx, 'create'));
export type CreateJobInput = z.output<typeof CreateJobInput>;
export type CreateJobInputRaw = z.input<typeof CreateJobInput>;

/**
 * PATCH /api/v1/jobs/:id and the edit form: any subset of the create fields,
 * plus `expectedVersion` (the version the editor started from; a stale one is a
 * 409 conflict) and an optional `reason` stored on the version row. A given
 * `schedule`, `steps`, `edges`, `policy`, `routing` or `alarms` replaces that
 * part (policy/routing/alarms are merged key by key over the current values).
 * `steps` without `edges` keeps the edges whose endpoints still exist.
 */
export const UpdateJobInput = z
  .strictObject({
    ...Object.fromEntries(Object.entries(jobFields).map(([k, s]) => [k, (s as z.ZodType).optional()])) as {
      [K in keyof typeof jobFields]: z.ZodOptional<(typeof jobFields)[K]>;
    },
    expectedVersion: positiveInt('expectedVersion is required'),
    reason: str().max(1000).optional(),
  })
  .superRefine((v, ctx) => refineJob(v as GraphLike, ctx, 'update'));
export type UpdateJobInput = z.output<typeof UpdateJobInput>;

/** PUT /api/v1/jobs/:id/dag and the DAG editor's save: the whole graph. */
export const SaveDagInput = z
  .strictObject({
    steps: z.array(StepInput).min(1, 'A job needs at least one step').max(500),
    edges: z.array(EdgeInput).max(2000).default([]),
    expectedVersion: positiveInt('expectedVersion is required (the version the editor started from)'),
    reason: str().max(1000).optional(),
  })
  .superRefine((v, ctx) => refineJob(v, ctx, 'update'));
export type SaveDagInput = z.output<typeof SaveDagInput>;

/** POST /jobs/:id/trigger and "Run now": an optional payload merged over each step's payload. */
/**
 * Body of POST /jobs/:id/trigger: `{ payload? }` for one run, or `{ runs: [{ payload? }, …] }`
 * (1 to 1,000 entries) for many in one transaction (lib/engine triggerRuns), never both.
 */
export const TriggerJobInput = z
  .strictObject({
    payload: JsonObject.optional(),
    runs: z
      .array(z.strictObject({ payload: JsonObject.optional() }), { message: 'Must be an array of { payload? } objects' })
      .min(1, 'Give at least one run')
      .max(1000, 'At most 1000 runs per trigger')
      .optional(),
  })
  .refine((v) => v.payload === undefined || v.runs === undefined, { path: ['runs'], message: 'Give either payload (one run) or runs, not both' });
export type TriggerJobInput = z.output<typeof TriggerJobInput>;

/**
 * Body of actions that take no fields (run cancel/retry, task retry, worker resume, job purge, user delete, token
 * revoke, unsilence): `{}` or none; any field is a 400, so nothing sent along (a `reason`) is silently dropped.
 */
export const EmptyInput = z.strictObject({});
/** POST /workers/:id/drain: `confirmLastWorker` is needed to drain the last online worker (lib/workers drainWorker). */
export const DrainWorkerInput = z.strictObject({ confirmLastWorker: z.boolean().optional() });

/** Reason-only body for pause/resume/delete/restore (all optional). */
export const ReasonInput = z.strictObject({ reason: str().max(1000).optional() });
export type ReasonInput = z.output<typeof ReasonInput>;

export const RollbackInput = z.strictObject({ version: positiveInt('version is required'), expectedVersion: positiveInt().optional(), reason: str().max(1000).optional() });
export type RollbackInput = z.output<typeof RollbackInput>;

export const BulkJobsInput = z.strictObject({
  // one job once: a job named twice would be acted on once and answered once, hiding the caller's mistake
  ids: z.array(objectId('job')).min(1, 'Select at least one job').max(500).superRefine((ids, ctx) => {
    ids.forEach((id, i) => {
      if (ids.indexOf(id) < i) ctx.addIssue({ code: 'custom', path: [i], message: `Listed twice: ${id}` });
    });
  }),
  reason: str().max(1000).optional(),
});
export type BulkJobsInput = z.output<typeof BulkJobsInput>;

/** Largest crontab text accepted by an import (UTF-8 bytes). */
export const MAX_CRONTAB_BYTES = 256 * 1024;
/** Most entries one import may create (all in one transaction). */
export const MAX_CRONTAB_ENTRIES = 1000;
/** Prefix of imported job keys: a job key minus room for `.l<line>.<command>`. */
export const KEY_PREFIX_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** POST /api/v1/jobs/import and the console's crontab upload (lib/jobs/import-crontab.ts). */
export const ImportCrontabInput = z.strictObject({
  text: str({ message: 'Crontab text is required' })
    .refine((t) => t.trim().length > 0, 'The crontab is empty')
    .refine((t) => Buffer.byteLength(t, 'utf8') <= MAX_CRONTAB_BYTES, `Must be at most ${MAX_CRONTAB_BYTES / 1024} KB`),
  timezone: str({ message: 'Time zone is required' })
    .trim()
    .min(1, 'Time zone is required')
    .max(100)
    .refine((tz) => isValidTimeZone(tz), { message: 'Unknown time zone' })
    .transform((tz) => canonicalTimeZone(tz)),
  system: z.boolean().optional(),
  keyPrefix: str().regex(KEY_PREFIX_RE, 'Key prefix must be 1-64 characters: letters, digits, ".", "_", ":" or "-", starting with a letter or digit').optional(),
  dryRun: z.boolean().optional(),
  /** where the text came from (a file name), written into each job's description */
  source: str().trim().max(300).optional(),
});
export type ImportCrontabInput = z.output<typeof ImportCrontabInput>;

// ---------------------------------------------------------------- queries

/**
 * The number a path segment or query value writes, for the number schema after it: the text must be
 * the number's own decimal writing (`7`, `-7`), so that one number has one spelling and one URL
 * (`/versions/01` and `?limit=+7` are not another way to say 1 and 7). Digits written otherwise (a
 * leading zero, a `+`, spaces) are refused with the writing to use; any other text (`0x10`, `1e2`,
 * `16.0`, `Infinity`, which `Number()` would read) is left for the number schema to refuse.
 */
function decimalText(v: unknown, ctx: { issues: unknown[] }): unknown {
  if (typeof v !== 'string' || !/^\s*[-+]?\d+\s*$/.test(v)) return v;
  const n = Number(v);
  if (Number.isSafeInteger(n) && String(n) !== v) {
    ctx.issues.push({ code: 'custom', message: `Must be written ${n}: plain decimal digits, without a sign, spaces or leading zeros`, input: v });
  }
  return n;
}

/**
 * A whole number in min..max from a query string (its decimal writing: decimalText) or from a
 * number. The one reader of whole numbers in queries (REST, the console's views).
 */
export const queryInt = (min: number, max: number) => z.preprocess(decimalText, intIn(min, max));

/**
 * GET /schedule/preview?cron=&tz=&from=&count= or ?intervalSeconds=&… (exactly one of cron and
 * intervalSeconds; tz defaults to UTC, from to now, count to 5); with `jobId` and `staggerSeconds` the
 * times are that job's due instants (slot + stagger), else the schedule's slots.
 */
export const SchedulePreviewQuery = z
  .object({
    cron: str().trim().min(1, 'cron is required').max(200).optional(),
    intervalSeconds: queryInt(1, MAX_INTERVAL_SECONDS).optional(),
    tz: timeZoneField().optional(),
    from: Instant.optional(),
    count: queryInt(1, MAX_PREVIEW_COUNT).optional(),
    /** The job's effective window: nothing fires before startAt or after endAt (the tick's own rule). */
    startAt: Instant.optional(),
    endAt: Instant.optional(),
    /** A saved job's id and its stagger (0..86400 s): the fire times are then its due instants, slot + its fixed offset. */
    jobId: objectId('job').optional(),
    staggerSeconds: queryInt(0, 86400).optional(),
    /** A saved job's creation: an interval without startAt is anchored there, as the tick anchors it, not at `from`. */
    createdAt: Instant.optional(),
  })
  .superRefine((q, ctx) => {
    if (q.startAt && q.endAt && q.endAt <= q.startAt) ctx.addIssue({ code: 'custom', path: ['endAt'], message: 'endAt must be after startAt' });
    if (q.staggerSeconds && !q.jobId) ctx.addIssue({ code: 'custom', path: ['jobId'], message: 'jobId is required with staggerSeconds: the offset is hashed from the job id' });
    if (q.cron === undefined && q.intervalSeconds === undefined) {
      ctx.addIssue({ code: 'custom', path: ['cron'], message: 'cron or intervalSeconds is required' });
      return;
    }
    if (q.cron !== undefined && q.intervalSeconds !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['intervalSeconds'], message: 'Give cron or intervalSeconds, not both' });
      return;
    }
    const tz = q.tz ?? 'UTC';
    if (!isValidTimeZone(tz)) {
      ctx.addIssue({ code: 'custom', path: ['tz'], message: `Unknown time zone: ${tz}` });
      return;
    }
    if (q.cron === undefined) return;
    try {
      parseCron(q.cron, tz, { refuseOversizedSteps: true });
    } catch (e) {
      if (e instanceof ScheduleError) ctx.addIssue({ code: 'custom', path: [e.field === 'timezone' ? 'tz' : 'cron'], message: e.message });
      else throw e;
    }
  });
export type SchedulePreviewQuery = z.output<typeof SchedulePreviewQuery>;

export const SortDir = z.enum(['asc', 'desc']);
/**
 * A list query parameter (`?status=a,b` or `?status=a&status=b`, lib/api/validation.ts queryObject): every filter
 * by one of a set of values (runs' and jobs' status, alarms' type and status…) is one, so that the same value
 * gets the same answer on every list (an empty one filters nothing, a bad one is named at `status.0`).
 */
export const multi = <T extends z.ZodType>(item: T) =>
  listParameter(z.preprocess((v) => (typeof v === 'string' ? v.split(',').filter(Boolean) : v), z.array(item).max(20)));

/** GET /jobs (and the jobs list page). `cursor` is the opaque `nextCursor` of the previous page. */
export const ListJobsQuery = z.object({
  q: str().trim().max(200).optional(),
  status: multi(z.enum(['active', 'paused', 'dead_letter'])).optional(),
  scheduleKind: multi(z.enum(['cron', 'interval', 'once', 'manual'])).optional(),
  handler: str().trim().max(200).optional(),
  sort: z.enum(['key', 'name', 'next_run_at', 'created_at']).optional(),
  dir: SortDir.optional(),
  limit: queryInt(1, 200).optional(),
  cursor: str().max(1000).optional(),
});
export type ListJobsQuery = z.output<typeof ListJobsQuery>;

/** GET /recycle-bin. */
export const ListRecycleBinQuery = z.object({
  q: str().trim().max(200).optional(),
  limit: queryInt(1, 200).optional(),
  cursor: str().max(1000).optional(),
});
export type ListRecycleBinQuery = z.output<typeof ListRecycleBinQuery>;

/** GET /runs: newest scheduled_for first. `from`/`to` bound scheduled_for (inclusive). */
export const ListRunsQuery = z
  .object({
    jobId: objectId('job').optional(),
    status: multi(z.enum(['pending', 'running', 'success', 'failed', 'timeout', 'cancelled', 'skipped'])).optional(),
    trigger: multi(z.enum(['schedule', 'manual', 'api', 'retry', 'backfill'])).optional(),
    from: Instant.optional(),
    to: Instant.optional(),
    /** A run id (full, or its first 8+ hex characters) or words of its error text, which the error's trigram index must be able to look up (searchTextHasTrigram). */
    q: str().trim().max(200).refine((q) => q === '' || searchTextHasTrigram(q), NO_TRIGRAM_MESSAGE).optional(),
    limit: queryInt(1, 200).optional(),
    cursor: str().max(1000).optional(),
  })
  .superRefine((q, ctx) => {
    if (q.from && q.to && q.from > q.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must not be before from' });
  });
export type ListRunsQuery = z.output<typeof ListRunsQuery>;

/** A positive int4 from a path or query string (`versions/:version`, `diff?from=&to=`), written as decimalText says. */
export const PositiveIntParam = z.preprocess(decimalText, positiveInt());

export const DiffQuery = z.object({ from: PositiveIntParam, to: PositiveIntParam });
export type DiffQuery = z.output<typeof DiffQuery>;

/**
 * `limit` (1..`max` rows) and `cursor` (the opaque `nextCursor` of the previous page) of a list paged
 * by a keyset cursor (lib/api/cursor.ts); a bad value is a 400 naming `limit` or `cursor`.
 */
export const pageParams = (max: number) => ({ limit: queryInt(1, max).optional(), cursor: str().max(1000).optional() });

/** The most rows one page of the versions, recovery history and silences lists holds (`limit`). */
export const MAX_HISTORY_PAGE = 500;

/** GET /jobs/:id/versions: newest version first, `limit` (default 200) and `cursor` (lib/jobs/list-versions.ts). */
export const ListVersionsQuery = z.object(pageParams(MAX_HISTORY_PAGE));
export type ListVersionsQuery = z.input<typeof ListVersionsQuery>;

/** GET /jobs/:id/audit: newest first, `limit` (default 100) and `cursor` (lib/jobs/list-job-audit.ts). */
export const ListJobAuditQuery = z.object(pageParams(MAX_HISTORY_PAGE));
export type ListJobAuditQuery = z.input<typeof ListJobAuditQuery>;

// ---------------------------------------------------------------- auth

export const RoleInput = z.enum(['admin', 'operator', 'viewer']);
/** bcrypt reads 72 bytes (lib/auth/password.ts): a longer password is refused, never silently cut. */
const BCRYPT_LIMIT = 'At most 72 bytes in UTF-8 (bcrypt ignores anything after that)';
const bcryptPassword = (min: number, minMessage: string) =>
  str()
    .min(min, minMessage)
    .refine((p) => Buffer.byteLength(p, 'utf8') <= 72, BCRYPT_LIMIT);

export const LoginInput = z.strictObject({
  email: str().trim().min(1, 'Email is required').max(320),
  password: bcryptPassword(1, 'Password is required'),
});
/**
 * A new user. An empty email or password says the field is required, as an empty Key or Name does in the job form;
 * only a value typed wrong quotes the rule ("Must be an email address", "At least 8 characters").
 */
export const CreateUserInput = z.strictObject({
  email: z.email({ error: (issue) => (issue.input === '' ? 'Email is required' : 'Must be an email address') }).max(320),
  name: displayName(200, false).optional(),
  password: str()
    .min(8, { error: (issue) => (issue.input === '' ? 'Password is required' : 'At least 8 characters') })
    .refine((p) => Buffer.byteLength(p, 'utf8') <= 72, BCRYPT_LIMIT),
  role: RoleInput,
});
export const UpdateUserInput = z.strictObject({
  name: displayName(200, false).optional(),
  role: RoleInput.optional(),
  disabled: z.boolean().optional(),
  password: bcryptPassword(8, 'At least 8 characters').optional(),
});
/** Reset a user's password: the new one, or none to have one generated and shown once (lib/auth resetUserPassword). */
export const ResetPasswordInput = z.strictObject({
  password: bcryptPassword(8, 'At least 8 characters').optional(),
});
export const CreateTokenInput = z.strictObject({
  name: displayName(200, true),
  scope: z.enum(['read', 'operate', 'admin'], { message: 'Must be read, operate or admin' }),
  /** the user the token acts for (default: the caller); the scope may not exceed their role */
  ownerId: objectId('user').optional(),
  expiresAt: Instant.nullish().refine((d) => !(d instanceof Date) || d.getTime() > Date.now(), 'Must be in the future'),
});

/**
 * Path params of objects named by a UUID: ids are strings, a UUID in any case is read in lower case
 * (lib/api/ids.ts canonicalId), and a malformed one answers 404 in the domain.
 */
export const IdParams = z.object({ id: str().min(1).max(200).transform(canonicalId) });
/** Path params of a worker: its node id, as the worker chose it (case kept). */
export const WorkerIdParams = z.object({ id: str().min(1).max(200) });
/** GET /jobs/:id/versions/:version. */
export const VersionParams = IdParams.extend({ version: PositiveIntParam });
