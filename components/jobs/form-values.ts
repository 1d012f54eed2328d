/**
 * The job form's state (all strings, as typed) and its conversion to the REST/zod
 * input shape of lib/api CreateJobInput/UpdateJobInput (docs/design.md §5). Pure: no React,
 * used by the form and unit-testable.
 */

import { instantToWallTime, isKnownZone, utcToZonedLocal, zonedLocalToUtc, type RepeatedOccurrence } from '@/lib/time/format';
import { CreateJobInput, UpdateJobInput } from '@/lib/api/schemas';
import { fieldErrorsOf, withFieldErrors } from '@/lib/api/validation';
import { neverFiresFields } from '@/lib/api/never-fires-fields';
import { jsonTextProblem } from '@/lib/api/json-guard';

export type ScheduleKind = 'cron' | 'interval' | 'once' | 'manual';
export type AlarmChannelValue = { type: 'webhook' | 'email' | 'log'; target: string };

export type JobFormValues = {
  key: string;
  name: string;
  description: string;
  scheduleKind: ScheduleKind;
  cron: string;
  timezone: string;
  intervalSeconds: string;
  /** `YYYY-MM-DDTHH:mm[:ss[.SSS]]` (datetime-local), wall time in `timezone`. */
  runAtLocal: string;
  /**
   * Which occurrence of `runAtLocal` is meant when a fall-back repeats it in `timezone` (lib/time/format.ts
   * repeatedWallTime; components/ui/wall-time-choice.tsx); ignored for a wall time that comes once.
   */
  runAtRepeated: RepeatedOccurrence;
  /** Optional effective window, datetime-local in `timezone`; '' = open. */
  startAtLocal: string;
  startAtRepeated: RepeatedOccurrence;
  endAtLocal: string;
  endAtRepeated: RepeatedOccurrence;
  /** seconds; a stable per-job offset in [0, staggerSeconds) */
  staggerSeconds: string;
  /** false for a multi-step job: handler/payload are edited in the Graph tab. */
  singleStep: boolean;
  handler: string;
  payload: string;
  timeoutSeconds: string;
  maxRetries: string;
  backoffBaseSeconds: string;
  backoffFactor: string;
  backoffMaxSeconds: string;
  backoffJitter: string;
  blockStrategy: 'discard_later' | 'serial_execution' | 'cover_early';
  misfirePolicy: 'skip' | 'fire_once' | 'fire_all';
  misfireMaxCatchup: string;
  deadLetterAfter: string;
  priority: string;
  routingGroup: string;
  /** `k=v, k=v` */
  routingLabels: string;
  routingStrategy: 'any' | 'consistent_hash' | 'nodes';
  /** comma-separated node ids */
  routingNodes: string;
  routingKey: string;
  /**
   * Edit mode: the job's routing as loaded (the five routing fields as shown, and the stored value). While
   * the fields still read so, no routing is sent (the update keeps the stored one) instead of the fields
   * re-parsed, so a save that did not touch the routing cannot change it (a label saved before the
   * `key=value` rule, with a comma or spaces at its ends, would be re-split or trimmed: another routing).
   */
  loadedRouting?: { shown: string; value: JobLike['routing'] };
  onFailure: boolean;
  onTimeout: boolean;
  onDeadLetter: boolean;
  onSuccess: boolean;
  channels: AlarmChannelValue[];
};

/**
 * Defaults of a new job (same values as lib/jobs JOB_DEFAULTS, so an untouched field changes nothing). No handler is
 * chosen: what a job runs is the operator's decision, so Save names the Handler field until one is picked.
 */
export const EMPTY_JOB_FORM: JobFormValues = {
  key: '',
  name: '',
  description: '',
  scheduleKind: 'cron',
  cron: '',
  timezone: 'UTC',
  intervalSeconds: '60',
  runAtLocal: '',
  runAtRepeated: 'first',
  startAtLocal: '',
  startAtRepeated: 'first',
  endAtLocal: '',
  endAtRepeated: 'first',
  staggerSeconds: '0',
  singleStep: true,
  handler: '',
  payload: '{}',
  timeoutSeconds: '300',
  maxRetries: '0',
  backoffBaseSeconds: '1',
  backoffFactor: '2',
  backoffMaxSeconds: '300',
  backoffJitter: '0.1',
  blockStrategy: 'discard_later',
  misfirePolicy: 'fire_once',
  misfireMaxCatchup: '10',
  deadLetterAfter: '0',
  priority: '0',
  routingGroup: '',
  routingLabels: '',
  routingStrategy: 'any',
  routingNodes: '',
  routingKey: '',
  onFailure: false,
  onTimeout: false,
  onDeadLetter: false,
  onSuccess: false,
  channels: [],
};

