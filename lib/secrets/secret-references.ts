/**
 * Worker secrets (docs/security.md "Worker secrets"): a step's config or payload names a secret as
 * `${{ secrets.NAME }}` inside any string value; the worker that runs the attempt puts the value it
 * holds in its place just before the handler is called (worker/task-secrets.ts), and masks it in what
 * the attempt leaves behind (task log lines, output, error). The job, its versions and its tasks keep
 * the reference, so no view of a job shows a value, and a value never reaches the database.
 *
 * Pure: no environment, no database. The console and lib/jobs/handler-permissions.ts use it to see
 * which secrets a step names.
 */
import { dictionary } from '../own-keys.ts';

/** A secret's name: what follows `secrets.` in a reference, and the suffix of its TICKFLOW_SECRET_ variable. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** One reference inside a string; spaces inside the braces are optional, as in CI templates. */
const REFERENCE = /\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]{0,127})\s*\}\}/g;
/** Anything that starts like a reference; one that REFERENCE does not read is refused on save. */
const REFERENCE_START = /\$\{\{\s*secrets\b/g;

/**
 * The deepest level of a settings or output value that is read: the walk that finds references, the one that
 * resolves them and the one that masks values all stop here, so what the permission check sees is what
 * the worker resolves (a deeper part is masked whole when it shows a value: maskSecretsDeep).
 */
const MAX_DEPTH = 64;

/** The shortest value that is masked: shorter ones (`1`, `yes`) would mask ordinary words and numbers. */
export const MIN_MASKED_LENGTH = 4;

/** Calls `visit` with every string value (not key) in a JSON-like value, with its path. */
function eachString(value: unknown, path: string, visit: (s: string, path: string) => void, depth = 0): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'string') visit(value, path);
  else if (Array.isArray(value)) value.forEach((v, i) => eachString(v, path ? `${path}.${i}` : String(i), visit, depth + 1));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) eachString(v, path ? `${path}.${k}` : k, visit, depth + 1);
  }
}

/** The secret names `value` refers to (string values at any depth), sorted, each once. */
export function secretNamesIn(...values: unknown[]): string[] {
  const names = new Set<string>();
  for (const value of values) {
    eachString(value, '', (s) => {
      if (!s.includes('${{')) return;
      for (const m of s.matchAll(REFERENCE)) names.add(m[1]!);
    });
  }
  return [...names].sort();
}

/**
 * The first string in `value` that starts a reference that is not one (`${{ secrets.my-key }}`,
 * `${{ secrets.X }`), as `{ path, text }` (path: dotted keys and indexes from `value`), or null.
 * Such text would be sent as it is, so saving it is refused instead.
 */
export function malformedSecretReference(value: unknown): { path: string; text: string } | null {
  let found: { path: string; text: string } | null = null;
  eachString(value, '', (s, path) => {
    if (found || !s.includes('${{')) return;
    const starts = [...s.matchAll(REFERENCE_START)].length;
    const references = [...s.matchAll(REFERENCE)].length;
    if (starts !== references) found = { path, text: s.length > 80 ? `${s.slice(0, 80)}…` : s };
  });
  return found;
}

/**
 * `text` with each reference replaced by the word `secret`: what a check of a setting's form (an URL)
 * reads on save, where the value is not known; the worker checks the setting again with the value.
 */
export function withSecretPlaceholders(text: string): string {
  return text.includes('${{') ? text.replace(REFERENCE, 'secret') : text;
}

/** A secret a reference names that the resolving worker does not hold. */
export class MissingSecretError extends Error {
  constructor(readonly names: readonly string[]) {
    super(`secret${names.length > 1 ? 's' : ''} ${names.join(', ')} not set on this worker`);
    this.name = 'MissingSecretError';
  }
}

/**
 * `value` with every reference replaced by its secret's value (a deep copy where anything changed;
 * the same object when nothing refers to a secret).
 * @param lookup the worker's secrets by name
 * @throws MissingSecretError naming every referenced secret `lookup` lacks
 */
export function resolveSecretReferences<T>(value: T, lookup: ReadonlyMap<string, string>): T {
  const missing = new Set<string>();
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH) return v;
    if (typeof v === 'string') {
      if (!v.includes('${{')) return v;
      return v.replace(REFERENCE, (whole, name: string) => {
        const secret = lookup.get(name);
        if (secret === undefined) {
          missing.add(name);
          return whole;
        }
        return secret;
      });
    }
    if (Array.isArray(v)) {
      const out = v.map((x) => walk(x, depth + 1));
      return out.every((x, i) => x === v[i]) ? v : out;
    }
    if (v && typeof v === 'object') {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const y = walk(x, depth + 1);
        if (y !== x) changed = true;
        // defined, not assigned: an own `__proto__` key (JSON.parse makes one) stays a key, not the copy's prototype
        Object.defineProperty(out, k, { value: y, enumerable: true, writable: true, configurable: true });
      }
      return changed ? out : v;
    }
    return v;
  };
  const out = walk(value, 0) as T;
  if (missing.size) throw new MissingSecretError([...missing].sort());
  return out;
}

/**
 * `value` as a URL's path writes it (the WHATWG path percent-encode set: controls, space, `"`, `#`,
 * `<`, `>`, `?`, `` ` ``, `{`, `}`, and every character past `~` as its UTF-8 bytes), which is how the
 * `http` executor's log line and errors show a path that holds it (worker/handlers/http.ts).
 */
