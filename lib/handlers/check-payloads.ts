/**
 * Refuses steps whose settings a run could not use (docs/handlers.md "Validation"), the same rule
 * on save (the console and REST both save through lib/jobs) and on a trigger with a payload
 * (lib/jobs/trigger-job.ts): handler modules' advertised input schemas, the shipped executors'
 * inputs (builtin-schemas.ts, the `grpc` proto included: grpc-proto.ts) and the numeric settings
 * (number-settings.ts), and secret references that are not ones (lib/secrets/secret-references.ts).
 * The worker checks every attempt again with the same rules (the handler's own zod schema for a module).
 */
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { loadInputSchemas } from './catalogue.ts';
import { checkPayload, type JsonSchema } from './payload-schema.ts';
import { checkNumberSetting, numberSettingRules } from './number-settings.ts';
import { builtinInput, checkBuiltinInput } from './builtin-schemas.ts';
import { grpcProtoProblem, loadProtobuf } from './grpc-proto.ts';
import { objectOrEmpty } from '../json-object.ts';
import { malformedSecretReference } from '../secrets/secret-references.ts';

type StepInput = { key?: string; handler: string; payload?: unknown; config?: unknown };
type SavedStep = { handler: string; payload?: Record<string, unknown> | null; config?: Record<string, unknown> | null };
/** A trigger's payload override and the field that names it (`payload`, `runs.2.payload`). */
export type RunPayload = { payload: unknown; field: string };

const obj = objectOrEmpty;

/**
 * Where step `i`'s settings come from, the one that wins first (worker/handlers/types.ts settings:
 * the run's payload over the step's payload over the job's payload over the step's config), each
 * with the field that names it in an error. On a trigger every field is named under the run's
 * payload: that is where the one triggering can change it.
 */
function settingLayers(s: StepInput, i: number, jobPayload: unknown, fieldOf: (index: number) => string, run?: RunPayload): readonly (readonly [Record<string, unknown>, string])[] {
  const saved: (readonly [Record<string, unknown>, string])[] = [
    [obj(s.payload), run?.field ?? fieldOf(i)],
    [obj(jobPayload), run?.field ?? 'payload'],
    [obj(s.config), run?.field ?? `steps.${i}.config`],
  ];
  return run ? [[obj(run.payload), run.field], ...saved] : saved;
}

function refuse(fields: Record<string, string>): void {
  if (Object.keys(fields).length === 0) return;
  const list = Object.entries(fields).map(([p, m]) => `${p}: ${m}`);
  throw new DomainError('validation', `The payload does not fit the handler's input: ${list.join('; ')}`, fields);
}

/**
 * Every bad setting of the steps, by field: the numeric settings (number-settings.ts), the shipped
 * executors' inputs (builtin-schemas.ts) and the advertised input schemas of handler modules. The one
 * rule of a save (`run` absent: a required field may still come from a trigger) and of a trigger
 * (`run` given: the whole merge is known, required fields are required).
 */
function stepInputFields(
  steps: readonly StepInput[],
  jobPayload: unknown,
  fieldOf: (index: number) => string,
  schemas: ReadonlyMap<string, JsonSchema>,
  run?: RunPayload,
): Record<string, string> {
  const fields: Record<string, string> = {};
  const label = (s: StepInput) => `${s.handler}${run && s.key ? ` (step ${s.key})` : ''}`;
  // on a trigger, a bad value the override does not set is the job's: said so, since the field named is the run's
  const savedNote = (key: string) => (run && !Object.hasOwn(obj(run.payload), key) ? ' (the value saved on the job)' : '');
  steps.forEach((s, i) => {
    const layers = settingLayers(s, i, jobPayload, fieldOf, run);
    for (const [o, field] of layers) {
      // sent as it is, a mistyped reference would put the text of a secret's name where its value belongs
      const bad = malformedSecretReference(o);
      if (bad) fields[`${field}.${bad.path}`] ??= `${label(s)}: "${bad.text}" starts a secret reference but is not one; write \${{ secrets.NAME }} (NAME: letters, digits and _, not starting with a digit)`;
    }
    for (const rule of numberSettingRules(s.handler)) {
      const from = layers.find(([o]) => Object.hasOwn(o, rule.name));
      if (!from) continue;
      const checked = checkNumberSetting(from[0][rule.name], rule);
      if ('problem' in checked) fields[`${from[1]}.${rule.name}`] ??= `${label(s)}: ${rule.name} ${checked.problem}${savedNote(rule.name)}`;
    }
    const input = builtinInput(s.handler);
    if (input?.appliesTo === 'config') {
      // the step config alone, all of it known on save: a trigger's payload cannot change it
      if (run) return;
      for (const issue of checkBuiltinInput(s.handler, obj(s.config), true)) fields[[`steps.${i}.config`, ...issue.path].join('.')] ??= `${s.handler}: ${issue.message}`;
      return;
    }
    if (input) {
      const merged = Object.assign({}, ...layers.map(([o]) => o).reverse()) as Record<string, unknown>;
      for (const issue of checkBuiltinInput(s.handler, merged, !!run)) {
        const key = issue.path[0] ?? '';
        const from = layers.find(([o]) => Object.hasOwn(o, key))?.[1] ?? run?.field ?? fieldOf(i);
        fields[[from, ...issue.path].join('.')] ??= `${label(s)}: ${issue.message}${Object.hasOwn(merged, key) ? savedNote(key) : ''}`;
      }
    }
    const schema = schemas.get(s.handler);
    if (schema) {
      // a module's payload is the job payload < step payload < run payload (its config is not merged in)
      const r = checkPayload(schema, { ...obj(jobPayload), ...obj(s.payload), ...(run ? obj(run.payload) : {}) }, run?.field ?? fieldOf(i));
      if (!r.ok) for (const [k, m] of Object.entries(r.fields)) fields[k] ??= m;
    }
  });
  return fields;
}

