/**
 * Guards for untrusted JSON (lib/api/schemas.ts, lib/api/validation.ts). PostgreSQL
 * refuses the NUL character (U+0000) and unpaired UTF-16 surrogates (which JSON's
 * `\ud800` escapes can produce) in `text` and `jsonb`, and a JSON number beyond
 * ±1.8e308 parses to Infinity, which JSON.stringify would store as null. Deeply
 * nested values blow the stack of recursive code (JSON.stringify, merges), so
 * everything here is iterative and linear in the size of the value: a
 * 100,000-level value is measured in milliseconds, not recursed into.
 */

/** Field message for a string (or object key) holding U+0000. */
export const NUL_MESSAGE = 'Must not contain the NUL character (\\u0000)';
/** Field message for a string (or object key) holding half of a UTF-16 surrogate pair. */
export const SURROGATE_MESSAGE = 'Must not contain an unpaired UTF-16 surrogate (\\ud800-\\udfff)';
/** Field message for a number JSON.parse turned into Infinity. */
export const NON_FINITE_MESSAGE = 'Must be a finite number (at most ±1.7976931348623157e308)';
/** Field message for an object key `__proto__`: JSON.parse keeps it as a key, but copying the object would drop it. */
export const PROTO_KEY_MESSAGE = 'Field name __proto__ is not allowed';
/** Field message for bytes that are not UTF-8 (a request body, an uploaded file). */
export const NOT_UTF8_MESSAGE = 'Not valid UTF-8';

/**
 * `bytes` as text, or null when they are not valid UTF-8. A lenient decoder (Buffer's
 * toString, Blob.text()) would put U+FFFD in place of each bad byte and the text would be
 * stored changed without a word; this one refuses it (TextDecoder `fatal`, WHATWG Encoding).
 * One leading UTF-8 byte order mark (EF BB BF) is dropped, the rest kept as it is: RFC 8259 §8.1
 * lets a JSON parser ignore it rather than refuse it, and editors on Windows write it at the start of
 * files (a crontab, a JSON body saved then sent with `curl -d @file`). A second one is text, which
 * JSON.parse refuses. So a REST body with the mark is the same request as the body without it
 * (README "Input rules"; lib/api/idempotency.ts requestHash hashes the decoded text).
 */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}
/** Deepest nesting accepted in a free-form JSON value (payload, config). */
export const MAX_JSON_DEPTH = 64;

export type JsonProblem = { path: (string | number)[]; message: string };

export const hasNul = (s: string): boolean => s.includes('\u0000');

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Whether `s` holds half of a surrogate pair (not valid Unicode: PostgreSQL refuses it). */
export const hasLoneSurrogate = (s: string): boolean => LONE_SURROGATE.test(s);

/** The first reason PostgreSQL would refuse `s` as text, or null. */
export function unstorableString(s: string): string | null {
  if (hasNul(s)) return NUL_MESSAGE;
  if (hasLoneSurrogate(s)) return SURROGATE_MESSAGE;
  return null;
}

function isPlainContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  if (Array.isArray(v)) return true;
  if (!v || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A scanned node: its parent and key, so a path is built only for a node that has a problem. */
interface Node { v: unknown; parent: Node | null; key: string | number; depth: number }

function pathOf(n: Node): (string | number)[] {
  const path: (string | number)[] = [];
  for (let c: Node | null = n; c && c.parent; c = c.parent) path.push(c.key);
  return path.reverse();
}

/**
 * Scans `value` without recursion, in time linear in its size: every string and
 * object key PostgreSQL would refuse (NUL, unpaired surrogate), every key
 * `__proto__` (lost when the object is copied), and every non-finite number (at most `limit` reported, path relative to `value`), and
 * whether containers nest deeper than `maxDepth` (the root object/array is level
 * 1; deeper levels are not scanned).
 */
export function scanJson(value: unknown, opts: { maxDepth?: number; limit?: number } = {}): { problems: JsonProblem[]; tooDeep: boolean } {
  const maxDepth = opts.maxDepth ?? Infinity;
  const limit = opts.limit ?? 20;
  const problems: JsonProblem[] = [];
  let tooDeep = false;
  const stack: Node[] = [{ v: value, parent: null, key: '', depth: 0 }];
  while (stack.length && problems.length < limit) {
    const node = stack.pop()!;
    const { v, depth } = node;
    if (typeof v === 'string') {
      const why = unstorableString(v);
      if (why) problems.push({ path: pathOf(node), message: why });
      continue;
    }
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) problems.push({ path: pathOf(node), message: NON_FINITE_MESSAGE });
      continue;
    }
    if (!isPlainContainer(v)) continue;
    if (depth + 1 > maxDepth) {
      tooDeep = true;
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], parent: node, key: i, depth: depth + 1 });
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        const child: Node = { v: v[k], parent: node, key: k, depth: depth + 1 };
        const why = unstorableString(k);
        if (why) problems.push({ path: pathOf(child), message: `Field name ${why.charAt(0).toLowerCase()}${why.slice(1)}` });
        else if (k === '__proto__') problems.push({ path: pathOf(child), message: PROTO_KEY_MESSAGE });
        stack.push(child);
      }
    }
  }
  return { problems, tooDeep };
}

