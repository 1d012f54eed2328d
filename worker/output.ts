/**
 * Making whatever a handler produced storable (H1 audit): a task's output and
 * error end up in `tasks.output` (jsonb), `tasks.error` (text) and
 * `tasks.exit_code` (int). PostgreSQL refuses `\u0000` in jsonb and a NUL byte
 * in text, and refuses a lone UTF-16 surrogate escape in jsonb; a refused
 * completion would be retried, then left to the reaper, which runs the task
 * again — a loop. So the runner sanitises before completing:
 *
 * - U+0000 and lone surrogates in strings (values and keys) become U+FFFD;
 * - an output whose JSON is above TASK_OUTPUT_CAP_BYTES is replaced by
 *   `{ outputTruncated: true, originalBytes, preview }` (preview = the first
 *   TASK_OUTPUT_PREVIEW_BYTES of the JSON text);
 * - error messages are strings of at most TASK_ERROR_CAP_BYTES, whatever was thrown;
 * - exit codes outside int4 are dropped.
 *
 * The attempt's secret values (lib/secrets/secret-references.ts maskedTexts) are masked before any
 * cut: a cut inside a value would keep its first part, which no longer matches it.
 */
import stripAnsi from 'strip-ansi';
import { capText } from './handlers/types.ts';
import { dictionary } from '../lib/own-keys.ts';
import { jsonEscaped, maskSecrets, maskSecretsInJson } from '../lib/secrets/secret-references.ts';

export const TASK_OUTPUT_CAP_BYTES = 1024 * 1024;
export const TASK_OUTPUT_PREVIEW_BYTES = 64 * 1024;
export const TASK_ERROR_CAP_BYTES = 8 * 1024;

// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replaces U+0000 and lone surrogates with U+FFFD. */
export function storableString(s: string): string {
  return s.replace(UNSTORABLE, '\uFFFD');
}

/** JSON round trip (bigint -> string); never throws: an unserialisable value becomes a descriptive string. */
export function jsonSafe(value: unknown): unknown {
  try {
    return jsonRoundTrip(value);
  } catch (err) {
    return `[unserialisable output: ${describeError(err)}]`;
  }
}

/** JSON round trip (bigint -> string, undefined -> null); throws what JSON.stringify throws (a cycle, a throwing toJSON). */
function jsonRoundTrip(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  return text === undefined ? null : JSON.parse(text);
}

/**
 * JSON text of `value` (bigint as a string, undefined as null); throws what JSON.stringify throws (a cycle, a
 * throwing toJSON). A replacer costs a call per value, so it is used only once a bigint made the plain call throw.
 */
function jsonText(value: unknown): string {
  if (value === undefined) return 'null';
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (err) {
    if (!(err instanceof TypeError && /BigInt/i.test(err.message))) throw err;
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
  }
}

/** Deep copy of a JSON value with every string (and key) made storable; `changed` tells whether anything was replaced. */
export function sanitizeJson(value: unknown): { value: unknown; changed: boolean } {
  let changed = false;
  const fix = (s: string): string => {
    const t = storableString(s);
    if (t !== s) changed = true;
    return t;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return fix(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      // a handler's key may be `__proto__`: kept as a key like any other (lib/own-keys.ts)
      const out = dictionary<unknown>();
      for (const [k, x] of Object.entries(v)) out[fix(k)] = walk(x);
      return out;
    }
    return v;
  };
  const out = walk(value);
  return { value: out, changed };
}

/**
 * The output as it will be stored: JSON-safe, sanitised, size-capped.
 * `notes` lists what was changed (for the worker log); `unserialisable` says why a value could not be made
 * JSON at all (a cycle, a throwing toJSON), when `output` is only a marker string in its place.
 */
export function storableOutput(value: unknown, cap = TASK_OUTPUT_CAP_BYTES, masked: readonly string[] = []): { output: unknown; notes: string[]; unserialisable?: string } {
  const notes: string[] = [];
  let text: string;
  try {
    text = jsonText(value);
  } catch (err) {
    const why = describeError(err);
    return { output: `[unserialisable output: ${why}]`, notes: ['unserialisable'], unserialisable: why };
  }
  // Measured before anything else: an output over the cap is stored as a preview of this text, so
  // parsing and walking it whole (seconds for millions of values, the worker's event loop blocked
  // meanwhile, its heartbeat included) would be spent on a value that is then thrown away. The JSON
  // text holds U+0000 and lone surrogates as escapes, which a jsonb string stores as they are.
  const bytes = text.length * 3 <= cap ? text.length : Buffer.byteLength(text, 'utf8');
  if (bytes > cap) {
    // the preview is text, never parsed again: the values are masked in it as JSON writes them, before the cut
    if (masked.length) text = maskSecrets(text, jsonEscaped(masked));
    notes.push(`output of ${bytes} bytes truncated to a ${TASK_OUTPUT_PREVIEW_BYTES}-byte preview (cap ${cap})`);
    return {
      output: { outputTruncated: true, originalBytes: bytes, preview: storableString(capText(text, Math.min(cap, TASK_OUTPUT_PREVIEW_BYTES)).text) },
      notes,
    };
  }
  // sanitising and masking only shorten the text (a 6-byte escape becomes the 3-byte U+FFFD, a value of 4
  // characters or more `***`): it stays under the cap
  const { value: clean, changed } = sanitizeJson(JSON.parse(maskSecretsInJson(text, masked)));
  if (changed) notes.push('replaced U+0000 / lone surrogates with U+FFFD (PostgreSQL cannot store them)');
  return { output: clean, notes };
}

