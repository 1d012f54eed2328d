import type { z } from 'zod';
import type { $ZodRawIssue } from 'zod/v4/core';
import { DomainError } from '../errors.ts';
import { duplicateKeys, scanJson } from './json-guard.ts';
import { dictionary } from '../own-keys.ts';

/**
 * A field -> message map without a prototype: a client's field named `__proto__`
 * (JSON.parse makes it an own key) is then an entry like any other, not a
 * prototype assignment that would lose the error.
 */
function fieldMap(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/**
 * The same entries in an ordinary object: server actions cannot send an object
 * without a prototype to the browser. Spreading defines each key as an own
 * property, `__proto__` included (it does not assign the prototype).
 */
function plain(map: Record<string, string>): Record<string, string> {
  return { ...map };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `s` with every unpaired UTF-16 surrogate written as the six characters
 * `\uD800`: an error that names a client's bad key or value must itself be
 * valid Unicode, or strict JSON decoders (RFC 8259 §8.2) refuse the response.
 */
export function escapeLoneSurrogates(s: string): string {
  return s.replace(LONE_SURROGATE, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Dot path of an issue (`schedule.cron`, `steps.1.key`); '' (the whole input) becomes `_root`. Lone surrogates escaped. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.length ? escapeLoneSurrogates(path.map((p) => String(p)).join('.')) : '_root';
}

/**
 * zod error -> `{ [dotPath]: message }`, first message per path wins (forms
 * show one message per field). Union "no match" issues point at the union's path.
 * An unknown key of a strict object is reported at its own path (`edges.0.kind`:
 * "unknown field"), one entry per key.
 */
export function zodToFieldErrors(error: z.ZodError): Record<string, string> {
  const out = fieldMap();
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) {
        const p = issuePath([...issue.path, k]);
        if (!(p in out)) out[p] = 'Unknown field';
      }
      continue;
    }
    const p = issuePath(issue.path);
    if (!(p in out)) out[p] = escapeLoneSurrogates(issue.message);
  }
  return plain(out);
}

/**
 * Values PostgreSQL would refuse anywhere in a raw input (NUL characters and
 * unpaired surrogates in every string and object key, non-finite numbers, at
 * any depth, scanned without recursion in linear time) -> field errors at their
 * exact paths. Runs before every parse, so a bad value is a 400, never a 500.
 */
export function unstorableFieldErrors(data: unknown): Record<string, string> {
  const out = fieldMap();
  for (const p of scanJson(data).problems) out[issuePath(p.path)] ??= escapeLoneSurrogates(p.message);
  return plain(out);
}

/**
 * Object keys written twice in one object of a JSON text (`{"key":"a","key":"b"}`: JSON.parse
 * keeps the last and drops the first without a word) -> `{ key: 'Duplicate key' }` at their
 * exact paths. A request body is checked as text, before JSON.parse's value hides the first.
 */
export function duplicateKeyFieldErrors(text: string): Record<string, string> {
  const out = fieldMap();
  for (const p of duplicateKeys(text)) out[issuePath(p.path)] ??= p.message;
  return plain(out);
}

function summary(fields: Record<string, string>): string {
  const names = Object.keys(fields);
  const first = names[0]!;
  if (names.length > 1) return `Invalid input: ${names.join(', ')}`;
  return first === '_root' ? fields[first]! : `Invalid ${first}: ${fields[first]}`;
}

const NOUNS: Record<string, string> = { string: 'a text', number: 'a number', int: 'a whole number', boolean: 'true or false', object: 'an object', array: 'a list', date: 'a date' };
const UNITS: Record<string, [string, string]> = { string: [' character', ' characters'], array: [' item', ' items'], set: [' item', ' items'] };
const unitOf = (origin: string, n: number | bigint): string => UNITS[origin]?.[Number(n) === 1 ? 0 : 1] ?? '';

/**
 * Messages for zod's own checks where a schema gives none, in the words the forms use
 * ("Required", "Must be at most 1", "Must be asc or desc") instead of zod's defaults
 * ("Invalid input: expected string, received undefined", "Too big: expected number to be <=1",
 * 'Invalid option: expected one of "asc"|"desc"'). A message a schema
 * gives itself always wins: zod consults a per-parse map only for checks without one (zod
 * docs, "Customizing errors": the error precedence). undefined: zod's default.
 */
