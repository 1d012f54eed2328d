/**
 * Executor permissions (docs/security.md "Executor permissions"): which handlers
 * a job may run, decided here and nowhere else. Every path that sets what a job
 * runs — create, update, DAG save, rollback, restore, crontab import, a Run
 * now with a payload override, and the retry of a run that had one (its params
 * merged over the job's current command, lib/runs/run-actions.ts) — calls
 * assertMayChangeCommand.
 *
 * - `system.*` handlers belong to the system jobs Tickflow creates: only the
 *   system actor may put them on a job or change such a job's command.
 * - `shell` (programs on the worker host), `sql` on a named connection
 *   (TICKFLOW_SQL_CONNECTIONS credentials), every handler listed in
 *   TICKFLOW_PRIVILEGED_HANDLERS, and any step whose settings name a worker secret
 *   (`${{ secrets.NAME }}`, lib/secrets/secret-references.ts) need the admin role.
 * - Everything else (builtins, `http`, `sql` on the restricted default
 *   connection, custom handlers) needs the operator role; where an outbound call
 *   may go is checked at run time (lib/net/outbound.ts).
 *
 * The "command" of a job is its steps' handlers, payloads and configs, the
 * edges between them, the job payload merged into them, and the job's routing (which hosts run
 * it) where an admin-level step makes the host matter (locksRouting). A user who may not use a
 * job's handler may still change everything else (schedule, policy, alarms; a system job's
 * routing), pause, resume, trigger it without a payload override, and delete it.
 *
 * System jobs also own their identity: the `system.` key prefix (any case) is reserved for them
 * (keyRefusal: create, update, rollback, restore, crontab import), and no user changes a system
 * job's key or name (identityRefusal), so no job can pass for a system job, nor a system job for
 * another.
 *
 * Pure (no database, no environment): the console imports it to show why a
 * control is disabled; configuredPrivilegedHandlers() reads the environment.
 */
import { DomainError } from '../errors.ts';
import { jsonEqual } from '../api/json-guard.ts';
import type { Actor, Role } from '../auth/actor.ts';
import { objectOrEmpty } from '../json-object.ts';
import { remove as removeConfusables } from 'confusables';
import { secretNamesIn } from '../secrets/secret-references.ts';

/** What using a handler needs: the admin role, or being the system itself. */
export type HandlerPrivilege = { level: 'admin' | 'system'; handler: string; reason: string };

export type CommandStep = { key?: string; handler: string; payload?: unknown; config?: unknown };
/** A DAG edge as the command sees it: `type` hard (the default), soft or on_failure (docs/design.md). */
export type CommandEdge = { from: string; to: string; type?: string };
/**
 * What a job runs. `runPayload` is a run's payload override (Run now / trigger `payload`), merged
 * last over every step's payload, the order the engine builds a task's payload in
 * (lib/engine/sql/insert-runs.ts: job payload, then step payload, then the run's). `edges` decide
 * the order the steps run in and whether a step runs at all (an on_failure child runs only when
 * its parent failed), so rewiring them changes what a job does as much as a payload does; a
 * caller that does not change the graph may leave them out on both sides. `routing` (the job's
 * node group, labels, strategy, nodes and key) decides which worker host a step runs on: a
 * program an admin allowed on one set of hosts is a different command on another, so it is part
 * of the command too; a caller that does not change it may leave it out on both sides.
 */
export type JobCommand = { steps: readonly CommandStep[]; edges?: readonly CommandEdge[]; jobPayload?: unknown; runPayload?: unknown; routing?: unknown };

const obj = objectOrEmpty;