/**
 * Refuses, on save, steps whose settings a run could not use (stepInputFields).
 * @param steps the steps being saved, in input order
 * @param jobPayload the job-level payload each step's payload is merged over at run time
 *   (README "Jobs": `job.payload || step.payload || trigger payload`); the merged object is checked
 * @param fieldOf the field path of step i's payload (`steps.2.payload`, or `payload` for the one-step shorthand)
 * @throws DomainError('validation') with every bad field, e.g. `steps.0.payload.url`, `steps.0.config.proto`
 */
export async function assertPayloadsFit(
  db: Db,
  steps: readonly SavedStep[],
  jobPayload: Record<string, unknown> | null | undefined,
  fieldOf: (index: number) => string = (i) => `steps.${i}.payload`,
): Promise<void> {
  const schemas = await loadInputSchemas(db, steps.map((s) => s.handler));
  const fields = stepInputFields(steps, jobPayload, fieldOf, schemas);
  Object.assign(fields, await grpcProtoFields(steps, fields));
  refuse(fields);
}

/**
 * The `grpc` steps whose proto does not parse, or lacks the configured service or method: the
 * worker's own reading (lib/handlers/grpc-proto.ts), so it is refused at the field on save. Steps
 * whose config already has a bad field are left to that field's message.
 */
async function grpcProtoFields(steps: readonly SavedStep[], known: Record<string, string>): Promise<Record<string, string>> {
  const fields: Record<string, string> = {};
  const grpc = steps.map((s, i) => [s, i] as const).filter(([s, i]) => s.handler === 'grpc' && !Object.keys(known).some((k) => k.startsWith(`steps.${i}.config`)));
  if (grpc.length === 0) return fields;
  const pb = await loadProtobuf();
  for (const [s, i] of grpc) {
    const cfg = obj(s.config) as { proto: string; service: string; method: string };
    const problem = grpcProtoProblem(pb, cfg);
    if (problem) fields[`steps.${i}.${problem.field}`] = `grpc: ${problem.detail}`;
  }
  return fields;
}

/**
 * Refuses a trigger whose payload override leaves a step with settings it cannot run with: the
 * save's rule (stepInputFields) over the whole merge, which is known then (config < job payload <
 * step payload < run payload), so required fields are required too. Pure (no database).
 * @param steps the job's steps as saved
 * @param jobPayload the job payload
 * @param runs each run's payload override with its field path (`payload`, `runs.2.payload`); an
 *   empty override is checked like any other (the merge is still complete)
 * @param schemas handler modules' advertised input schemas (catalogue.ts loadInputSchemas), by name
 * @throws DomainError('validation') naming `<field>.<key>` (a key the override does not set is
 *   named there too: that is where it can be given)
 */
export function assertRunPayloadsFit(steps: readonly StepInput[], jobPayload: unknown, runs: readonly RunPayload[], schemas: ReadonlyMap<string, JsonSchema> = new Map()): void {
  const fields: Record<string, string> = {};
  for (const run of runs) Object.assign(fields, stepInputFields(steps, jobPayload, () => run.field, schemas, run));
  refuse(fields);
}