// Wall time <-> instant conversions live in the one time module (lib/time/format.ts).
export { utcToZonedLocal, zonedLocalToUtc };

/** The instant of a wall-time field of the form (`local` in `zone`, the occurrence chosen when it is repeated); null when unreadable. */
export function formInstant(local: string, zone: string, repeated: RepeatedOccurrence): Date | null {
  return zonedLocalToUtc(local, zone.trim() || 'UTC', { repeated });
}

/** `k=v, k2=v2` -> record; returns an error message for a malformed pair. */
export function parseLabels(text: string): { ok: true; value: Record<string, string> } | { ok: false; error: string } {
  const value: Record<string, string> = {};
  for (const raw of text.split(/[,\n]/)) {
    const pair = raw.trim();
    if (!pair) continue;
    const i = pair.indexOf('=');
    if (i <= 0) return { ok: false, error: `"${pair}" is not key=value` };
    const key = pair.slice(0, i).trim();
    // what REST refuses must not change on the way: a key given twice would keep its last value, and
    // `__proto__` would be dropped when the object is copied
    if (key === '__proto__') return { ok: false, error: 'Label key __proto__ is not allowed' };
    if (Object.hasOwn(value, key)) return { ok: false, error: `Label ${key} is given twice` };
    value[key] = pair.slice(i + 1).trim();
  }
  return { ok: true, value };
}

/** Parses the payload textarea: must be a JSON object, no key written twice. */
export function parsePayload(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  const t = text.trim();
  if (t === '') return { ok: true, value: {} };
  try {
    const v = JSON.parse(t) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, error: 'Payload must be a JSON object, e.g. {"hello": "world"}' };
    const duplicate = jsonTextProblem(t);
    if (duplicate) return { ok: false, error: duplicate };
    return { ok: true, value: v as Record<string, unknown> };
  } catch (e) {
    return { ok: false, error: `Invalid JSON: ${(e as Error).message}` };
  }
}

/**
 * The toast after Run now of one run, by the trigger's outcome (lib/engine/trigger-run.ts, the job's block strategy):
 * `started`; `queued` behind the active run (serial_execution); `skipped` because a run is still active
 * (discard_later: a skipped run is recorded and nothing runs); `covered`, started after cancelling the active run
 * (cover_early). `jobKey` prefixes the title where the page does not name the job (the jobs list). Every door to
 * Run now uses it, so a skipped run is never announced as started.
 */
export function runNowToast(outcome: string, jobKey?: string): { kind: 'success' | 'info'; title: string } {
  const text: Record<string, { kind: 'success' | 'info'; title: string }> = {
    started: { kind: 'success', title: 'Run started' },
    queued: { kind: 'info', title: 'Run queued behind the active run (serial_execution)' },
    skipped: { kind: 'info', title: 'Run skipped: a run is still active (discard_later)' },
    covered: { kind: 'success', title: 'Run started; the active run was cancelled (cover_early)' },
  };
  const t = text[outcome] ?? { kind: 'success' as const, title: `Run ${outcome}` };
  return jobKey ? { kind: t.kind, title: `${jobKey}: ${t.title.charAt(0).toLowerCase()}${t.title.slice(1)}` } : t;
}

/**
 * The toast after Run now with a pasted array: how many runs were created to run (started or queued) and how many
 * the block strategy skipped at once, with the skip reasons (run ids shortened to the 8 characters the console shows).
 */
