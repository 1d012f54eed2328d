/**
 * Typed results for server actions (CONVENTIONS.md §2): every action returns
 * `{ ok: true, data } | { ok: false, error: { code, message }, fields? }`.
 *
 *   'use server';
 *   export async function createJobAction(input: unknown) {
 *     return runAction('operator', (actor) => createJob(getDb(), input, actor));
 *   }
 *
 * DomainErrors become `{ ok: false }` with their fields (and `detail`, e.g. the
 * conflict's changedFields); anything else is logged and shown generically.
 */
import type { Actor, Role } from '@/lib/auth/actor';
import { isDomainError } from '@/lib/errors';
import { log } from '@/lib/log';
import { requireActionActor } from './session';

export type ActionError = { code: string; message: string; detail?: Record<string, unknown> };
export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: ActionError; fields?: Record<string, string> };

/** Maps any thrown value to a failed ActionResult. */
export function toActionError(e: unknown): { ok: false; error: ActionError; fields?: Record<string, string> } {
  if (isDomainError(e)) {
    return {
      ok: false,
      error: { code: e.code, message: e.message, ...(e.detail ? { detail: e.detail } : {}) },
      ...(e.fields ? { fields: e.fields } : {}),
    };
  }
  log('action').error({ err: e }, 'unhandled error in server action');
  return { ok: false, error: { code: 'internal', message: 'Something went wrong. Please try again.' } };
}

/** Resolves the session actor (at least `minRole`), runs `fn`, maps errors. */
export async function runAction<T>(minRole: Role, fn: (actor: Actor) => Promise<T>): Promise<ActionResult<T>> {
  try {
    const actor = await requireActionActor(minRole);
    return { ok: true, data: await fn(actor) };
  } catch (e) {
    return toActionError(e);
  }
}