function urlPathForm(value: string): string {
  // eslint-disable-next-line no-control-regex
  return [...value].map((c) => (/[\u0000-\u0020"#<>?`{}]|[^\u0000-\u007e]/u.test(c) ? uriComponent(c) : c)).join('');
}

/** encodeURIComponent, with a lone surrogate (which it refuses) as U+FFFD, as a URL writes it. */
function uriComponent(value: string): string {
  return encodeURIComponent(value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));
}

/**
 * Where to cut `text` near `at` (a UTF-16 index) without splitting a secret value: `at`, or the start
 * of a value of `masked` (maskedTexts) that would run across it, or of one whose first part ends `text`
 * across it (its rest may follow in the next chunk of a stream). A line cut inside a value would leave
 * each part readable and neither masked (worker/handlers/shell.ts LineSplitter). `at` when a value
 * starts at 0 (one longer than the piece cannot be kept whole).
 */
export function cutOutsideSecrets(text: string, at: number, masked: readonly string[]): number {
  let cut = at;
  // moving the cut back may put it inside another value: again until no value runs across it
  for (let moved = true; moved && cut > 0; ) {
    moved = false;
    for (const m of masked) {
      for (let start = Math.max(0, cut - m.length + 1); start < cut; start++) {
        const part = text.slice(start, start + m.length);
        // the value itself across the cut, or its beginning at the end of the text seen so far
        if (part === m || (start + m.length > text.length && m.startsWith(part))) {
          cut = start;
          moved = true;
          break;
        }
      }
    }
  }
  return cut > 0 ? cut : at;
}

/**
 * What to mask for a set of secret values: each value of MIN_MASKED_LENGTH characters or more, as given
 * and as a URL writes it (urlPathForm, uriComponent: a value in a request's path or query), and
 * each line of such length of a value that has several (a key file printed line by line), longest first.
 */
export function maskedTexts(values: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const v of values) {
    if (v.length >= MIN_MASKED_LENGTH) {
      out.add(v);
      out.add(urlPathForm(v));
      out.add(uriComponent(v));
    }
    if (v.includes('\n')) for (const line of v.split(/\r?\n/)) if (line.trim().length >= MIN_MASKED_LENGTH) out.add(line.trim());
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** The mask that stands for a secret in what an attempt leaves behind. */
export const SECRET_MASK = '***';

/**
 * `text` with every occurrence of each of `masked` (maskedTexts) replaced by SECRET_MASK. The places
 * are all found in the text as given, then each run of overlapping or adjacent places becomes one
 * mask: masking one value first would break an occurrence of another that overlaps it (`…abcd` +
 * `dxyz…` sharing a `d`), and leave all of that one but its first characters.
 */
export function maskSecrets(text: string, masked: readonly string[]): string {
  const spans: [number, number][] = [];
  for (const m of masked) {
    for (let at = text.indexOf(m); at >= 0; at = text.indexOf(m, at + 1)) spans.push([at, at + m.length]);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let done = 0;
  let [start, end] = spans[0]!;
  for (const [s, e] of spans) {
    if (s <= end) end = Math.max(end, e);
    else {
      out += text.slice(done, start) + SECRET_MASK;
      done = end;
      [start, end] = [s, e];
    }
  }
  return out + text.slice(done, start) + SECRET_MASK + text.slice(end);
}

/** `masked` as JSON.stringify writes each inside a string (`"` as `\"`, a line break as `\n`). */
export function jsonEscaped(masked: readonly string[]): string[] {
  return masked.map((m) => JSON.stringify(m).slice(1, -1));
}

/** Whether JSON text shows one of `masked` (jsonEscaped). */
function jsonShowsSecret(json: string, masked: readonly string[]): boolean {
  return jsonEscaped(masked).some((m) => json.includes(m));
}

/**
 * A JSON-like value (plain or null-prototype objects, arrays, scalars) with every string, values and
 * keys, masked (maskSecrets); the same value when `masked` is empty. A part nested deeper than
 * MAX_DEPTH is kept only when its JSON shows none of the values, else it becomes SECRET_MASK whole:
 * left as it is, a value nested deep enough would pass unmasked.
 */
export function maskSecretsDeep<T>(value: T, masked: readonly string[]): T {
  if (masked.length === 0) return value;
  const walk = (v: unknown, depth: number): unknown => {
    if (depth > MAX_DEPTH) {
      let json: string | undefined;
      try {
        json = JSON.stringify(v);
      } catch {
        return SECRET_MASK; // what cannot be read cannot be checked
      }
      return json !== undefined && jsonShowsSecret(json, masked) ? SECRET_MASK : v;
    }
    if (typeof v === 'string') return maskSecrets(v, masked);
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (v && typeof v === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(v))) {
      // a key may be `__proto__` (worker/output.ts keeps it as a key): a dictionary holds it as one
      const out = dictionary<unknown>();
      for (const [k, x] of Object.entries(v)) out[maskSecrets(k, masked)] = walk(x, depth + 1);
      return out;
    }
    return v;
  };
  return walk(value, 0) as T;
}

/**
 * JSON text with the values masked in its strings and keys (maskSecretsDeep), the same text when it
 * shows none of them. Masked on the parsed value: in the text, a value's escaped form could also
 * match a number or run across a string's quotes.
 */
export function maskSecretsInJson(json: string, masked: readonly string[]): string {
  if (masked.length === 0 || !jsonShowsSecret(json, masked)) return json;
  return JSON.stringify(maskSecretsDeep(JSON.parse(json), masked));
}