export function bulkRunNowToast(r: { runs: number; skipped: number; skipReasons: string[] }): { kind: 'success' | 'info'; title: string; description?: string } {
  const created = r.runs - r.skipped;
  const title = `${created} run${created === 1 ? '' : 's'} created${r.skipped ? `, ${r.skipped} skipped` : ''}`;
  if (!r.skipped) return { kind: 'success', title };
  const short = (reason: string) => reason.replace(/\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '$1');
  return { kind: 'info', title, description: `Skipped: ${r.skipReasons.map(short).join('; ')}` };
}

/**
 * Parses the Run now payload textarea: a JSON object (one run with that payload override),
 * or a JSON array of objects (one run per element, in order: a bulk trigger of at most 1000).
 * Empty: one run with the saved payload.
 */
export function parseRunNowInput(text: string):
  | { ok: true; value: { payload?: Record<string, unknown> } | { runs: { payload: Record<string, unknown> }[] } }
  | { ok: false; error: string } {
  const t = text.trim();
  if (t === '') return { ok: true, value: {} };
  let v: unknown;
  try {
    v = JSON.parse(t);
  } catch (e) {
    return { ok: false, error: `Invalid JSON: ${(e as Error).message}` };
  }
  const duplicate = jsonTextProblem(t);
  if (duplicate) return { ok: false, error: duplicate };
  if (Array.isArray(v)) {
    if (v.length === 0) return { ok: false, error: 'The array is empty: give at least one payload object' };
    if (v.length > 1000) return { ok: false, error: `At most 1000 runs at once (got ${v.length})` };
    const bad = v.findIndex((x) => x === null || typeof x !== 'object' || Array.isArray(x));
    if (bad >= 0) return { ok: false, error: `Element ${bad} must be a JSON object` };
    return { ok: true, value: { runs: (v as Record<string, unknown>[]).map((payload) => ({ payload })) } };
  }
  if (v === null || typeof v !== 'object') return { ok: false, error: 'Payload must be a JSON object, e.g. {"hello": "world"}, or an array of objects (one run each)' };
  return { ok: true, value: { payload: v as Record<string, unknown> } };
}

/** A number field's text: decimal only (Number() would read `1e2`, `0x10` and `Infinity` too); anything else is NaN, which the server names. */
const num = (s: string): number | undefined => (s.trim() === '' ? undefined : /^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$/.test(s) ? Number(s) : NaN);

/**
 * Form values -> CreateJobInput-shaped object. Numbers stay numbers even when invalid
 * (NaN) so the server's zod schema names the field. Returns client-side errors (bad
 * JSON, bad labels, bad local time) keyed by the same dotted paths the server uses.
 */
