/**
 * Guards for untrusted JSON (lib/api/schemas.ts, lib/api/validation.ts): PostgreSQL
 * refuses the NUL character (U+0000) in `text` and `jsonb`, and deeply nested
 * values blow the stack of recursive code (JSON.stringify, merges). Everything
 * here is iterative, so a 5000-level value is measured, not recursed into.
 */

/** Field message for a string (or object key) holding U+0000. */
export const NUL_MESSAGE = 'Must not contain the NUL character (\\u0000)';
/** Deepest nesting accepted in a free-form JSON value (payload, config). */
export const MAX_JSON_DEPTH = 64;

export type JsonProblem = { path: (string | number)[]; message: string };

export const hasNul = (s: string): boolean => s.includes('\u0000');

function isPlainContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  if (Array.isArray(v)) return true;
  if (!v || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Scans `value` without recursion: every string and object key holding U+0000
 * (at most `limit` reported, path relative to `value`), and whether containers
 * nest deeper than `maxDepth` (the root object/array is level 1; deeper levels
 * are not scanned).
 */
export function scanJson(value: unknown, opts: { maxDepth?: number; limit?: number } = {}): { nul: JsonProblem[]; tooDeep: boolean } {
  const maxDepth = opts.maxDepth ?? Infinity;
  const limit = opts.limit ?? 20;
  const nul: JsonProblem[] = [];
  let tooDeep = false;
  const stack: { v: unknown; path: (string | number)[]; depth: number }[] = [{ v: value, path: [], depth: 0 }];
  while (stack.length && nul.length < limit) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (hasNul(v)) nul.push({ path, message: NUL_MESSAGE });
      continue;
    }
    if (!isPlainContainer(v)) continue;
    if (depth + 1 > maxDepth) {
      tooDeep = true;
      continue;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: [...path, i], depth: depth + 1 });
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        if (hasNul(k)) nul.push({ path: [...path, k], message: `Field name ${NUL_MESSAGE.charAt(0).toLowerCase()}${NUL_MESSAGE.slice(1)}` });
        stack.push({ v: v[k], path: [...path, k], depth: depth + 1 });
      }
    }
  }
  return { nul, tooDeep };
}

/** Order-insensitive deep equality of JSON-like values (depth is bounded by the schemas). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}
