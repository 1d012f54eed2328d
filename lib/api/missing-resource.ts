import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { isUuid } from './ids.ts';
import { unstorableString } from './json-guard.ts';

/** The kinds of resource a route's `:id` names, for missingResource. */
export type ResourceKind = 'job' | 'run' | 'task' | 'user' | 'alarm' | 'token' | 'silence' | 'worker';

/**
 * How each kind is named in a 404 (the words its domain function's own 404 uses) and looked up: its
 * table and id column, and whether that id is a uuid (a worker's id is the node id it chose).
 */
const KINDS: Record<ResourceKind, { name: string; table: string; column: string; uuid: boolean }> = {
  job: { name: 'Job', table: 'jobs', column: 'id', uuid: true },
  run: { name: 'Run', table: 'runs', column: 'id', uuid: true },
  task: { name: 'Task', table: 'tasks', column: 'id', uuid: true },
  user: { name: 'User', table: 'users', column: 'id', uuid: true },
  alarm: { name: 'Alarm', table: 'alarms', column: 'id', uuid: true },
  token: { name: 'API token', table: 'api_tokens', column: 'id', uuid: true },
  silence: { name: 'Silence', table: 'alarm_silences', column: 'id', uuid: true },
  worker: { name: 'Worker', table: 'worker_nodes', column: 'node_id', uuid: false },
};

/**
 * The 404 a request on resource `id` deserves when there is no such resource, or null when it
 * exists. app/_lib/rest.ts asks it when a route refused the request for its input (a 400): a body
 * or query that would be refused must not hide that the resource is not there (a 404 comes before a
 * 400). A job in the recycle bin exists (its routes answer for it: restore, purge, its history).
 * Read-only; one primary-key probe.
 * @param id the route's id parameter (any text: a malformed uuid is missing)
 * @throws what the probe throws (the database being away)
 */
export async function missingResource(db: Db, kind: ResourceKind, id: string): Promise<DomainError | null> {
  const k = KINDS[kind];
  // a malformed id is not echoed: it may hold anything a path can (a lone surrogate, markup), and says nothing useful
  if (k.uuid && !isUuid(id)) return new DomainError('not_found', `${k.name} not found: ${kind} ids are UUIDs, as the list routes return them`);
  // nor is a node id no worker can have: longer than WorkerIdParams allows (200), or text PostgreSQL cannot
  // store (a NUL, a lone surrogate: the driver would send U+FFFD in its place, and the answer would hold it)
  if (!k.uuid && (id.length > 200 || unstorableString(id) !== null)) return new DomainError('not_found', `${k.name} not found`);
  const missing = new DomainError('not_found', `${k.name} ${id} not found`);
  // tasks and runs are partitioned by week: the probe reads each week's primary key once
  const rows = await db.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM ${k.table} WHERE ${k.column} = $1${k.uuid ? '::uuid' : ''} LIMIT 1`, id);
  return rows.length ? null : missing;
}
