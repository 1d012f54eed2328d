/**
 * Who is acting (docs/design.md §5): a signed-in user, an API token,
 * or the system (worker jobs). Every server action and route handler resolves
 * an Actor, checks it with `requireRole` / `can`, and passes `actor.name` on as
 * created_by / updated_by / triggered_by.
 */
import { DomainError } from '../errors.ts';

export type Role = 'admin' | 'operator' | 'viewer';
export const ROLES: readonly Role[] = ['viewer', 'operator', 'admin'];

export type Actor = {
  kind: 'user' | 'token' | 'system';
  /** user id, api token id ('env' for TICKFLOW_API_TOKEN), or 'system' */
  id: string;
  /** what is written into created_by / updated_by / triggered_by: user email, `token:<name> (<owner email>)` (`token:env` for TICKFLOW_API_TOKEN), 'system' */
  name: string;
  role: Role;
  /** tokens: the user who owns the token (null for TICKFLOW_API_TOKEN) */
  ownerId?: string | null;
};

export const SYSTEM_ACTOR: Actor = Object.freeze({ kind: 'system', id: 'system', name: 'system', role: 'admin' }) as Actor;

const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

/**
 * Actions and the least role allowed to do them:
 * - read: every role (viewer) — lists, details, previews;
 * - jobs.write / runs.write / workers.write: operator — create/edit/pause/resume/delete/restore/
 *   purge/rollback/trigger jobs, cancel/retry runs and tasks, drain workers;
 * - alarms.write: operator — send a test alarm, acknowledge an alarm, silence / unsilence alarms;
 * - users.manage / tokens.manage: admin;
 * - jobs.privileged: admin — put a privileged handler on a job or change the command
 *   of a job that has one (lib/jobs/handler-permissions.ts).
 * Which operation needs which of these: lib/auth/permissions.ts.
 */
export const ACTION_MIN_ROLE = {
  read: 'viewer',
  'jobs.write': 'operator',
  'runs.write': 'operator',
  'workers.write': 'operator',
  'alarms.write': 'operator',
  'jobs.privileged': 'admin',
  'users.manage': 'admin',
  'tokens.manage': 'admin',
  'settings.manage': 'admin',
} as const satisfies Record<string, Role>;
export type Action = keyof typeof ACTION_MIN_ROLE;

/** true when `role` is at least `minRole` (viewer < operator < admin). */
export function roleAtLeast(role: Role, minRole: Role): boolean {
  return RANK[role] >= RANK[minRole];
}

/** May this actor do `action`? (null actor: never) */
export function can(actor: Actor | null | undefined, action: Action): boolean {
  return !!actor && roleAtLeast(actor.role, ACTION_MIN_ROLE[action]);
}

/**
 * Returns the actor when it holds at least `minRole`.
 * @throws DomainError('unauthorized') for no actor, DomainError('forbidden') for a weaker role.
 */
export function requireRole(actor: Actor | null | undefined, minRole: Role): Actor {
  if (!actor) throw new DomainError('unauthorized', 'Authentication required');
  if (!roleAtLeast(actor.role, minRole)) {
    throw new DomainError('forbidden', `This needs the ${minRole} role; you are ${actor.role}`);
  }
  return actor;
}

/** requireRole for an action name. */
export function requireCan(actor: Actor | null | undefined, action: Action): Actor {
  return requireRole(actor, ACTION_MIN_ROLE[action]);
}

export function isRole(v: unknown): v is Role {
  return v === 'admin' || v === 'operator' || v === 'viewer';
}