/** Order-insensitive deep equality of JSON-like values (depth is bounded by the schemas). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * The one canonical text of a JSON-like value: every object's keys in code-unit order, no spacing,
 * so that equal values give equal text (what an update that changes nothing and an Idempotency-Key
 * replay compare, lib/api/idempotency.ts requestHash). A key whose value is undefined is left out and
 * a Date is its ISO text, as JSON.stringify writes them; a non-finite number is written `Infinity`,
 * `-Infinity` or `NaN`, which no JSON value writes, so that it never equals the `null` JSON.stringify
 * would make of it. Recursive: depth is bounded by the schemas and MAX_JSON_DEPTH.
 */
export function canonicalJson(v: unknown): string {
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

/** Field message for an object key written twice in the same object of a JSON text. */
export const DUPLICATE_KEY_MESSAGE = 'Duplicate key';

/** An open object or array while scanning JSON text: its keys so far (objects) and where the scan is in it. */
interface Open { keys: Set<string> | null; at: string | number; object: boolean; named: boolean }

/**
 * Every object key written twice in the same object of `text`, a JSON text that JSON.parse
 * accepted (JSON.parse keeps the last value and drops the first without a word, so a
 * `{"key":"a","key":"b"}` would silently mean `b`), at its path (at most `limit`). A key is
 * compared by its value, escapes decoded (`"a"` and `"\u0061"` are the same key). One pass
 * over the text without recursion, a set per object only once it has a second key: linear in
 * the length of the text, however deep or wide.
 */
export function duplicateKeys(text: string, limit = 20): JsonProblem[] {
  const problems: JsonProblem[] = [];
  const open: Open[] = [];
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n && problems.length < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      open.push({ keys: null, at: '', object: true, named: false });
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      open.push({ keys: null, at: 0, object: false, named: false });
      expectKey = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      open.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const top = open[open.length - 1]!;
      if (top.object) expectKey = true;
      else (top.at as number)++;
    } else if (c === 0x22 /* " */) {
      // the closing quote: the first one not escaped (preceded by an even number of backslashes)
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
      }
      if (expectKey) {
        const top = open[open.length - 1]!;
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (top.named) {
          top.keys ??= new Set([top.at as string]);
          if (top.keys.has(key)) problems.push({ path: [...open.slice(0, -1).map((o) => o.at), key], message: DUPLICATE_KEY_MESSAGE });
          else top.keys.add(key);
        }
        top.at = key;
        top.named = true;
        expectKey = false;
      }
      i = end;
    }
  }
  return problems;
}

/**
 * What the REST API would refuse in `text` (a JSON text JSON.parse accepted) that a console JSON box
 * (payload, config, Run now) must say before sending, because it would be lost on the way: the first
 * key written twice in one object (`Duplicate key: a.b`; JSON.parse keeps the last value), or a key
 * `__proto__` (`Field name __proto__ is not allowed: a.__proto__`; a server action's arguments are
 * copied, which drops it). Null when there is neither. The other refusals (NUL, unpaired surrogates)
 * reach the server and are named there.
 */
export function jsonTextProblem(text: string): string | null {
  const d = duplicateKeys(text, 1)[0];
  if (d) return `${DUPLICATE_KEY_MESSAGE}: ${d.path.join('.')}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const proto = scanJson(value, { limit: 100 }).problems.find((p) => p.message === PROTO_KEY_MESSAGE);
  return proto ? `${PROTO_KEY_MESSAGE}: ${proto.path.join('.')}` : null;
}
