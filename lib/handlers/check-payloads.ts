/**
 * Refuses, on save, a step payload that does not fit its handler's advertised input
 * schema (docs/handlers.md "Validation"): the same rule for the console and REST, since
 * both save through lib/jobs. Only handlers that advertised a schema are checked; the
 * worker checks every attempt again with the handler's own zod schema. The numeric settings
 * of the handlers that ship with Tickflow (number-settings.ts) are checked too.
 */
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { loadInputSchemas } from './catalogue.ts';
import { checkPayload } from './payload-schema.ts';
import { checkNumberSetting, HANDLER_NUMBER_SETTINGS } from './number-settings.ts';
import { BUILTIN_INPUTS, checkBuiltinInput } from './builtin-schemas.ts';

type StepInput = { key?: string; handler: string; payload?: unknown; config?: unknown };

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * Where step `i`'s settings come from, the one that wins first (worker/handlers/types.ts settings:
 * the step's payload over the job's payload over the step's config), each with the field that names
 * it in an error.
 */
function settingLayers(
  s: { payload?: Record<string, unknown> | null; config?: Record<string, unknown> | null },
  i: number,
  jobPayload: Record<string, unknown> | null | undefined,
  fieldOf: (index: number) => string,
): readonly (readonly [Record<string, unknown>, string])[] {
  return [
    [obj(s.payload), fieldOf(i)],
    [obj(jobPayload), 'payload'],
    [obj(s.config), `steps.${i}.config`],
  ];
}

function refuse(fields: Record<string, string>): void {
  if (Object.keys(fields).length === 0) return;
  const list = Object.entries(fields).map(([p, m]) => `${p}: ${m}`);
  throw new DomainError('validation', `The payload does not fit the handler's input: ${list.join('; ')}`, fields);
}

/**
 * @param steps the steps being saved, in input order
 * @param jobPayload the job-level payload each step's payload is merged over at run time
 *   (README "Jobs": `job.payload || step.payload || trigger payload`); the merged object is checked
 * @param fieldOf the field path of step i's payload (`steps.2.payload`, or `payload` for the one-step shorthand)
 * @throws DomainError('validation') with every bad field, e.g. `steps.0.payload.url`
 */
export async function assertPayloadsFit(
  db: Db,
  steps: readonly { handler: string; payload?: Record<string, unknown> | null; config?: Record<string, unknown> | null }[],
  jobPayload: Record<string, unknown> | null | undefined,
  fieldOf: (index: number) => string = (i) => `steps.${i}.payload`,
): Promise<void> {
  const fields: Record<string, string> = { ...numberSettingFields(steps, jobPayload, fieldOf), ...builtinInputFields(steps, jobPayload, fieldOf) };
  const schemas = await loadInputSchemas(db, steps.map((s) => s.handler));
  steps.forEach((s, i) => {
    const schema = schemas.get(s.handler);
    if (!schema) return;
    const r = checkPayload(schema, { ...(jobPayload ?? {}), ...(s.payload ?? {}) }, fieldOf(i));
    if (!r.ok) Object.assign(fields, r.fields);
  });
  refuse(fields);
}

/**
 * The fields of shipped executors' inputs (lib/handlers/builtin-schemas.ts) that a save gets wrong.
 * `http`/`sql`/`shell` read config < job payload < step payload < run payload: every field present
 * is judged, in the merge the task will get, and named at the layer that brings it; a required field
 * is not asked for here, since a trigger's payload may still bring it (checked then, and by the worker).
 * `grpc`'s config is all it reads, so it is judged whole.
 */
function builtinInputFields(
  steps: readonly { handler: string; payload?: Record<string, unknown> | null; config?: Record<string, unknown> | null }[],
  jobPayload: Record<string, unknown> | null | undefined,
  fieldOf: (index: number) => string,
): Record<string, string> {
  const fields: Record<string, string> = {};
  steps.forEach((s, i) => {
    const input = BUILTIN_INPUTS[s.handler];
    if (!input) return;
    if (input.appliesTo === 'config') {
      for (const issue of checkBuiltinInput(s.handler, obj(s.config), true)) fields[[`steps.${i}.config`, ...issue.path].join('.')] ??= `${s.handler}: ${issue.message}`;
      return;
    }
    const layers = settingLayers(s, i, jobPayload, fieldOf);
    const merged = { ...obj(s.config), ...obj(jobPayload), ...obj(s.payload) };
    for (const issue of checkBuiltinInput(s.handler, merged, false)) {
      const from = layers.find(([o]) => Object.hasOwn(o, issue.path[0] ?? ''))?.[1] ?? fieldOf(i);
      fields[[from, ...issue.path].join('.')] ??= `${s.handler}: ${issue.message}`;
    }
  });
  return fields;
}

/**
 * Refuses a trigger whose payload override leaves a step of a shipped executor with an input that
 * cannot run (lib/handlers/builtin-schemas.ts): the whole merge is known then (config < job payload
 * < step payload < run payload), so required fields are required too. Pure (no database).
 * @param steps the job's steps as saved
 * @param jobPayload the job payload
 * @param runs each run's payload override with its field path (`payload`, `runs.2.payload`)
 * @throws DomainError('validation') naming `<field>.<key>` (a key the override does not set is
 *   named there too: that is where it can be given)
 */
export function assertRunPayloadsFit(steps: readonly StepInput[], jobPayload: unknown, runs: readonly { payload: unknown; field: string }[]): void {
  const fields: Record<string, string> = {};
  for (const run of runs) {
    for (const s of steps) {
      if (BUILTIN_INPUTS[s.handler]?.appliesTo !== 'settings') continue;
      const merged = { ...obj(s.config), ...obj(jobPayload), ...obj(s.payload), ...obj(run.payload) };
      for (const issue of checkBuiltinInput(s.handler, merged, true)) {
        const saved = !Object.hasOwn(obj(run.payload), issue.path[0] ?? '') && Object.hasOwn(merged, issue.path[0] ?? '');
        fields[[run.field, ...issue.path].join('.')] ??= `${s.handler}${s.key ? ` (step ${s.key})` : ''}: ${issue.message}${saved ? ' (the value saved on the job)' : ''}`;
      }
    }
  }
  refuse(fields);
}

/**
 * The numeric settings of shipped handlers (number-settings.ts) that a step saves out of bounds, keyed by
 * the field the handler would read them from: the step's payload, else the job's payload (merged under
 * it at run time), else the step's config (which the payload overrides, worker/handlers/types.ts settings).
 */
function numberSettingFields(
  steps: readonly { handler: string; payload?: Record<string, unknown> | null; config?: Record<string, unknown> | null }[],
  jobPayload: Record<string, unknown> | null | undefined,
  fieldOf: (index: number) => string,
): Record<string, string> {
  const fields: Record<string, string> = {};
  steps.forEach((s, i) => {
    for (const rule of HANDLER_NUMBER_SETTINGS[s.handler] ?? []) {
      const from = settingLayers(s, i, jobPayload, fieldOf).find(([o]) => Object.hasOwn(o, rule.name));
      if (!from) continue;
      const checked = checkNumberSetting(from[0][rule.name], rule);
      if ('problem' in checked) fields[`${from[1]}.${rule.name}`] = `${s.handler}: ${rule.name} ${checked.problem}`;
    }
  });
  return fields;
}

