import { rest } from '@/app/_lib/rest';
import { CreateUserInput } from '@/lib/api/schemas';
import { createUser, listUsers } from '@/lib/auth/users';

export const dynamic = 'force-dynamic';

/** GET /api/v1/users (admin) -> { items } */
export const GET = rest({ operation: 'users.list' }, async ({ db, actor }) => ({ items: await listUsers(db, actor) }));

/** POST /api/v1/users (admin) { email, name?, password, role } -> 201 user */
export const POST = rest({ operation: 'users.create', body: CreateUserInput, status: 201 }, ({ db, body, actor }) =>
  createUser(db, body, actor),
);
