import { rest } from '@/app/_lib/rest';
import { EmptyInput, IdParams, UpdateUserInput } from '@/lib/api/schemas';
import { deleteUser, updateUser } from '@/lib/auth/users';
import { isUuid } from '@/lib/api/ids';
import { DomainError } from '@/lib/errors';

export const dynamic = 'force-dynamic';

const check = (id: string) => {
  if (!isUuid(id)) throw new DomainError('not_found', `User ${id} not found`);
  return id;
};

/** PATCH /api/v1/users/:id (admin) { name?, role?, disabled?, password? } -> user */
export const PATCH = rest({ operation: 'users.update', params: IdParams, resource: 'user', body: UpdateUserInput }, ({ db, params, body, actor }) =>
  updateUser(db, check(params.id), body, actor),
);

/** DELETE /api/v1/users/:id (admin; no body, or `{}`: any field is a 400) -> { deleted: true } */
export const DELETE = rest({ operation: 'users.delete', params: IdParams, resource: 'user', body: EmptyInput }, async ({ db, params, actor }) => {
  await deleteUser(db, check(params.id), actor);
  return { deleted: true, id: params.id };
});
