import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import { getActor } from '@/app/_lib/session';
import { getDb, type Db } from '@/lib/db';
import type { Actor } from '@/lib/auth/actor';
import { requireOperation, type Operation } from '@/lib/auth/permissions';
import { databaseReachable } from '@/lib/infra/database-probe';
import { databaseUnavailableResult, toActionError, type ActionResult } from './result';

/** The operation a server action was defined with (read by tests/integration/role-matrix.test.ts). */
export type DefinedAction = { operation: Operation };

export type ActionContext = { actor: Actor; db: Db };

export type ActionOptions<A extends unknown[], R> = {
  /** paths to revalidate after a success (`args`: the action's arguments); `[path, 'layout']` revalidates every page under a layout */
  revalidate?: (data: R, args: A) => readonly (string | readonly [string, 'layout' | 'page'])[];
  /** where to go after a success (the action then never returns) */
  redirect?: (data: R, args: A) => string;
};

/**
 * The one skeleton of every console server action (the REST routes' rest() is
 * the other door onto the same domain functions):
 * 0. while the database probe says it cannot be reached (lib/infra/database-probe.ts, as rest()
 *    asks it), nothing runs: `{ ok: false, code: 'database_unavailable' }` (databaseUnavailableResult);
 * 1. the signed-in actor must hold the role `operation` needs
 *    (lib/auth/permissions.ts; DomainError unauthorized / forbidden otherwise);
 * 2. `fn` parses its arguments (parseOrThrow: field errors) and calls ONE domain function;
 * 3. a DomainError becomes `{ ok: false, error, fields, code, detail }`, a database outage met
 *    meanwhile the same answer as in 0, anything else is logged and shown as a generic message
 *    (app/_actions/result.ts);
 * 4. on success: revalidate, then redirect or `{ ok: true, data }`.
 * `what` names the action in messages ("Pause", "Create job").
 *
 * Usage, in a 'use server' file:
 *   export const pauseJobAction = defineAction('jobs.pause', 'Pause', ({ db, actor }, id: string) => pauseJob(db, id, actor));
 */
export function defineAction<A extends unknown[], R>(
  operation: Operation,
  what: string,
  fn: (ctx: ActionContext, ...args: A) => Promise<R>,
  opts: ActionOptions<NoInfer<A>, NoInfer<R>> = {},
): ((...args: A) => Promise<ActionResult<R>>) & DefinedAction {
  const action = async (...args: A): Promise<ActionResult<R>> => {
    let data: R;
    // A database that froze or dropped off the network leaves connections hanging: the probe answers within its timeout.
    const databaseUrl = process.env.DATABASE_URL;
    if (databaseUrl && !(await databaseReachable(databaseUrl))) return databaseUnavailableResult(what);
    try {
      const actor = requireOperation(await getActor(), operation) as Actor;
      data = await fn({ actor, db: getDb() }, ...args);
    } catch (error) {
      return toActionError(error, what);
    }
    for (const path of opts.revalidate?.(data, args) ?? []) {
      if (typeof path === 'string') revalidatePath(path);
      else revalidatePath(path[0], path[1]);
    }
    if (opts.redirect) redirect(opts.redirect(data, args));
    return { ok: true, data };
  };
  return Object.assign(action, { operation });
}

/**
 * Marks a server action that does not follow the ActionResult skeleton (sign-in's
 * form state, sign-out's redirect) with its operation, so the role matrix still
 * sees a decision for it. Only public operations may be marked this way.
 */
export function publicAction<F extends (...args: never[]) => Promise<unknown>>(operation: Operation, fn: F): F & DefinedAction {
  requireOperation(null, operation); // throws unless the operation is public
  return Object.assign(fn, { operation });
}
