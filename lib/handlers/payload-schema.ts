/**
 * A handler's advertised input JSON Schema as a validator, shared by the domain (a job
 * save refuses a payload that does not fit, lib/handlers/check-payloads.ts) and the
 * console's schema form (components/handlers/schema-form.tsx), so both judge a payload
 * exactly the same way. The worker judges with the handler's own zod schema; the JSON
 * Schema it advertised was made from that schema by zod's toJSONSchema
 * (worker/handlers/function-executor.ts), and zod's fromJSONSchema rebuilds it here.
 * Pure: no database, no Node APIs (runs in the browser too).
 */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

export type PayloadCheck = { ok: true; value: unknown } | { ok: false; fields: Record<string, string> };

const built = new Map<string, z.ZodType | null>();

/**
 * zod schema rebuilt from `schema` (cached by its JSON text), or null when zod cannot
 * rebuild it (then callers skip the check; the worker still validates).
 */
export function validatorOf(schema: JsonSchema): z.ZodType | null {
  const key = JSON.stringify(schema);
  if (built.has(key)) return built.get(key)!;
  let v: z.ZodType | null;
  try {
    v = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    v = null;
  }
  if (built.size > 500) built.clear();
  built.set(key, v);
  return v;
}

/**
 * Checks `payload` against `schema`.
 * @param prefix the field path of the payload (`payload`, `steps.2.payload`); issues are
 *   reported at `prefix.<path inside the payload>` (`steps.2.payload.items.0.id`)
 * @returns ok with the parsed value (defaults applied), or the bad fields (first message per path);
 *   ok when the schema cannot be rebuilt
 */
export function checkPayload(schema: JsonSchema, payload: unknown, prefix: string): PayloadCheck {
  const v = validatorOf(schema);
  if (!v) return { ok: true, value: payload };
  const r = v.safeParse(payload);
  if (r.success) return { ok: true, value: r.data };
  const fields: Record<string, string> = {};
  for (const issue of r.error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
    for (const p of keys) {
      const path = [prefix, ...p.map(String)].filter((s) => s !== '').join('.');
      if (!(path in fields)) fields[path] = issue.code === 'unrecognized_keys' ? 'Unknown field' : issue.message;
    }
  }
  return { ok: false, fields };
}