export function fieldMessage(issue: $ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'Required';
      return NOUNS[issue.expected] ? `Must be ${NOUNS[issue.expected]}` : undefined;
    case 'too_big': {
      if (issue.origin === 'date') return undefined;
      const n = `${issue.maximum}${unitOf(issue.origin, issue.maximum)}`;
      return issue.inclusive === false ? `Must be less than ${n}` : `Must be at most ${n}`;
    }
    case 'too_small': {
      if (issue.origin === 'date') return undefined;
      // an empty text where one is needed: a field left out says "Required" (invalid_type above)
      if (issue.origin === 'string' && Number(issue.minimum) === 1 && issue.inclusive !== false) return 'Must not be empty';
      const n = `${issue.minimum}${unitOf(issue.origin, issue.minimum)}`;
      return issue.inclusive === false ? `Must be more than ${n}` : `Must be at least ${n}`;
    }
    case 'invalid_value':
      // z.enum / z.literal: the allowed values in plain words ("Must be asc or desc") instead of
      // 'Invalid option: expected one of "asc"|"desc"'
      return issue.values.length ? `Must be ${orList(issue.values.map((v) => String(v)))}` : undefined;
    default:
      return undefined;
  }
}

/** `a`, `a or b`, `a, b or c`: a list of allowed values as the forms' messages write it. */
function orList(values: string[]): string {
  return values.length === 1 ? values[0]! : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

/** The field message of a query parameter no route takes (refuseUnknownQueryParameters, queryEncodingErrors). */
export const UNKNOWN_QUERY_PARAMETER = 'Unknown query parameter';

/**
 * Throws DomainError('validation') naming each query parameter of `query` that `accepted` does not
 * list ("Unknown query parameter"): a misspelt filter (`?stauts=failed`) would otherwise be
 * dropped and the answer read as filtered when it is not. `accepted` is the keys of the route's
 * query schema (`z.object(...).shape`); a route without one accepts none.
 */
export function refuseUnknownQueryParameters(query: Record<string, string>, accepted: readonly string[]): void {
  const fields = fieldMap();
  for (const k of Object.keys(query)) if (!accepted.includes(k)) fields[issuePath([k])] = UNKNOWN_QUERY_PARAMETER;
  if (Object.keys(fields).length) throw new DomainError('validation', summary(fields), plain(fields));
}

/** Schemas of the query parameters that take a list (`?status=a&status=b` or `?status=a,b`). */
const LIST_PARAMETERS = new WeakSet<object>();

/**
 * Marks `schema` as a list query parameter: given more than once, its values are joined with
 * commas (queryObject), which its schema splits. Every other parameter may be given once.
 */
export function listParameter<T extends z.ZodType>(schema: T): T {
  LIST_PARAMETERS.add(schema);
  return schema;
}

/** True when `schema` (through .optional() / .default() / .nullable()) was marked by listParameter. */
export function isListParameter(schema: unknown): boolean {
  for (let s = schema as { _zod?: { def?: { innerType?: unknown } } } | undefined; s && typeof s === 'object'; s = s._zod?.def?.innerType as typeof s) {
    if (LIST_PARAMETERS.has(s)) return true;
  }
  return false;
}

/**
 * The one place a query string becomes an object: `?a=1&b=2` -> `{ name: value }`. (A name or value
 * whose percent-encoding is not UTF-8 never gets here: Next turns those bytes into U+FFFD before a
 * route sees the URL, so the console's HTTP guard refuses them first, lib/infra/http-guard.ts with
 * queryEncodingErrors.) A list
 * parameter (listParameter) given more than once gets its values comma-joined; any other parameter
 * the route accepts given more than once is refused, since choosing one value silently (or joining
 * values that are not a list) answers a question that was not asked.
 * @param search the URL's raw query string (`url.search`, with or without the leading `?`)
 * @param shape the route's query schema shape (its keys are the accepted parameters)
 * @throws DomainError('validation') naming each such parameter: "Given more than once …"
 */
export function queryObject(search: string, shape: Record<string, unknown> = {}): Record<string, string> {
  // a parameter may be named `__proto__` or `constructor`: own keys only (lib/own-keys.ts), so the
  // route's schema sees it and refuses it as unknown
  const out = dictionary<string>();
  const fields = fieldMap();
  for (const [k, v] of new URLSearchParams(search)) {
    if (!Object.hasOwn(out, k)) out[k] = v;
    else if (Object.hasOwn(shape, k) && !isListParameter(shape[k])) fields[issuePath([k])] = 'Given more than once: give it once (it is not a list parameter)';
    else out[k] = `${out[k]},${v}`;
  }
  if (Object.keys(fields).length) throw new DomainError('validation', summary(fields), plain(fields));
  return out;
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Percent-decodes as URLSearchParams does (`+` is a space, a `%` not followed by two hex digits stays
 * as it is) and reads the bytes as UTF-8; null when they are not UTF-8.
 */
function strictFormDecode(text: string): string | null {
  if (!text.includes('%')) return text.replaceAll('+', ' ');
  const bytes = Buffer.from(text.replaceAll('+', ' '), 'utf8');
  const out: number[] = [];
  const hex = (b: number | undefined) => b !== undefined && /^[0-9a-fA-F]$/.test(String.fromCharCode(b));
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x25 && hex(bytes[i + 1]) && hex(bytes[i + 2])) {
      out.push(parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16));
      i += 2;
    } else out.push(bytes[i]!);
  }
  try {
    return STRICT_UTF8.decode(Uint8Array.from(out));
  } catch {
    return null;
  }
}