export function toJobInput(v: JobFormValues): { input: Record<string, unknown>; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  // the zone the wall-time fields are read in (a half-typed one included: the server's wording for it)
  const zone = v.timezone.trim() || 'UTC';
  const zoneKnown = isKnownZone(zone);
  const unknownZone = `Unknown time zone: ${zone}`;
  let schedule: Record<string, unknown>;
  switch (v.scheduleKind) {
    case 'cron':
      schedule = { kind: 'cron', cron: v.cron, timezone: v.timezone || 'UTC' };
      break;
    case 'interval':
      schedule = { kind: 'interval', intervalSeconds: num(v.intervalSeconds) ?? NaN, timezone: v.timezone || 'UTC' };
      break;
    case 'once': {
      const at = v.runAtLocal && zoneKnown ? formInstant(v.runAtLocal, v.timezone, v.runAtRepeated) : null;
      if (!v.runAtLocal) errors['schedule.runAt'] = 'Pick the date and time to run at';
      else if (!zoneKnown) errors['schedule.timezone'] = unknownZone;
      else if (!at) errors['schedule.runAt'] = 'Invalid date and time';
      schedule = { kind: 'once', runAt: at?.toISOString() ?? '', timezone: v.timezone || 'UTC' };
      break;
    }
    default:
      schedule = { kind: 'manual' };
  }
  const windowAt = (local: string, repeated: RepeatedOccurrence, path: string) => {
    if (!local) return null;
    // a wall time is read in the zone: an unknown one is the zone's mistake, not the field's
    if (!zoneKnown) {
      errors['schedule.timezone'] = unknownZone;
      return null;
    }
    const d = formInstant(local, v.timezone, repeated);
    if (!d) errors[path] = 'Invalid date and time';
    return d?.toISOString() ?? null;
  };
  const routingUnchanged = v.loadedRouting !== undefined && v.loadedRouting.shown === routingShown(v);
  const labels = routingUnchanged ? ({ ok: true, value: {} } as const) : parseLabels(v.routingLabels);
  if (!labels.ok) errors['routing.labels'] = labels.error;
  const input: Record<string, unknown> = {
    key: v.key.trim(),
    name: v.name,
    description: v.description,
    schedule,
    startAt: windowAt(v.startAtLocal, v.startAtRepeated, 'startAt'),
    endAt: windowAt(v.endAtLocal, v.endAtRepeated, 'endAt'),
    staggerSeconds: v.staggerSeconds.trim() === '' ? 0 : num(v.staggerSeconds),
    policy: {
      timeoutSeconds: num(v.timeoutSeconds),
      maxRetries: num(v.maxRetries),
      backoff: { baseSeconds: num(v.backoffBaseSeconds), factor: num(v.backoffFactor), maxSeconds: num(v.backoffMaxSeconds), jitter: num(v.backoffJitter) },
      blockStrategy: v.blockStrategy,
      misfirePolicy: v.misfirePolicy,
      misfireMaxCatchup: num(v.misfireMaxCatchup),
      deadLetterAfter: num(v.deadLetterAfter),
      priority: num(v.priority),
    },
    routing: {
      nodeGroup: v.routingGroup.trim() || null,
      labels: labels.ok ? labels.value : {},
      strategy: v.routingStrategy,
      // the list and the key belong to one strategy each (lib/jobs/job-input.ts routingColumns); the form hides the other's
      nodes: v.routingStrategy === 'nodes' ? v.routingNodes.split(',').map((s) => s.trim()).filter(Boolean) : [],
      key: v.routingStrategy === 'consistent_hash' ? v.routingKey.trim() || null : null,
    },
    alarms: { onFailure: v.onFailure, onTimeout: v.onTimeout, onDeadLetter: v.onDeadLetter, onSuccess: v.onSuccess, channels: v.channels },
  };
  // untouched: not sent, so the job keeps its routing as stored (an update leaves out what it is not given)
  if (routingUnchanged) delete input.routing;
  if (v.singleStep) {
    input.handler = v.handler;
    const payload = parsePayload(v.payload);
    if (!payload.ok) errors.payload = payload.error;
    else input.payload = payload.value;
  }
  return { input, errors };
}

/**
 * The errors that keep the form from sending `input` (empty: send it). With an error of the form's
 * own (`formErrors`: bad JSON, labels, times) come every field the server's schema refuses, not one
 * round after them (the form's message wins on a field both name), and a schedule that would never
 * fire at `now` (lib/api/never-fires-fields.ts, the server's rule; on an edit only a schedule changed
 * from `initial`'s). Without one, the server checks the rest and answers them all in one 400.
 */
export function submitErrors(mode: 'create' | 'edit', input: Record<string, unknown>, formErrors: Record<string, string>, now: Date, initial?: JobFormValues): Record<string, string> {
  if (!Object.keys(formErrors).length) return formErrors;
  const others = { ...fieldErrorsOf(mode === 'edit' ? UpdateJobInput : CreateJobInput, input), ...formErrors };
  const before = mode === 'edit' && initial ? toJobInput(initial).input : undefined;
  return withFieldErrors(others, neverFiresFields(input, now, before && { schedule: before.schedule, startAt: before.startAt, endAt: before.endAt, staggerSeconds: before.staggerSeconds }));
}

/** Minimal view of a job needed to prefill the edit form (lib/jobs JobView satisfies it). */
export type JobLike = {
  key: string;
  name: string;
  description: string;
  schedule: { kind: 'cron'; cron: string; timezone: string } | { kind: 'interval'; intervalSeconds: number; timezone?: string } | { kind: 'once'; runAt: string; timezone?: string } | { kind: 'manual' };
  timezone: string;
  startAt: string | null;
  endAt: string | null;
  staggerSeconds?: number;
  steps: { key: string; handler: string; payload: Record<string, unknown> }[];
  policy: { timeoutSeconds: number; maxRetries: number; backoff: { baseSeconds: number; factor: number; maxSeconds: number; jitter: number }; blockStrategy: JobFormValues['blockStrategy']; misfirePolicy: JobFormValues['misfirePolicy']; misfireMaxCatchup: number; deadLetterAfter: number; priority: number };
  routing: { nodeGroup: string | null; labels: Record<string, string>; strategy: JobFormValues['routingStrategy']; nodes: string[]; key: string | null };
  alarms: { onFailure: boolean; onTimeout: boolean; onDeadLetter: boolean; onSuccess: boolean; channels: AlarmChannelValue[] };
};

