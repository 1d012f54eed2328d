/**
 * The one table of what every operation needs (docs/security.md "Roles"): each
 * REST route (`rest({ operation })`, app/_lib/rest.ts) and each console server
 * action (`defineAction(operation, …)`, app/_actions/define-action.ts) names an
 * operation here, and the caller must hold the permission it maps to. The role
 * each permission needs is decided once, in ACTION_MIN_ROLE (lib/auth/actor.ts),
 * which the domain functions check again (defence in depth).
 *
 * Which handlers a job may use (executor permissions) is decided in
 * lib/jobs/handler-permissions.ts, on top of these.
 */
import { DomainError } from '../errors.ts';
import { ACTION_MIN_ROLE, requireRole, type Action, type Actor, type Role } from './actor.ts';

/** `public`: no credentials needed. Anything else: a permission of ACTION_MIN_ROLE. */
export type Permission = Action | 'public';

export const OPERATIONS = {
  // no credentials
  health: 'public',
  openapi: 'public',
  'session.signIn': 'public',
  'session.signOut': 'public',
  'session.displayTimeZone': 'read',
  // reading
  // a preview is computation only, but some schedules take a walk of decades per fire time: not for anyone on the network
  'schedule.preview': 'read',
  'jobs.list': 'read',
  'jobs.get': 'read',
  'jobs.versions': 'read',
  'jobs.version': 'read',
  'jobs.diff': 'read',
  'jobs.audit': 'read',
  'jobs.grid': 'read',
  'jobs.calendar': 'read',
  'recycleBin.list': 'read',
  'runs.list': 'read',
  'runs.get': 'read',
  'workers.list': 'read',
  'handlers.list': 'read',
  'tasks.logs': 'read',
  'logs.search': 'read',
  'stats.daily': 'read',
  'stats.overview': 'read',
  'stats.series': 'read',
  'alarms.list': 'read',
  'alarms.silences': 'read',
  // jobs (a privileged handler also needs handler-permissions' check)
  'jobs.create': 'jobs.write',
  'jobs.update': 'jobs.write',
  'jobs.saveDag': 'jobs.write',
  'jobs.delete': 'jobs.write',
  'jobs.restore': 'jobs.write',
  'jobs.purge': 'jobs.write',
  'jobs.pause': 'jobs.write',
  'jobs.resume': 'jobs.write',
  'jobs.rollback': 'jobs.write',
  'jobs.bulk': 'jobs.write',
  'jobs.import': 'jobs.write',
  'jobs.trigger': 'runs.write',
  // runs
  'runs.cancel': 'runs.write',
  'runs.retry': 'runs.write',
  'tasks.retry': 'runs.write',
  'tasks.markSuccess': 'runs.write',
  'tasks.clear': 'runs.write',
  'jobs.backfillPreview': 'runs.write',
  'jobs.backfill': 'runs.write',
  // workers, alarms
  'workers.drain': 'workers.write',
  'workers.resume': 'workers.write',
  'alarms.test': 'alarms.write',
  'alarms.acknowledge': 'alarms.write',
  'alarms.silence': 'alarms.write',
  'alarms.unsilence': 'alarms.write',
  // administration
  'users.list': 'users.manage',
  'users.create': 'users.manage',
  'users.update': 'users.manage',
  'users.delete': 'users.manage',
  'users.resetPassword': 'users.manage',
  'tokens.list': 'tokens.manage',
  'tokens.create': 'tokens.manage',
  'tokens.revoke': 'tokens.manage',
  'stats.setZone': 'settings.manage',
} as const satisfies Record<string, Permission>;

export type Operation = keyof typeof OPERATIONS;

/** true when `name` is an operation of the table. */
export function isOperation(name: string): name is Operation {
  return Object.prototype.hasOwnProperty.call(OPERATIONS, name);
}

/** The least role an operation needs, or 'public'. */
export function operationMinRole(operation: Operation): Role | 'public' {
  const p: Permission = OPERATIONS[operation];
  return p === 'public' ? 'public' : ACTION_MIN_ROLE[p];
}

/**
 * Checks `actor` may run `operation`: the actor itself (or null) for a public one.
 * @throws DomainError('unauthorized') without an actor, DomainError('forbidden') for a weaker role
 *   (message names the operation and the role it needs).
 */
export function requireOperation(actor: Actor | null | undefined, operation: Operation): Actor | null {
  if (!isOperation(operation)) throw new DomainError('forbidden', `Unknown operation ${String(operation)}: refused`);
  const min = operationMinRole(operation);
  if (min === 'public') return actor ?? null;
  if (!actor) throw new DomainError('unauthorized', 'Authentication required');
  try {
    return requireRole(actor, min);
  } catch (e) {
    throw new DomainError('forbidden', `${operation} needs the ${min} role; you act as ${actor.role}${actor.kind === 'token' ? ' (token scope)' : ''}`);
  }
}
