import { revalidatePath } from 'next/cache';
import { getActor } from '@/app/_lib/session';
import { getDb, type Db } from '@/lib/db';
import type { Actor } from '@/lib/auth/actor';
import { requireOperation, type Operation } from '@/lib/auth/permissions';
import { databaseReachable } from '@/lib/infra/database-probe';
import { IdParams } from '@/lib/api/schemas';
import { validationError, zodToFieldErrors } from '@/lib/api/validation';
import { DomainError } from '@/lib/errors';
import { z } from 'zod';
import { databaseUnavailableResult, toActionError, type ActionResult } from './result';

/**
 * The operation a server action was defined with (read by tests/integration/role-matrix.test.ts) and the
 * schemas of its arguments (every action has them: app/_actions/actions-parse-arguments.test.ts).
 */
export type DefinedAction = { operation: Operation; args: ActionArgs<unknown[]> };

/**
 * The arguments of a server action, by position: a name (the field an error names when the argument
 * itself is wrong) and a zod schema each. `A` is the parsed tuple the action's function receives.
 */
export type ActionArgs<A> = { readonly names: readonly string[]; readonly schemas: readonly z.ZodType[]; readonly __parsed?: A };

type ArgSpec = readonly (readonly [string, z.ZodType])[];
type ParsedArgs<S extends ArgSpec> = { -readonly [K in keyof S]: S[K] extends readonly [string, infer Z extends z.ZodType] ? z.output<Z> : never };

/**
 * The argument schemas of a server action, in order: `actionArgs(['id', IdArg], ['reason', OptionalReason])`.
 * A server action is a public POST endpoint (anyone holding its id may call it with any arguments), so
 * these are checked before anything else runs (parseActionArgs); use the REST route's schema where one exists.
 */
export function actionArgs<const S extends ArgSpec>(...spec: S): ActionArgs<ParsedArgs<S>> {
  return { names: spec.map(([n]) => n), schemas: spec.map(([, s]) => s) };
}

/**
 * Parses a server action's raw arguments with its `args`.
 * @returns the parsed arguments
 * @throws DomainError('validation') naming each bad field: the argument's name for the argument itself
 *   (`id`), the path inside it for an object argument (`expectedVersion`), `_args` for arguments beyond the last
 */
export function parseActionArgs<A>(args: ActionArgs<A>, raw: readonly unknown[]): A {
  const fields: Record<string, string> = {};
  const out: unknown[] = [];
  args.schemas.forEach((schema, i) => {
    const r = schema.safeParse(raw[i]);
    if (r.success) {
      out.push(r.data);
      return;
    }
    for (const [path, message] of Object.entries(zodToFieldErrors(r.error))) {
      const field = path === '_root' ? args.names[i]! : path;
      fields[field] ??= message;
    }
  });
  if (raw.length > args.schemas.length) fields._args = `At most ${args.schemas.length} argument${args.schemas.length === 1 ? '' : 's'}, got ${raw.length}`;
  if (Object.keys(fields).length) throw validationError(fields);
  // trailing optional arguments that were left out stay left out
  return out.slice(0, Math.max(raw.length, lastRequired(args, out) + 1)) as A;
}

function lastRequired(args: ActionArgs<unknown>, parsed: unknown[]): number {
  let last = -1;
  parsed.forEach((v, i) => {
    if (v !== undefined || !args.schemas[i]!.safeParse(undefined).success) last = i;
  });
  return last;
}

/**
 * An object argument that the domain function parses itself, with the schema its REST route uses
 * (the field errors are then the route's): checked here only to be a JSON object, typed `T` for callers.
 */
export function objectArg<T extends object>() {
  return z.custom<T>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { error: 'Must be an object' });
}

/** A job, run, task, user or token id argument: IdParams' `id` (canonical form), as the REST paths take it. */
export const IdArg = IdParams.shape.id;

export type ActionContext = { actor: Actor; db: Db };

export type ActionOptions<A extends unknown[], R> = {
  /** paths to revalidate after a success (`args`: the action's arguments); `[path, 'layout']` revalidates every page under a layout */
  revalidate?: (data: R, args: A) => readonly (string | readonly [string, 'layout' | 'page'])[];
};