/** Handlers this deployment marks privileged: TICKFLOW_PRIVILEGED_HANDLERS, comma-separated names. */
export function configuredPrivilegedHandlers(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.TICKFLOW_PRIVILEGED_HANDLERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * What a step needs, or null when an operator may use it. The settings a handler reads are
 * merged here in the order the task gets them: step config, then its payload built as
 * job payload < step payload < run payload (lib/engine/sql/insert-runs.ts), so a key set by
 * a later layer is the one judged.
 * @param step the step (handler, payload, config)
 * @param jobPayload the job payload the worker merges under the step's (README "Jobs")
 * @param extraPrivileged handler names a deployment marks privileged (configuredPrivilegedHandlers)
 * @param runPayload a run's payload override, merged over the step's
 */
export function stepPrivilege(step: CommandStep, jobPayload: unknown = {}, extraPrivileged: readonly string[] = [], runPayload: unknown = {}): HandlerPrivilege | null {
  const h = step.handler;
  if (h.startsWith('system.')) return { level: 'system', handler: h, reason: `${h} belongs to the system jobs Tickflow creates; no user may put it on a job or change its payload` };
  const secrets = secretNamesIn(step.config, jobPayload, step.payload, runPayload);
  if (secrets.length) {
    // whoever sets a step's settings decides where its secrets go (an URL, a header, a program's input)
    return { level: 'admin', handler: h, reason: `the step uses worker secrets (${secrets.join(', ')}), and its settings decide where they are sent, so only an admin may set or change what it runs` };
  }
  if (h === 'shell') return { level: 'admin', handler: h, reason: 'shell runs programs on the worker host, so only an admin may set or change what it runs' };
  if (h === 'sql') {
    const settings = { ...obj(step.config), ...obj(jobPayload), ...obj(step.payload), ...obj(runPayload) };
    if (settings.connection !== undefined && settings.connection !== null && settings.connection !== '') {
      return { level: 'admin', handler: h, reason: 'sql on a named connection runs with that connection\'s credentials (TICKFLOW_SQL_CONNECTIONS), so only an admin may set or change it' };
    }
    return null;
  }
  if (extraPrivileged.includes(h)) return { level: 'admin', handler: h, reason: `${h} is marked privileged on this deployment (TICKFLOW_PRIVILEGED_HANDLERS), so only an admin may set or change what it runs` };
  return null;
}

/** May a caller with this kind and role use a handler needing `p`? */
export function mayUsePrivilege(who: { kind: Actor['kind']; role: Role }, p: HandlerPrivilege | null): boolean {
  if (!p) return true;
  if (p.level === 'system') return who.kind === 'system';
  return who.kind === 'system' || who.role === 'admin';
}

/**
 * The first step of a job whose privilege `who` does not hold, or null when `who` may change the
 * job's command and routing (assertMayChangeCommand's rule, for a form that shows those fields
 * read-only with the reason before anything is sent).
 * @param command the job's steps and job payload (edges and routing do not change the answer)
 * @param extraPrivileged handler names a deployment marks privileged (configuredPrivilegedHandlers)
 */
export function commandLockOf(who: { kind: Actor['kind']; role: Role }, command: JobCommand, extraPrivileged: readonly string[] = configuredPrivilegedHandlers()): HandlerPrivilege | null {
  for (const s of command.steps) {
    const p = stepPrivilege(s, command.jobPayload, extraPrivileged, command.runPayload);
    if (!mayUsePrivilege(who, p)) return p;
  }
  return null;
}

/**
 * Whether a privilege the user lacks also keeps them from re-routing the job. An admin-level step
 * runs a program, or uses credentials, on the hosts the admin chose: on other hosts it is another
 * command. A system job's `system.*` handlers do the same database work on any worker, so its
 * routing stays an operator's to change, like its schedule (docs/security.md "System jobs").
 */
export function locksRouting(p: HandlerPrivilege | null): boolean {
  return p !== null && p.level === 'admin';
}

/** The part of a job that decides what runs (compared before/after a change). */
export function commandOf(c: JobCommand): unknown {
  const steps = [...c.steps]
    .map((s) => ({ key: s.key ?? '', handler: s.handler, payload: obj(s.payload), config: obj(s.config) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const edges = [...(c.edges ?? [])]
    .map((e) => `${e.from}\u0000${e.to}\u0000${e.type ?? 'hard'}`)
    .sort();
  return { jobPayload: obj(c.jobPayload), runPayload: obj(c.runPayload), steps, edges, routing: obj(c.routing) };
}

/**
 * Refuses a change of what a job runs that the actor may not make: when the
 * command differs between `before` (null for a new or restored job) and `after`,
 * every privileged step on either side must be usable by the actor.
 * @param fieldOf field path reported for step i of `after` (default `steps.i.handler`)
 * @throws DomainError('forbidden') naming the handler, the reason and the field.
 */
export function assertMayChangeCommand(
  actor: Actor,
  before: JobCommand | null,
  after: JobCommand,
  opts: { fieldOf?: (index: number) => string; extraPrivileged?: readonly string[]; what?: string } = {},
): void {
  if (before && jsonEqual(commandOf(before), commandOf(after))) return;
  // a re-route alone needs only the privileges that locksRouting says it touches
  const routingOnly = before !== null && jsonEqual(commandOf({ ...before, routing: undefined }), commandOf({ ...after, routing: undefined }));
  const refused = (p: HandlerPrivilege | null) => !mayUsePrivilege(actor, p) && (!routingOnly || locksRouting(p));
  const extra = opts.extraPrivileged ?? configuredPrivilegedHandlers();
  const fieldOf = opts.fieldOf ?? ((i: number) => `steps.${i}.handler`);
  const fields: Record<string, string> = {};
  let first: HandlerPrivilege | null = null;
  after.steps.forEach((s, i) => {
    const p = stepPrivilege(s, after.jobPayload, extra, after.runPayload);
    if (refused(p)) {
      first ??= p;
      fields[fieldOf(i)] = p!.reason;
    }
  });
  // a privileged step on the before side only (replaced by something harmless) is still the actor's to leave alone
  for (const s of before?.steps ?? []) {
    const p = stepPrivilege(s, before!.jobPayload, extra, before!.runPayload);
    if (refused(p)) {
      first ??= p;
      if (Object.keys(fields).length === 0) fields[fieldOf(0)] = p!.reason;
    }
  }
  if (!first) return;
  const p = first as HandlerPrivilege;
  const who = p.level === 'system' ? 'the system' : 'an admin';
  throw new DomainError(
    'forbidden',
    `Only ${who} may ${opts.what ?? 'set or change the command or routing of'} a job running ${p.handler}: ${p.reason}. You may still change its schedule, pause or resume it.`,
    fields,
    { handler: p.handler, needs: p.level },
  );
}

/**
 * Why the actor may not delete (or purge) a job, or null when it may: a user may not delete a
 * system job (a job with a `system.*` step). The system creates each one once
 * (lib/system-jobs/definitions.ts ensureSystemJobs) and only the system may put one back, so a
 * deleted one would be gone for good, and with it partition creation, retention or the
 * recycle-bin purge. Pausing stops one and is undone by resume. The console shows the same text
 * beside a disabled Delete.
 */
export function deleteRefusal(actor: Pick<Actor, 'kind'>, command: JobCommand, what: 'delete' | 'purge' = 'delete'): { message: string; handler: string } | null {
  if (actor.kind === 'system') return null;
  const sys = command.steps.find((s) => s.handler.startsWith('system.'));
  if (!sys) return null;
  return {
    handler: sys.handler,
    message: `System jobs cannot be ${what === 'delete' ? 'deleted' : 'purged'}: ${sys.handler} keeps Tickflow running and only the system creates it. Pause it to stop it; resume undoes that.`,
  };
}

/**
 * Refuses what deleteRefusal refuses.
 * @throws DomainError('forbidden') naming the handler.
 */
export function assertMayDeleteJob(actor: Actor, command: JobCommand, what: 'delete' | 'purge' = 'delete'): void {
  const refusal = deleteRefusal(actor, command, what);
  if (refusal) throw new DomainError('forbidden', refusal.message, { handler: `${refusal.handler} belongs to a system job` });
}

/**
 * Refuses a restore the actor may not make: bringing a job back puts its command back, the rule
 * of creating it (assertMayChangeCommand with no before). A system job comes back as the system
 * made it (no user can have changed its command), so an admin may restore one deleted before
 * system jobs could not be deleted. With `key`, a key in the reserved `system.` namespace comes back only on a
 * system job (keyRefusal): a job given one before keys were checked stays in the bin.
 * @throws DomainError('forbidden') as assertMayChangeCommand, or at `key`.
 */
export function assertMayRestoreJob(actor: Actor, command: JobCommand, key?: string): void {
  // a job given a reserved `system.` key before keys were checked comes back only as a system job (keyRefusal)
  if (key !== undefined) {
    const refusal = keyRefusal(actor, key, command, { own: true });
    if (refusal) throw new DomainError('forbidden', `Cannot restore: ${refusal.message}`, { key: refusal.message }, { needs: 'system' });
  }
  const systemOnly = command.steps.length > 0 && command.steps.every((s) => s.handler.startsWith('system.'));
  if (systemOnly && (actor.kind === 'system' || actor.role === 'admin')) return;
  assertMayChangeCommand(actor, null, command, { what: 'restore' });
}

/** The key prefix reserved for Tickflow's own system jobs (lib/system-jobs/definitions.ts), compared in any case. */
/** The keys isSystemKey reserves, as messages name them. */
export const RESERVED_KEYS = '"system" and ".", ":", "_" or "-"';

/**
 * True for a key in the reserved `system` namespace: `system.` (the system jobs' keys: `system.retention`,
 * `System.x`), and, so that no key passes for one beside it in a list, `system` alone or followed by any
 * other separator a key may hold (`system:x`, `system_x`, `system-x`). `systemx.y` and `systems` are not.
 */
export function isSystemKey(key: string): boolean {
  return /^system($|[._:-])/i.test(key);
}

/**
 * True for a job name that reads as a system job's (`System: run-log retention`): `system` as a word
 * followed by a separator, any case, after NFKC folding, with invisible characters left out
 * (`Ｓｙｓｔｅｍ：`, `System\u200b:`) and letters that look like Latin ones read as those (`Sуstem:`
 * with a Cyrillic у, `Systém:`: the `confusables` package's table). A separator is any punctuation
 * but brackets and quotes (Unicode Po, Pd, Pc), a mathematical or modifier symbol (Sm, Sk) or a
 * modifier letter colon (`ː`): a list of look-alikes of `:`, `.`, `-` and `_` missed some (the
 * Armenian `։`, the Hebrew `׃`, the minus sign `−`, the runic `᛬`), so every such character counts.
 * Only system jobs carry such a name.
 */
export function isSystemName(name: string): boolean {
  const folded = removeConfusables(name.normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}/gu, '')).trim();
  return /^system\s*[\p{Po}\p{Pd}\p{Pc}\p{Sm}\p{Sk}\u02d0\u02d1]/iu.test(folded);
}

/**
 * The `system.*` handler a job runs, or null: a job running one is a system job, since only the system may put
 * one on a job (stepPrivilege); deleteRefusal recognises them the same way. A system job's key is its handler's
 * name (lib/system-jobs/definitions.ts systemJobInputs).
 */
export function systemHandlerOf(command: Pick<JobCommand, 'steps'>): string | null {
  return command.steps.find((s) => s.handler.startsWith('system.'))?.handler ?? null;
}

/** A refusal of a job's key or name: the field and why. */
export type IdentityRefusal = { field: 'key' | 'name'; message: string };

/**
 * Why `key` may not be given to a job running `command` by `actor`, or null: a key in the reserved `system.`
 * namespace belongs to a system job, so it is refused on any other job, and on a system job for anyone but the
 * system, except `own` (the key the job already has or the one the system gave it: a restore, a rename back).
 * The crontab CLI, which acts as the system, imports `shell` jobs: those never get one either.
 */
export function keyRefusal(actor: Pick<Actor, 'kind'>, key: string, command: Pick<JobCommand, 'steps'>, opts: { own?: boolean } = {}): IdentityRefusal | null {
  if (!isSystemKey(key)) return null;
  const system = systemHandlerOf(command);
  if (system && (actor.kind === 'system' || opts.own)) return null;
  return {
    field: 'key',
    message: `Keys starting with ${RESERVED_KEYS} are reserved for Tickflow's system jobs${system ? ': only the system may give one' : ''}; choose another key`,
  };
}

/**
 * Why the actor may not change a job's key or name from `before` to `after`, or null. A system job's key and name
 * are how people recognise it in lists, alarms and the API: only the system changes them (a user may put back
 * the key the system gave it, its handler's name, on a system job renamed before this rule). Any job's new key
 * must pass keyRefusal. The console shows the same text beside the disabled fields.
 */
export function identityRefusal(
  actor: Pick<Actor, 'kind'>,
  before: { key: string; name: string; command: Pick<JobCommand, 'steps'> },
  after: { key: string; name: string; command: Pick<JobCommand, 'steps'> },
): IdentityRefusal | null {
  const system = systemHandlerOf(before.command);
  const keyChanged = after.key !== before.key;
  if (system && actor.kind !== 'system') {
    if (keyChanged && after.key !== system) return { field: 'key', message: systemIdentityMessage(system) };
    if (after.name !== before.name) return { field: 'name', message: systemIdentityMessage(system) };
  }
  if (after.name !== before.name) {
    const name = nameRefusal(actor, after.name, after.command);
    if (name) return name;
  }
  if (!keyChanged) return null;
  return keyRefusal(actor, after.key, after.command, { own: !!system && after.key === system && systemHandlerOf(after.command) === system });
}

/**
 * Why a job may not take `name`, or null: a name that reads as a system job's (isSystemName) is
 * the system's to give, on a system job, so that no job passes for one in a list, an alarm or the
 * job picker, where key and name are all that is shown.
 */
export function nameRefusal(actor: Pick<Actor, 'kind'>, name: string, command: Pick<JobCommand, 'steps'>): IdentityRefusal | null {
  if (!isSystemName(name) || (actor.kind === 'system' && systemHandlerOf(command))) return null;
  return { field: 'name', message: 'Names starting with "System:" are reserved for Tickflow\'s system jobs; choose another name' };
}

/**
 * The words of identityRefusal for a system job running `handler`; the console's job form shows them beside
 * the key and name it disables on such a job.
 */
export function systemIdentityMessage(handler: string): string {
  return `${handler} is a system job: only the system may change its key or name, so that no job can pass for it. You may still change its schedule, pause or resume it.`;
}

/**
 * Refuses what identityRefusal (a change) or keyRefusal (a new job: `before` null) refuses.
 * @throws DomainError('forbidden') (403) naming `key` or `name`.
 */
export function assertMayUseIdentity(
  actor: Pick<Actor, 'kind'>,
  before: { key: string; name: string; command: Pick<JobCommand, 'steps'> } | null,
  after: { key: string; name: string; command: Pick<JobCommand, 'steps'> },
): void {
  const refusal = before ? identityRefusal(actor, before, after) : keyRefusal(actor, after.key, after.command) ?? nameRefusal(actor, after.name, after.command);
  if (refusal) throw new DomainError('forbidden', refusal.message, { [refusal.field]: refusal.message }, { needs: 'system' });
}
