'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { CreateUserInput, IdParams, UpdateUserInput } from '@/lib/api/schemas';
import { getDb } from '@/lib/db';
import { createUser, updateUser, type UserView } from '@/lib/auth/users';
import { invalid, toActionError, type ActionResult } from '@/app/_actions/result';

/** Create an operator account (admin): lib/auth createUser (bcrypt). Field errors: email, password, role. */
export async function createUserAction(input: unknown): Promise<ActionResult<UserView>> {
  try {
    const actor = await requireActionActor('admin');
    const p = CreateUserInput.safeParse(input);
    if (!p.success) return invalid(p.error);
    const user = await createUser(getDb(), p.data, actor);
    revalidatePath('/settings/users');
    return { ok: true, data: user };
  } catch (error) {
    return toActionError(error, 'Create user');
  }
}

/** Change a user's role or disable/enable them (admin): lib/auth updateUser (disabling ends their sessions). */
export async function updateUserAction(id: string, input: unknown): Promise<ActionResult<UserView>> {
  try {
    const actor = await requireActionActor('admin');
    const p = UpdateUserInput.safeParse(input);
    if (!p.success) return invalid(p.error);
    const user = await updateUser(getDb(), IdParams.parse({ id }).id, p.data, actor);
    revalidatePath('/settings/users');
    return { ok: true, data: user };
  } catch (error) {
    return toActionError(error, 'Update user');
  }
}
