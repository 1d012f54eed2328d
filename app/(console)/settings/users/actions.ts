'use server';

import { CreateUserInput, IdParams, ResetPasswordInput, UpdateUserInput } from '@/lib/api/schemas';
import { createUser, deleteUser, resetUserPassword, updateUser } from '@/lib/auth/users';
import type { z } from 'zod';
import { actionArgs, defineAction, IdArg } from '@/app/_actions/define-action';

/** Create an operator account: lib/auth createUser (bcrypt). Field errors: email, password, role. */
export const createUserAction = defineAction('users.create', 'Create user', actionArgs(['input', CreateUserInput]), ({ db, actor }, input: unknown) => createUser(db, input as z.output<typeof CreateUserInput>, actor), {
  revalidate: () => ['/settings/users'],
});

/** Change a user's role or disable/enable them: lib/auth updateUser (disabling ends their sessions; their tokens stop working). */
export const updateUserAction = defineAction(
  'users.update',
  'Update user',
  actionArgs(['id', IdArg], ['input', UpdateUserInput]),
  ({ db, actor }, id: string, input: unknown) => updateUser(db, IdParams.parse({ id }).id, input as z.output<typeof UpdateUserInput>, actor),
  { revalidate: () => ['/settings/users'] },
);

/** Delete a user: lib/auth deleteUser (never yourself or the last active admin; their sessions and tokens end with the row). */
export const deleteUserAction = defineAction(
  'users.delete',
  'Delete user',
  actionArgs(['id', IdArg]),
  async ({ db, actor }, id: string) => {
    const userId = IdParams.parse({ id }).id;
    await deleteUser(db, userId, actor);
    return { id: userId };
  },
  { revalidate: () => ['/settings/users'] },
);

/** Reset a user's password: lib/auth resetUserPassword (`{ password? }`; without one a generated password is returned once). Their sessions end. */
export const resetPasswordAction = defineAction(
  'users.resetPassword',
  'Reset password',
  actionArgs(['id', IdArg], ['input', ResetPasswordInput.optional()]),
  ({ db, actor }, id: string, input?: unknown) => resetUserPassword(db, IdParams.parse({ id }).id, (input ?? {}) as z.output<typeof ResetPasswordInput>, actor),
  { revalidate: () => ['/settings/users'] },
);
