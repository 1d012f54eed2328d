import { rest } from '@/app/_lib/rest';
import { CreateUserInput } from '@/lib/api/schemas';
import { createUser, listUsers } from '@/lib/auth/users';

export const dynamic = 'force-dynamic';

/** GET /api/v1/users (admin) -> { items } */
export const GET = rest({ role: 'admin' }, async ({ db, actor }) => ({ items: await listUsers(db, actor) }));

/** POST /api/v1/users (admin) { email, name?, password, role } -> 201 user */
export const POST = rest({ role: 'admin', body: CreateUserInput, status: 201, operation: 'users.create' }, ({ db, body, actor }) =>
  createUser(db, body, actor),
);
