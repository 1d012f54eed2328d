import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { isUuid } from './ids.ts';

/** The kinds of resource a route's `:id` names, for missingResource. */
export type ResourceKind = 'job' | 'run' | 'task' | 'user' | 'alarm';

const NAMES: Record<ResourceKind, string> = { job: 'Job', run: 'Run', task: 'Task', user: 'User', alarm: 'Alarm' };
const TABLES: Record<ResourceKind, string> = { job: 'jobs', run: 'runs', task: 'tasks', user: 'users', alarm: 'alarms' };

/**
 * The 404 a request on resource `id` deserves when there is no such resource, or null when it
 * exists. app/_lib/rest.ts asks it when a route refused the request for its input (a 400): a body
 * or query that would be refused must not hide that the resource is not there (a 404 comes before a
 * 400). A job in the recycle bin exists (its routes answer for it: restore, purge, its history).
 * Read-only; one primary-key probe.
 * @param id the route's id parameter (any text: a malformed id is missing)
 * @throws what the probe throws (the database being away)
 */
export async function missingResource(db: Db, kind: ResourceKind, id: string): Promise<DomainError | null> {
  // a malformed id is not echoed: it may hold anything a path can (a lone surrogate, markup), and says nothing useful
  if (!isUuid(id)) return new DomainError('not_found', `${NAMES[kind]} not found: ${kind} ids are UUIDs, as the list routes return them`);
  const missing = new DomainError('not_found', `${NAMES[kind]} ${id} not found`);
  // tasks and runs are partitioned by week: the probe reads each week's primary key once
  const rows = await db.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM ${TABLES[kind]} WHERE id = $1::uuid LIMIT 1`, id);
  return rows.length ? null : missing;
}
