/**
 * Which handler names a job step may use: the handlers every worker ships plus
 * those any registered worker node has reported (worker_nodes.handlers). A step
 * naming a handler nobody offers would wait forever (no worker claims it), so
 * saving such a job is refused with the field named instead.
 */
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';

/**
 * Handlers built into every worker (worker/handlers/index.ts and
 * worker/handlers/system-handlers.ts; a unit test keeps the lists equal).
 */
export const BUILTIN_HANDLER_NAMES: readonly string[] = [
  'builtin.noop',
  'builtin.echo',
  'builtin.sleep',
  'builtin.fail',
  'builtin.flaky',
  'builtin.ignore-abort',
  'http',
  'shell',
  'sql',
  'grpc',
  'system.retention',
  'system.idempotency-cleanup',
  'system.recycle-bin-purge',
  'system.stats-check',
];

/**
 * Throws DomainError('validation') naming each step whose handler is neither
 * built in nor reported by any worker node that ever registered.
 * @param steps the steps being saved, in input order
 * @param fieldOf the field path to report for step i (e.g. `steps.2.handler`, or
 *   `handler` for the one-step shorthand)
 */
export async function assertKnownHandlers(
  db: Db,
  steps: readonly { handler: string }[],
  fieldOf: (index: number) => string = (i) => `steps.${i}.handler`,
): Promise<void> {
  const unknown = steps.map((s, i) => ({ name: s.handler, i })).filter((s) => !BUILTIN_HANDLER_NAMES.includes(s.name));
  if (unknown.length === 0) return;
  const rows = await db.$queryRaw<{ handler: string }[]>`SELECT DISTINCT unnest(handlers) AS handler FROM worker_nodes`;
  const offered = new Set(rows.map((r) => r.handler));
  const fields: Record<string, string> = {};
  for (const { name, i } of unknown) {
    if (!offered.has(name)) {
      fields[fieldOf(i)] = `Unknown handler "${name}": no worker has registered it (start a worker that provides it first; built-ins: ${BUILTIN_HANDLER_NAMES.filter((h) => !h.startsWith('system.')).join(', ')})`;
    }
  }
  if (Object.keys(fields).length > 0) throw new DomainError('validation', Object.values(fields).join('; '), fields);
}
