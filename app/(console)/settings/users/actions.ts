'use server';

import { CreateUserInput, IdParams, ResetPasswordInput, UpdateUserInput } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { createUser, deleteUser, resetUserPassword, updateUser } from '@/lib/auth/users';
import { defineAction } from '@/app/_actions/define-action';

/** Create an operator account: lib/auth createUser (bcrypt). Field errors: email, password, role. */
export const createUserAction = defineAction('users.create', 'Create user', ({ db, actor }, input: unknown) => createUser(db, parseOrThrow(CreateUserInput, input), actor), {
  revalidate: () => ['/settings/users'],
});

/** Change a user's role or disable/enable them: lib/auth updateUser (disabling ends their sessions; their tokens stop working). */
export const updateUserAction = defineAction(
  'users.update',
  'Update user',
  ({ db, actor }, id: string, input: unknown) => updateUser(db, IdParams.parse({ id }).id, parseOrThrow(UpdateUserInput, input), actor),
  { revalidate: () => ['/settings/users'] },
);

/** Delete a user: lib/auth deleteUser (never yourself or the last active admin; their sessions and tokens end with the row). */
export const deleteUserAction = defineAction(
  'users.delete',
  'Delete user',
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
  ({ db, actor }, id: string, input: unknown) => resetUserPassword(db, IdParams.parse({ id }).id, parseOrThrow(ResetPasswordInput, input ?? {}), actor),
  { revalidate: () => ['/settings/users'] },
);