/**
 * The one skeleton of every console server action (the REST routes' rest() is
 * the other door onto the same domain functions):
 * 0. while the database probe says it cannot be reached (lib/infra/database-probe.ts, as rest()
 *    asks it), nothing runs: `{ ok: false, code: 'database_unavailable' }` (databaseUnavailableResult);
 * 1. the signed-in actor must hold the role `operation` needs
 *    (lib/auth/permissions.ts; DomainError unauthorized / forbidden otherwise);
 * 2. `args` (actionArgs) parses the arguments: a malformed call (an action is a public POST
 *    endpoint) is `{ ok: false, code: 'validation', fields }` naming the field, and nothing runs;
 *    `fn` gets the parsed arguments and calls ONE domain function (which may parse further);
 * 3. a DomainError becomes `{ ok: false, error, fields, code, detail }`, a database outage met
 *    meanwhile the same answer as in 0, anything else is logged and shown as a generic message
 *    (app/_actions/result.ts);
 * 4. on success: revalidate, then `{ ok: true, data }` (a form that opens another page on success does it in the
 *    browser, after saying it succeeded: a redirect here would end the action before its caller could).
 * `what` names the action in messages ("Pause", "Create job").
 *
 * Usage, in a 'use server' file:
 *   export const pauseJobAction = defineAction('jobs.pause', 'Pause', actionArgs(['id', IdArg]), ({ db, actor }, id: string) => pauseJob(db, id, actor));
 */
export function defineAction<A extends unknown[], R>(
  operation: Operation,
  what: string,
  args: ActionArgs<NoInfer<A>>,
  fn: (ctx: ActionContext, ...args: A) => Promise<R>,
  opts: ActionOptions<NoInfer<A>, NoInfer<R>> = {},
): ((...args: A) => Promise<ActionResult<R>>) & DefinedAction {
  const action = async (...raw: A): Promise<ActionResult<R>> => {
    let data: R;
    let parsed: A;
    // A database that froze or dropped off the network leaves connections hanging: the probe answers within its timeout.
    const databaseUrl = process.env.DATABASE_URL;
    if (databaseUrl && !(await databaseReachable(databaseUrl))) return databaseUnavailableResult(what);
    try {
      const actor = requireOperation(await getActor(), operation) as Actor;
      // A malformed call (an action is a public POST endpoint) is a validation error naming the field.
      parsed = parseActionArgs(args, raw);
      data = await fn({ actor, db: getDb() }, ...parsed);
    } catch (error) {
      return toActionError(error, what);
    }
    for (const path of opts.revalidate?.(data, parsed) ?? []) {
      if (typeof path === 'string') revalidatePath(path);
      else revalidatePath(path[0], path[1]);
    }
    return { ok: true, data };
  };
  return Object.assign(action, { operation, args: args as ActionArgs<unknown[]> });
}

/**
 * Marks a server action that does not follow the ActionResult skeleton (sign-in's
 * form state, sign-out's redirect) with its operation, so the role matrix still
 * sees a decision for it. Only public operations may be marked this way. Its arguments
 * are parsed with `args` like every action's; malformed ones get `invalid(error)`'s answer
 * (a DomainError('validation') naming the field) and `fn` does not run.
 */
export function publicAction<A extends unknown[], R>(
  operation: Operation,
  args: ActionArgs<NoInfer<A>>,
  fn: (...args: A) => Promise<R>,
  invalid: (error: DomainError) => R | Promise<R>,
): ((...args: A) => Promise<R>) & DefinedAction {
  requireOperation(null, operation); // throws unless the operation is public
  const action = async (...raw: A): Promise<R> => {
    let parsed: A;
    try {
      parsed = parseActionArgs(args, raw);
    } catch (error) {
      if (error instanceof DomainError) return invalid(error);
      throw error;
    }
    return fn(...parsed);
  };
  return Object.assign(action, { operation, args: args as ActionArgs<unknown[]> });
}
