/**
 * The arguments of a task log call (`ctx.log.info(…)`), in either order. Tickflow's order is
 * `(text, fields?)` (worker/handlers/types.ts TaskLog); pino's, which Node developers write from habit
 * and which Tickflow's own process logger uses, is `(fields, text?)` or `(error, text?)`. A handler
 * written in plain JavaScript gets no compiler to tell it the order, and its line was stored as
 * "[object Object]" with the text as its fields. Either order now stores the same line.
 */
import type { JsonObject } from './handlers/types.ts';

const isPlainObject = (v: unknown): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Error);

/**
 * The text and fields of a call: `(text, fields?)` as given; `(fields, text?)` and `(error, text?)` (pino) read
 * as `(text, fields)`, the error as the `err` field and, with no text, its message as the text. Fields that are not
 * an object (a number, an array) are kept as `{ value }`; a text that is not a string is written with String().
 * Never throws.
 */
export function taskLogArguments(first: unknown, second?: unknown): { text: string; fields?: JsonObject } {
  try {
    if (typeof first === 'string') return { text: first, ...fieldsOf(second) };
    if (first instanceof Error) {
      return typeof second === 'string' ? { text: second, fields: { err: first } } : { text: safeString(first.message || first.name), fields: { err: first } };
    }
    if (isPlainObject(first)) return { text: typeof second === 'string' ? second : '', fields: first };
    return { text: safeString(first), ...fieldsOf(second) };
  } catch {
    // an Error whose message getter throws, a Proxy: a log call never throws
    return { text: UNWRITABLE };
  }
}

const UNWRITABLE = '(a value that cannot be written as text)';

function fieldsOf(v: unknown): { fields?: JsonObject } {
  if (v === undefined || v === null) return {};
  if (isPlainObject(v) || v instanceof Error) return { fields: v as JsonObject };
  return { fields: { value: v } };
}

/** String(v), or a placeholder when that throws (a Proxy, a throwing toString): a log call never throws. */
export function safeString(v: unknown): string {
  try {
    return String(v);
  } catch {
    return UNWRITABLE;
  }
}
