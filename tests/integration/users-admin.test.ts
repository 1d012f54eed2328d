/**
 * User administration rules: delete (never yourself, never the last active admin, even when two
 * admins delete each other at once; the user's sessions and API tokens stop working at once; the
 * history keeps their name as text) and password reset (given or generated once, the same rules
 * as creation including bcrypt's 72 bytes, sessions end, the new password logs in).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { SYSTEM_ACTOR, type Actor } from '../../lib/auth/actor.ts';
import { createUser, deleteUser, resetUserPassword, updateUser } from '../../lib/auth/users.ts';
import { createSession, getSessionActor } from '../../lib/auth/sessions.ts';
import { authenticateToken, createApiToken } from '../../lib/auth/tokens.ts';
import { login } from '../../lib/auth/login.ts';
import { LoginRateLimiter } from '../../lib/auth/rate-limit.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { call } from '../helpers/rest.ts';

let t: TestDatabase;
let n = 0;
const asActor = (u: { id: string; email: string; role: Actor['role'] }): Actor => ({ kind: 'user', id: u.id, name: u.email, role: u.role });
const mk = (role: Actor['role']) => createUser(t.db, { email: `u${++n}-${role}@users.test`, password: 'first-password', role }, SYSTEM_ACTOR);
const noLimit = new LoginRateLimiter(1000, 1000);

beforeAll(async () => {
  t = await createTestDatabase();
  process.env.DATABASE_URL = t.url;
});
afterAll(async () => {
  const { getDb } = await import('../../lib/db.ts');
  await getDb().$disconnect();
  await t.close();
});

describe('disable user', () => {
  it('ends the sessions and revokes the tokens: enabling the user again brings neither back', async () => {
    const admin = await mk('admin');
    const op = await mk('operator');
    const session = await createSession(t.db, op.id);
    const token = (await createApiToken(t.db, { name: 'ops-token', scope: 'operate', ownerId: op.id }, SYSTEM_ACTOR)).token;
    expect(await authenticateToken(t.db, token)).toMatchObject({ ownerId: op.id });
    await updateUser(t.db, op.id, { disabled: true }, asActor(admin));
    expect(await getSessionActor(t.db, session.id)).toBeNull();
    expect(await authenticateToken(t.db, token)).toBeNull();
    await updateUser(t.db, op.id, { disabled: false }, asActor(admin));
    expect(await getSessionActor(t.db, session.id)).toBeNull();
    expect(await authenticateToken(t.db, token)).toBeNull();
    expect(await t.db.apiToken.findFirstOrThrow({ where: { userId: op.id } })).toMatchObject({ revokedAt: expect.any(Date) });
    // a token made after the user is enabled again works
    const fresh = (await createApiToken(t.db, { name: 'ops-token-2', scope: 'operate', ownerId: op.id }, SYSTEM_ACTOR)).token;
    expect(await authenticateToken(t.db, fresh)).toMatchObject({ ownerId: op.id });
  });
});

describe('delete user', () => {
  it('ends the sessions and tokens at once; the history keeps the name', async () => {
    const admin = await mk('admin');
    const op = await mk('operator');
    const session = await createSession(t.db, op.id);
    const token = (await createApiToken(t.db, { name: 'ops-token', scope: 'operate', ownerId: op.id }, SYSTEM_ACTOR)).token;
    const job = await createJob(t.db, { key: `by.${op.id.slice(0, 6)}`, name: 'x', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, asActor(op));
    expect(await getSessionActor(t.db, session.id)).toMatchObject({ id: op.id });
    expect(await authenticateToken(t.db, token)).toMatchObject({ ownerId: op.id });

    await deleteUser(t.db, op.id, asActor(admin));
    expect(await getSessionActor(t.db, session.id)).toBeNull();
    expect(await authenticateToken(t.db, token)).toBeNull();
    expect(await t.db.user.findUnique({ where: { id: op.id } })).toBeNull();
    const row = await t.db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(row.createdBy).toBe(op.email);
    const version = await t.db.jobVersion.findFirstOrThrow({ where: { jobId: job.id } });
    expect(version.createdBy).toBe(op.email);
  });

  it('refuses yourself and the last active admin; a disabled admin is not counted', async () => {
    await t.db.user.deleteMany({});
    const a1 = await mk('admin');
    const a2 = await mk('admin');
    await expect(deleteUser(t.db, a1.id, asActor(a1))).rejects.toMatchObject({ code: 'conflict', message: 'You cannot delete yourself' });
    await updateUser(t.db, a2.id, { disabled: true }, asActor(a1));
    // a2 is disabled: a1 is the last active admin; a token of the system may not delete it either
    await expect(deleteUser(t.db, a1.id, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'conflict', message: 'Cannot delete the last active admin' });
    // deleting the disabled admin is fine
    await deleteUser(t.db, a2.id, asActor(a1));
    expect(await t.db.user.count({ where: { role: 'admin' } })).toBe(1);
  });

  it('two admins deleting each other at the same time leave one active admin', async () => {
    await t.db.user.deleteMany({});
    const a1 = await mk('admin');
    const a2 = await mk('admin');
    const results = await Promise.allSettled([deleteUser(t.db, a2.id, asActor(a1)), deleteUser(t.db, a1.id, asActor(a2))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(['Cannot delete the last active admin']);
    expect(await t.db.user.count({ where: { role: 'admin', disabled: false } })).toBe(1);
  });

  it('two admins disabling or demoting each other at the same time leave one active admin', async () => {
    for (const change of [{ disabled: true }, { role: 'viewer' as const }]) {
      await t.db.user.deleteMany({});
      const a1 = await mk('admin');
      const a2 = await mk('admin');
      const results = await Promise.allSettled([updateUser(t.db, a2.id, change, asActor(a1)), updateUser(t.db, a1.id, change, asActor(a2))]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(['conflict']);
      expect(await t.db.user.count({ where: { role: 'admin', disabled: false } })).toBe(1);
    }
  });

  it('only admins may delete', async () => {
    const op = await mk('operator');
    const v = await mk('viewer');
    await expect(deleteUser(t.db, v.id, asActor(op))).rejects.toMatchObject({ code: 'forbidden' });
    expect(await t.db.user.findUnique({ where: { id: v.id } })).not.toBeNull();
  });
});

describe('reset password', () => {
  it('a given password: sessions end, the old password stops working, the new one logs in; tokens keep working', async () => {
    const admin = await mk('admin');
    const v = await mk('viewer');
    const s = await createSession(t.db, v.id);
    const token = (await createApiToken(t.db, { name: 'v-token', scope: 'read', ownerId: v.id }, SYSTEM_ACTOR)).token;
    const r = await resetUserPassword(t.db, v.id, { password: 'second-password' }, asActor(admin));
    expect(r.password).toBeUndefined();
    expect(r.user.id).toBe(v.id);
    expect(await getSessionActor(t.db, s.id)).toBeNull();
    expect(await authenticateToken(t.db, token)).toMatchObject({ ownerId: v.id });
    await expect(login(t.db, { email: v.email, password: 'first-password' }, new Date(), noLimit)).rejects.toMatchObject({ code: 'unauthorized' });
    expect((await login(t.db, { email: v.email, password: 'second-password' }, new Date(), noLimit)).actor).toMatchObject({ id: v.id });
  });

  it('a generated password is returned once and logs in', async () => {
    const admin = await mk('admin');
    const v = await mk('viewer');
    const r = await resetUserPassword(t.db, v.id, {}, asActor(admin));
    expect(r.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((await login(t.db, { email: v.email, password: r.password! }, new Date(), noLimit)).actor).toMatchObject({ id: v.id });
  });

  it('the same rules as creation: at least 8 characters, at most 72 bytes; admins only; nothing changes on refusal', async () => {
    const admin = await mk('admin');
    const op = await mk('operator');
    const v = await mk('viewer');
    const s = await createSession(t.db, v.id);
    await expect(resetUserPassword(t.db, v.id, { password: 'short' }, asActor(admin))).rejects.toMatchObject({ code: 'validation', fields: { password: 'At least 8 characters' } });
    await expect(resetUserPassword(t.db, v.id, { password: 'é'.repeat(37) }, asActor(admin))).rejects.toMatchObject({ code: 'validation', fields: { password: expect.stringContaining('72 bytes') } });
    await expect(resetUserPassword(t.db, v.id, { password: 'valid-password' }, asActor(op))).rejects.toMatchObject({ code: 'forbidden' });
    expect(await getSessionActor(t.db, s.id)).toMatchObject({ id: v.id });

    const { POST } = await import('../../app/api/v1/users/[id]/password/route.ts');
    const adminToken = (await createApiToken(t.db, { name: 'adm', scope: 'admin', ownerId: admin.id }, SYSTEM_ACTOR)).token;
    const tooLong = await call(POST, 'POST', `/api/v1/users/${v.id}/password`, { token: adminToken, params: { id: v.id }, body: { password: 'é'.repeat(37) } });
    expect(tooLong.status).toBe(400);
    expect(Object.keys(tooLong.json.error.fields)).toEqual(['password']);
    const gen = await call(POST, 'POST', `/api/v1/users/${v.id}/password`, { token: adminToken, params: { id: v.id } });
    expect(gen.status).toBe(200);
    expect(gen.json.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await getSessionActor(t.db, s.id)).toBeNull();
    expect((await call(POST, 'POST', `/api/v1/users/nope/password`, { token: adminToken, params: { id: 'nope' }, body: { password: 'valid-password' } })).status).toBe(404);
  });
});
