'use server';

import { CreateUserInput, IdParams, UpdateUserInput } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { createUser, updateUser } from '@/lib/auth/users';
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