/**
 * Field errors for the query parameters whose name or value does not percent-decode to UTF-8
 * (`%ED%A0%80`, `%FF`): URLSearchParams would silently turn those bytes into U+FFFD, and a search
 * would then match something not asked for; and for a parameter named `__proto__`, which no route
 * takes and which Next.js drops before a route sees it (lib/own-keys.ts). Empty when the query
 * string is well formed.
 * @param search a raw query string, with or without the leading `?` (WHATWG URL application/x-www-form-urlencoded rules)
 */
export function queryEncodingErrors(search: string): Record<string, string> {
  const fields = fieldMap();
  for (const pair of search.replace(/^\?/, '').split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = strictFormDecode(rawName);
    if (name === null) {
      fields[issuePath([rawName.slice(0, 200)])] = 'This parameter name is not valid UTF-8 once percent-decoded: encode its text as UTF-8 bytes (%C3%A9 for é)';
    } else if (eq >= 0 && strictFormDecode(pair.slice(eq + 1)) === null) {
      fields[issuePath([name])] = 'Not valid UTF-8 once percent-decoded: encode the text as UTF-8 bytes (%C3%A9 for é)';
    } else if (name === '__proto__') {
      // Next.js drops this name from the query before a route or page sees it (its query object is
      // a plain object), so the unknown-parameter check never could: refused here instead
      fields[issuePath([name])] = UNKNOWN_QUERY_PARAMETER;
    }
  }
  return fields;
}

/** `fields` followed by the entries of `more` for fields it does not name (its message wins). */
export function withFieldErrors(fields: Record<string, string>, more: Record<string, string>): Record<string, string> {
  const out = Object.assign(fieldMap(), fields);
  for (const [p, m] of Object.entries(more)) out[p] ??= m;
  return plain(out);
}

/** The 400 of these field errors (at least one): DomainError('validation', summary, fields). */
export function validationError(fields: Record<string, string>): DomainError {
  const f = plain(Object.assign(fieldMap(), fields));
  return new DomainError('validation', summary(f), f);
}

/**
 * Parses `data` or throws DomainError('validation', summary, fields) (HTTP 400).
 * `alsoWrong` gives the field errors of rules the schema cannot check by itself (a job's schedule
 * that would never fire needs the clock): asked only when the parse fails, so that they come in
 * the same 400; the schema's message wins on a field both name.
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, data: unknown, alsoWrong?: () => Record<string, string>): z.output<S> {
  const r = parseFields(schema, data);
  if (r.ok) return r.data;
  throw validationError(withFieldErrors(r.fields, alsoWrong?.() ?? {}));
}

/**
 * `data` parsed, or the field errors parseOrThrow would report for it (unstorable values and the
 * schema's errors, at least one).
 */
export function parseFields<S extends z.ZodType>(schema: S, data: unknown): { ok: true; data: z.output<S> } | { ok: false; fields: Record<string, string> } {
  const nul = unstorableFieldErrors(data);
  const r = schema.safeParse(data, { error: fieldMessage });
  if (r.success && !Object.keys(nul).length) return { ok: true, data: r.data };
  return { ok: false, fields: plain(Object.assign(fieldMap(), r.success ? {} : zodToFieldErrors(r.error), nul)) };
}

/**
 * The field errors parseOrThrow would report for `data` (`{}` when it parses): a form checks its
 * whole input with the server's schema before sending, so that every bad field shows at once.
 */
export function fieldErrorsOf<S extends z.ZodType>(schema: S, data: unknown): Record<string, string> {
  const r = parseFields(schema, data);
  return r.ok ? {} : r.fields;
}