/** Causes (Error `cause`) read into a task error at most. */
const MAX_CAUSES = 3;

/**
 * A readable, storable message for anything thrown (Error, string, null, objects with throwing getters…),
 * followed by its causes (`new Error(msg, { cause })`, up to MAX_CAUSES: "outer: caused by: inner"), at most
 * TASK_ERROR_CAP_BYTES, a longer one cut with a note saying so, with `masked` (an attempt's secret values) masked before the cut.
 */
export function describeError(e: unknown, masked: readonly string[] = []): string {
  let text = messageOf(e);
  let cause = causeOf(e);
  for (let i = 0; i < MAX_CAUSES && cause !== undefined; i++) {
    text += `: caused by: ${messageOf(cause)}`;
    cause = causeOf(cause);
  }
  // terminal colour codes (a program's stderr in a shell error, a library's coloured message) are for a
  // terminal: an error is read in the console, alarms and emails, where they would show as `[31m`
  const plain = maskSecrets(stripAnsi(text), masked);
  const note = ' … [cut: the whole message is longer than 8 KiB]';
  const capped = capText(plain, TASK_ERROR_CAP_BYTES);
  return storableString(capped.truncated ? capText(plain, TASK_ERROR_CAP_BYTES - Buffer.byteLength(note)).text + note : capped.text);
}

function causeOf(e: unknown): unknown {
  try {
    return e instanceof Error && e.cause !== undefined && e.cause !== e ? e.cause : undefined;
  } catch {
    return undefined;
  }
}

/** What was thrown, in words, followed by the inner errors of an AggregateError (aggregatedOf). */
function messageOf(e: unknown): string {
  return ownMessageOf(e) + aggregatedOf(e);
}

/** What was thrown, in words, without the inner errors of an AggregateError. */
function ownMessageOf(e: unknown): string {
  let msg: string;
  try {
    const m = (e as { message?: unknown } | null | undefined)?.message;
    if (typeof m === 'string' && m) msg = m;
    else if (typeof e === 'string') msg = e;
    // an Error without a message (`throw new TypeError()`, `new AggregateError(errors)`) is still an
    // Error: named by its class, not JSON-dumped as `{}` as if it were some other value
    else if (e instanceof Error) msg = `${typeof e.name === 'string' && e.name ? e.name : 'Error'} (no message)`;
    else if (e === undefined || e === null) msg = `handler threw ${String(e)}`;
    else {
      try {
        msg = `handler threw a non-Error: ${JSON.stringify(e) ?? String(e)}`;
      } catch {
        msg = `handler threw a non-Error: ${String(e)}`;
      }
    }
  } catch {
    msg = 'handler threw a value that cannot be described';
  }
  return msg;
}

/** Errors of an AggregateError (`Promise.any`, `new AggregateError`) read into a task error at most. */
const MAX_AGGREGATED = 5;

/**
 * The inner errors of an AggregateError, as ` (N errors: a; b; …)`, else ''. `Promise.any` rejects with
 * "All promises were rejected" alone: what each promise failed with is only in `errors`.
 */
function aggregatedOf(e: unknown): string {
  try {
    if (!(e instanceof AggregateError) || !Array.isArray(e.errors) || e.errors.length === 0) return '';
    // a nested AggregateError by its own message only, so that the text stays bounded
    const shown = e.errors.slice(0, MAX_AGGREGATED).map((x: unknown) => (x instanceof AggregateError ? ownMessageOf(x) : messageOf(x)));
    const more = e.errors.length > MAX_AGGREGATED ? `; … ${e.errors.length - MAX_AGGREGATED} more` : '';
    return ` (${e.errors.length} error${e.errors.length === 1 ? '' : 's'}: ${shown.join('; ')}${more})`;
  } catch {
    return '';
  }
}

/** An exit code fit for an int4 column, else undefined. */
export function storableExitCode(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31 ? v : undefined;
}
