import type { z } from 'zod';
import { DomainError } from '../errors.ts';

/** Dot path of an issue (`schedule.cron`, `steps.1.key`); '' (the whole input) becomes `_root`. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.length ? path.map((p) => String(p)).join('.') : '_root';
}

/**
 * zod error -> `{ [dotPath]: message }`, first message per path wins (forms
 * show one message per field). Union "no match" issues point at the union's path.
 */
export function zodToFieldErrors(error: z.ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of error.issues) {
    const p = issuePath(issue.path);
    if (!(p in out)) out[p] = issue.message;
  }
  return out;
}

/** Parses `data` or throws DomainError('validation', summary, fields) (HTTP 400). */
export function parseOrThrow<S extends z.ZodType>(schema: S, data: unknown): z.output<S> {
  const r = schema.safeParse(data);
  if (r.success) return r.data;
  const fields = zodToFieldErrors(r.error);
  const names = Object.keys(fields);
  const first = names[0]!;
  const message = names.length === 1 ? `Invalid ${first === '_root' ? 'input' : first}: ${fields[first]}` : `Invalid input: ${names.join(', ')}`;
  throw new DomainError('validation', message, fields);
}
