/**
 * Operator accounts (admin only, see lib/auth/actor.ts). Emails are stored
 * lower-cased. Passwords hashed with bcrypt (cost 12).
 */
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import type { User } from '../generated/prisma/client.ts';
import { type Actor, type Role, requireCan } from './actor.ts';
import { assertPasswordStrength, hashPassword } from './password.ts';

export type UserView = {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  lastLoginAt: string | null;
  createdAt: string;
};

export function toUserView(u: User): UserView {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    disabled: u.disabled,
    lastLoginAt: u.lastLoginAt?.toISOString() ?? null,
    createdAt: u.createdAt.toISOString(),
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Lists users ordered by email. Admin only. */
export async function listUsers(db: Db, actor: Actor): Promise<UserView[]> {
  requireCan(actor, 'users.manage');
  const rows = await db.user.findMany({ orderBy: { email: 'asc' } });
  return rows.map(toUserView);
}

export type CreateUserData = { email: string; name?: string; password: string; role: Role };

/**
 * Creates a user. Admin only (pass SYSTEM_ACTOR from bootstrap code).
 * @throws DomainError('conflict') when the email exists (field `email`).
 */
export async function createUser(db: Db, data: CreateUserData, actor: Actor): Promise<UserView> {
  requireCan(actor, 'users.manage');
  assertPasswordStrength(data.password);
  const email = normalizeEmail(data.email);
  const existing = await db.user.findUnique({ where: { email } });
  if (existing) throw new DomainError('conflict', `A user with email ${email} already exists`, { email: 'Already in use' });
  const passwordHash = await hashPassword(data.password);
  const row = await db.user.create({ data: { email, name: data.name ?? '', passwordHash, role: data.role } });
  return toUserView(row);
}

export type UpdateUserData = { name?: string; role?: Role; disabled?: boolean; password?: string };

/**
 * Updates a user's name, role, disabled flag or password. Admin only. Disabling
 * a user or changing the password ends their sessions. An admin cannot demote
 * or disable the last enabled admin.
 */
export async function updateUser(db: Db, id: string, data: UpdateUserData, actor: Actor): Promise<UserView> {
  requireCan(actor, 'users.manage');
  const user = await db.user.findUnique({ where: { id } }).catch(() => null);
  if (!user) throw new DomainError('not_found', `User ${id} not found`);
  const losingAdmin = user.role === 'admin' && !user.disabled && ((data.role && data.role !== 'admin') || data.disabled === true);
  if (losingAdmin) {
    const admins = await db.user.count({ where: { role: 'admin', disabled: false } });
    if (admins <= 1) throw new DomainError('conflict', 'Cannot demote or disable the last admin', { role: 'Last admin' });
  }
  let passwordHash: string | undefined;
  if (data.password !== undefined) {
    assertPasswordStrength(data.password);
    passwordHash = await hashPassword(data.password);
  }
  const row = await db.user.update({
    where: { id },
    data: { name: data.name, role: data.role, disabled: data.disabled, passwordHash },
  });
  if (data.disabled || passwordHash) await db.session.deleteMany({ where: { userId: id } });
  return toUserView(row);
}

/** Deletes a user (their sessions and tokens go with it). Admin only; never the last admin or yourself. */
export async function deleteUser(db: Db, id: string, actor: Actor): Promise<void> {
  requireCan(actor, 'users.manage');
  const user = await db.user.findUnique({ where: { id } }).catch(() => null);
  if (!user) throw new DomainError('not_found', `User ${id} not found`);
  if (actor.kind === 'user' && actor.id === id) throw new DomainError('conflict', 'You cannot delete yourself');
  if (user.role === 'admin') {
    const admins = await db.user.count({ where: { role: 'admin', disabled: false } });
    if (admins <= 1) throw new DomainError('conflict', 'Cannot delete the last admin');
  }
  await db.user.delete({ where: { id } });
}
