/**
 * Operator accounts (admin only, see lib/auth/actor.ts). Emails are stored
 * lower-cased. Passwords hashed with bcrypt (cost 12).
 */
import { inTransaction, type Db } from '../db.ts';
import { randomToken } from './crypto.ts';
import { isUuid } from '../api/ids.ts';
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
 * a user ends their sessions and revokes their API tokens, changing the password ends their
 * sessions, in the same transaction (docs/security.md "Tokens"). An admin
 * cannot demote or disable the last enabled admin: checked under a lock of the admin rows
 * (lockActiveAdmins), so two admins disabling or demoting each other at once cannot both pass.
 * @throws DomainError('not_found'), ('validation', field password), ('conflict', fields role
 *   and/or disabled) for the last active admin.
 */
export async function updateUser(db: Db, id: string, data: UpdateUserData, actor: Actor): Promise<UserView> {
  requireCan(actor, 'users.manage');
  // a malformed id would abort the transaction below (uuid column): answer 404 before it starts
  if (!isUuid(id)) throw new DomainError('not_found', `User ${id} not found`);
  let passwordHash: string | undefined;
  if (data.password !== undefined) {
    assertPasswordStrength(data.password);
    // hashed before the transaction: it takes tens of milliseconds of CPU and needs no row
    passwordHash = await hashPassword(data.password);
  }
  const demoting = !!data.role && data.role !== 'admin';
  const disabling = data.disabled === true;
  return inTransaction(db, async (tx) => {
    const activeAdmins = demoting || disabling ? await lockActiveAdmins(tx) : Infinity;
    const user = await tx.user.findUnique({ where: { id } });
    if (!user) throw new DomainError('not_found', `User ${id} not found`);
    const losingAdmin = user.role === 'admin' && !user.disabled && (demoting || disabling);
    if (losingAdmin && activeAdmins <= 1) {
      // named at the field that asks for it: both when one request does both
      const fields = { ...(demoting ? { role: 'Cannot demote the last admin' } : {}), ...(disabling ? { disabled: 'Cannot disable the last admin' } : {}) };
      throw new DomainError('conflict', `Cannot ${demoting && disabling ? 'demote or disable' : demoting ? 'demote' : 'disable'} the last admin`, fields);
    }
    const row = await tx.user.update({
      where: { id },
      data: { name: data.name, role: data.role, disabled: data.disabled, passwordHash },
    });
    if (data.disabled || passwordHash) await tx.session.deleteMany({ where: { userId: id } });
    // A user is disabled when their access must end (they left, their credentials leaked): their
    // tokens are revoked with the sessions, so enabling them again brings neither back.
    if (data.disabled && !user.disabled) await tx.apiToken.updateMany({ where: { userId: id, revokedAt: null }, data: { revokedAt: new Date() } });
    return toUserView(row);
  });
}

/**
 * Locks the active admins' rows (FOR UPDATE) and counts them, so two admins removing each other
 * at the same time cannot both pass the last-admin check: the second waits and counts again.
 */
async function lockActiveAdmins(tx: Db): Promise<number> {
  const rows = await tx.$queryRawUnsafe<{ id: string }[]>(`SELECT id::text FROM users WHERE role = 'admin' AND NOT disabled ORDER BY id FOR UPDATE`);
  return rows.length;
}

/**
 * Deletes a user. Admin only; never yourself, never the last active admin (checked under a lock
 * of the admin rows). The row is deleted, not marked: sessions and API tokens are the only rows
 * that reference a user (both ON DELETE CASCADE), so the user's sessions and tokens stop working
 * in the same transaction; every history column (created_by, updated_by, triggered_by, job
 * versions and audit, alarm acknowledgements and silences) stores the actor's email as text, so
 * their name stays readable there (docs/security.md "Users").
 * @throws DomainError('not_found'), ('conflict') for yourself or the last active admin.
 */
export async function deleteUser(db: Db, id: string, actor: Actor): Promise<void> {
  requireCan(actor, 'users.manage');
  if (actor.kind === 'user' && actor.id === id) throw new DomainError('conflict', 'You cannot delete yourself');
  // a malformed id would abort the transaction below (uuid column): answer 404 before it starts
  if (!isUuid(id)) throw new DomainError('not_found', `User ${id} not found`);
  await inTransaction(db, async (tx) => {
    const activeAdmins = await lockActiveAdmins(tx);
    const user = await tx.user.findUnique({ where: { id } });
    if (!user) throw new DomainError('not_found', `User ${id} not found`);
    if (user.role === 'admin' && !user.disabled && activeAdmins <= 1) throw new DomainError('conflict', 'Cannot delete the last active admin');
    await tx.user.delete({ where: { id } });
  });
}

/** Length of a generated password (base64url characters; 18 random bytes = 144 bits). */
export const GENERATED_PASSWORD_LENGTH = 24;

/**
 * Resets a user's password: the admin gives a new one (`password`, the same rules as creation:
 * at least 8 characters, at most 72 UTF-8 bytes) or, without one, a random password is
 * generated and returned once (never stored in clear, never shown again). Every session of
 * the user ends in the same transaction; their API tokens keep working (revoke those under
 * Settings → API tokens). Admin only.
 * @returns the user and, when generated, `password`.
 * @throws DomainError('validation', field password), ('not_found').
 */
export async function resetUserPassword(db: Db, id: string, input: { password?: string }, actor: Actor): Promise<{ user: UserView; password?: string }> {
  requireCan(actor, 'users.manage');
  const generated = input.password === undefined ? randomToken(18) : undefined;
  const password = input.password ?? generated!;
  assertPasswordStrength(password);
  const existing = isUuid(id) ? await db.user.findUnique({ where: { id } }) : null;
  if (!existing) throw new DomainError('not_found', `User ${id} not found`);
  const passwordHash = await hashPassword(password);
  const row = await inTransaction(db, async (tx) => {
    const n = await tx.user.updateMany({ where: { id }, data: { passwordHash } });
    if (n.count === 0) throw new DomainError('not_found', `User ${id} not found`);
    await tx.session.deleteMany({ where: { userId: id } });
    return (await tx.user.findUnique({ where: { id } }))!;
  });
  return { user: toUserView(row), ...(generated ? { password: generated } : {}) };
}
