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
  const fields: Record<string, string> = numberSettingFields(steps, jobPayload, fieldOf);
  const schemas = await loadInputSchemas(db, steps.map((s) => s.handler));
  steps.forEach((s, i) => {
    const schema = schemas.get(s.handler);
    if (!schema) return;
    const r = checkPayload(schema, { ...(jobPayload ?? {}), ...(s.payload ?? {}) }, fieldOf(i));
    if (!r.ok) Object.assign(fields, r.fields);
  });
  if (Object.keys(fields).length > 0) {
    const list = Object.entries(fields).map(([p, m]) => `${p}: ${m}`);
    throw new DomainError('validation', `The payload does not fit the handler's input: ${list.join('; ')}`, fields);
  }
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
      const from = ([
        [s.payload, fieldOf(i)],
        [jobPayload, 'payload'],
        [s.config, `steps.${i}.config`],
      ] as const).find(([obj]) => obj && Object.hasOwn(obj, rule.name));
      if (!from) continue;
      const checked = checkNumberSetting(from[0]![rule.name], rule);
      if ('problem' in checked) fields[`${from[1]}.${rule.name}`] = `${s.handler}: ${rule.name} ${checked.problem}`;
    }
  });
  return fields;
}

