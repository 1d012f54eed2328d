import type { Actor, Role } from '../auth/actor.ts';
import { mayUsePrivilege, stepPrivilege } from './handler-permissions.ts';

/**
 * Why a user with `role` cannot import a crontab at all, or null when they can. Every job an
 * import makes is one `shell` step, so the executor rule (lib/jobs/handler-permissions.ts) refuses
 * every entry, and a preview with them, to anyone who may not put `shell` on a job: the console
 * says so before the form is filled in, as it disables every control a role may not use.
 * Viewers are read only everywhere (null here: the page shows its read-only notice).
 */
export function crontabImportRefusal(who: { kind: Actor['kind']; role: Role }): string | null {
  if (who.role === 'viewer') return null;
  const shell = stepPrivilege({ handler: 'shell' });
  if (mayUsePrivilege(who, shell)) return null;
  return `Only an admin may import a crontab: every entry becomes a job running shell, and ${shell!.reason}. Ask an admin to import it; you may then change the jobs' schedules, pause or resume them.`;
}