/** The routing fields as one text, to tell whether the user changed any of them (loadedRouting). */
function routingShown(v: Pick<JobFormValues, 'routingGroup' | 'routingLabels' | 'routingStrategy' | 'routingNodes' | 'routingKey'>): string {
  return JSON.stringify([v.routingGroup, v.routingLabels, v.routingStrategy, v.routingNodes, v.routingKey]);
}

/** The form values `<name>Local` and `<name>Repeated` of an instant shown as a wall time in `zone` (lib/time/format.ts instantToWallTime). */
function wallTimeFields<N extends 'runAt' | 'startAt' | 'endAt'>(name: N, instant: string | null, zone: string): Record<`${N}Local`, string> & Record<`${N}Repeated`, RepeatedOccurrence> {
  const w = instantToWallTime(instant, zone);
  return { [`${name}Local`]: w?.local ?? '', [`${name}Repeated`]: w?.repeated ?? 'first' } as Record<`${N}Local`, string> & Record<`${N}Repeated`, RepeatedOccurrence>;
}

/** Edit-form values of an existing job (times shown as wall times in the job's zone). */
export function jobToFormValues(job: JobLike): JobFormValues {
  const tz = job.schedule.kind === 'cron' ? job.schedule.timezone : job.timezone || 'UTC';
  const single = job.steps.length === 1 ? job.steps[0]! : null;
  const routingFields = {
    routingGroup: job.routing.nodeGroup ?? '',
    routingLabels: Object.entries(job.routing.labels ?? {}).map(([k, x]) => `${k}=${x}`).join(', '),
    routingStrategy: job.routing.strategy,
    routingNodes: (job.routing.nodes ?? []).join(', '),
    routingKey: job.routing.key ?? '',
  };
  return {
    key: job.key,
    name: job.name,
    description: job.description ?? '',
    scheduleKind: job.schedule.kind,
    cron: job.schedule.kind === 'cron' ? job.schedule.cron : '',
    timezone: tz,
    intervalSeconds: job.schedule.kind === 'interval' ? String(job.schedule.intervalSeconds) : '60',
    // exact wall times (seconds when set, the occurrence of a repeated hour): a save that leaves them alone keeps the instants
    ...wallTimeFields('runAt', job.schedule.kind === 'once' ? job.schedule.runAt : null, tz),
    ...wallTimeFields('startAt', job.startAt, tz),
    ...wallTimeFields('endAt', job.endAt, tz),
    staggerSeconds: String(job.staggerSeconds ?? 0),
    singleStep: !!single,
    handler: single?.handler ?? '',
    payload: single ? JSON.stringify(single.payload ?? {}, null, 2) : '{}',
    timeoutSeconds: String(job.policy.timeoutSeconds),
    maxRetries: String(job.policy.maxRetries),
    backoffBaseSeconds: String(job.policy.backoff.baseSeconds),
    backoffFactor: String(job.policy.backoff.factor),
    backoffMaxSeconds: String(job.policy.backoff.maxSeconds),
    backoffJitter: String(job.policy.backoff.jitter),
    blockStrategy: job.policy.blockStrategy,
    misfirePolicy: job.policy.misfirePolicy,
    misfireMaxCatchup: String(job.policy.misfireMaxCatchup),
    deadLetterAfter: String(job.policy.deadLetterAfter),
    priority: String(job.policy.priority),
    ...routingFields,
    loadedRouting: { shown: routingShown(routingFields), value: job.routing },
    onFailure: job.alarms.onFailure,
    onTimeout: job.alarms.onTimeout,
    onDeadLetter: job.alarms.onDeadLetter,
    onSuccess: job.alarms.onSuccess,
    channels: job.alarms.channels ?? [],
  };
}
