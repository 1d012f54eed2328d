/**
 * Auth: bootstrap admin, login + sessions (hashed, 7 days), rate limiting,
 * session cookie on REST, roles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { useTestDatabase, createTestDatabase } from '../helpers/db.ts';
import { SYSTEM_ACTOR, can, requireRole, type Actor } from '../../lib/auth/actor.ts';
import { ensureAdminUser } from '../../lib/auth/bootstrap.ts';
import { bootstrap } from '../../prisma/seed.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { login, logout } from '../../lib/auth/login.ts';
import { LoginRateLimiter, limitedClient } from '../../lib/auth/rate-limit.ts';
import { getSessionActor, SESSION_TTL_MS } from '../../lib/auth/sessions.ts';
import { createUser, updateUser } from '../../lib/auth/users.ts';
import { DomainError } from '../../lib/errors.ts';
import * as jobs from '../../app/api/v1/jobs/route.ts';

async function rejects(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return e as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('auth', () => {
  const t = useTestDatabase();
  const NOW = new Date('2026-03-07T12:00:00Z');
  beforeAll(async () => {
    process.env.DATABASE_URL = t.url;
  });
  afterAll(async () => {
    const { getDb } = await import('../../lib/db.ts');
    await getDb().$disconnect();
  });

  it('ensureAdminUser creates admin@tickflow.local with a one-time random password, then does nothing', async () => {
    delete process.env.TICKFLOW_ADMIN_EMAIL;
    delete process.env.TICKFLOW_ADMIN_PASSWORD;
    const first = await ensureAdminUser(t.db);
    expect(first?.email).toBe('admin@tickflow.local');
    expect(first?.password).toMatch(/^\S{12,}$/);
    const row = await t.db.user.findUniqueOrThrow({ where: { email: 'admin@tickflow.local' } });
    expect(row.role).toBe('admin');
    expect(row.passwordHash).toMatch(/^\$2[aby]\$12\$/);
    expect(await ensureAdminUser(t.db)).toBeNull();
    const r = await login(t.db, { email: 'ADMIN@tickflow.local', password: first!.password!, client: '1.1.1.1' }, NOW, new LoginRateLimiter());
    expect(r.actor).toMatchObject({ kind: 'user', role: 'admin', name: 'admin@tickflow.local' });
  });

  it('the first start saves the generated login to initial-admin-password.txt, labelled and saying to delete it', async () => {
    const t2 = await createTestDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), 'tickflow-admin-'));
    const before = process.env.TICKFLOW_DATA_DIR;
    try {
      delete process.env.TICKFLOW_ADMIN_EMAIL;
      delete process.env.TICKFLOW_ADMIN_PASSWORD;
      process.env.TICKFLOW_DATA_DIR = dir;
      const boot = await bootstrap(t2.url, { consoleUrl: 'http://127.0.0.1:3000', seed: false });
      const text = readFileSync(path.join(dir, 'initial-admin-password.txt'), 'utf8');
      const lines = text.split('\n');
      expect(lines).toContain('email: admin@tickflow.local');
      const password = lines.find((l) => l.startsWith('password: '))!.slice('password: '.length);
      expect(password).toMatch(/^\S{12,}$/);
      expect(text).toMatch(/delete this file/);
      expect(boot.messages[0]).toBe(`created admin admin@tickflow.local with password ${password} (also saved in ${path.join(dir, 'initial-admin-password.txt')}; change it under Settings → Users, then delete that file)`);
      const r = await login(t2.db, { email: 'admin@tickflow.local', password }, NOW, new LoginRateLimiter());
      expect(r.actor.role).toBe('admin');
      // every later start reminds of the file while it is there, and stops once it is gone
      const file = path.join(dir, 'initial-admin-password.txt');
      expect((await bootstrap(t2.url, { consoleUrl: 'http://127.0.0.1:3000', seed: false })).messages)
        .toContain(`${file} still holds the first admin password: once you have changed it under Settings → Users, delete that file`);
      rmSync(file);
      expect((await bootstrap(t2.url, { consoleUrl: 'http://127.0.0.1:3000', seed: false })).messages.join('\n')).not.toContain('first admin password');
    } finally {
      if (before === undefined) delete process.env.TICKFLOW_DATA_DIR;
      else process.env.TICKFLOW_DATA_DIR = before;
      rmSync(dir, { recursive: true, force: true });
      await t2.close();
    }
  });

  it('starters side by side on a new database (two consoles): both succeed, one admin, demo and system jobs created once', async () => {
    const t2 = await createTestDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), 'tickflow-admin-'));
    const saved = { dir: process.env.TICKFLOW_DATA_DIR, email: process.env.TICKFLOW_ADMIN_EMAIL, password: process.env.TICKFLOW_ADMIN_PASSWORD };
    try {
      process.env.TICKFLOW_DATA_DIR = dir;
      process.env.TICKFLOW_ADMIN_EMAIL = 'ops@example.com';
      process.env.TICKFLOW_ADMIN_PASSWORD = 'side-by-side-password-1';
      const boots = await Promise.all([0, 1, 2].map(() => bootstrap(t2.url, { consoleUrl: 'http://127.0.0.1:3000' })));
      expect(boots.filter((b) => b.seeded.length > 0)).toHaveLength(1);
      expect(boots.filter((b) => b.messages.some((m) => m.startsWith('created admin')))).toHaveLength(1);
      expect(boots.filter((b) => b.messages.some((m) => m.startsWith('created system jobs')))).toHaveLength(1);
      const keys = (await t2.db.job.findMany({ select: { key: true } })).map((j) => j.key);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys).toContain('demo.health-check');
      expect(await t2.db.user.count()).toBe(1);
    } finally {
      for (const [k, v] of [['TICKFLOW_DATA_DIR', saved.dir], ['TICKFLOW_ADMIN_EMAIL', saved.email], ['TICKFLOW_ADMIN_PASSWORD', saved.password]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(dir, { recursive: true, force: true });
      await t2.close();
    }
  });

  it('ensureAdminUser refuses a TICKFLOW_ADMIN_EMAIL that is no email address, or a password the console would refuse, naming the variable and creating nobody', async () => {
    const t2 = await createTestDatabase();
    try {
      process.env.TICKFLOW_ADMIN_EMAIL = 'not an email';
      process.env.TICKFLOW_ADMIN_PASSWORD = 'correct horse';
      await expect(ensureAdminUser(t2.db)).rejects.toThrow(/^TICKFLOW_ADMIN_EMAIL: Must be an email address/);
      process.env.TICKFLOW_ADMIN_EMAIL = 'boss@corp.io';
      process.env.TICKFLOW_ADMIN_PASSWORD = 'x';
      await expect(ensureAdminUser(t2.db)).rejects.toThrow(/^TICKFLOW_ADMIN_PASSWORD: At least 8 characters/);
      expect(await t2.db.user.count()).toBe(0);
    } finally {
      delete process.env.TICKFLOW_ADMIN_EMAIL;
      delete process.env.TICKFLOW_ADMIN_PASSWORD;
      await t2.close();
    }
  });

  it('ensureAdminUser takes TICKFLOW_ADMIN_EMAIL / PASSWORD and does not echo the password', async () => {
    const t2 = await createTestDatabase();
    try {
      process.env.TICKFLOW_ADMIN_EMAIL = 'boss@corp.io';
      process.env.TICKFLOW_ADMIN_PASSWORD = 'correct horse';
      expect(await ensureAdminUser(t2.db)).toEqual({ email: 'boss@corp.io' });
      const r = await login(t2.db, { email: 'boss@corp.io', password: 'correct horse' }, NOW, new LoginRateLimiter());
      expect(r.actor.role).toBe('admin');
    } finally {
      delete process.env.TICKFLOW_ADMIN_EMAIL;
      delete process.env.TICKFLOW_ADMIN_PASSWORD;
      await t2.close();
    }
  });

  it('sessions are stored hashed, last 7 days, end on logout and when the user is disabled', async () => {
    await createUser(t.db, { email: 'op@x.io', password: 'operator-pass', role: 'operator' }, SYSTEM_ACTOR);
    const limiter = new LoginRateLimiter();
    const r = await login(t.db, { email: 'op@x.io', password: 'operator-pass', client: '2.2.2.2' }, NOW, limiter);
    expect(r.sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.expiresAt.getTime() - NOW.getTime()).toBe(SESSION_TTL_MS);
    expect(await t.db.session.count({ where: { id: r.sessionId } })).toBe(0);
    expect(await t.db.session.count({ where: { id: createHash('sha256').update(r.sessionId).digest('hex') } })).toBe(1);
    expect(await getSessionActor(t.db, r.sessionId, NOW)).toMatchObject({ name: 'op@x.io', role: 'operator' });
    expect(await getSessionActor(t.db, r.sessionId, new Date(NOW.getTime() + SESSION_TTL_MS + 1))).toBeNull();

    // the session cookie authenticates REST calls too (the route uses the wall clock)
    const live = await login(t.db, { email: 'op@x.io', password: 'operator-pass', client: '2.2.2.2' }, new Date(), limiter);
    const res = await jobs.GET(new Request('http://localhost/api/v1/jobs', { headers: { cookie: `other=1; tickflow_session=${live.sessionId}` } }));
    expect(res.status).toBe(200);
    const post = await jobs.POST(new Request('http://localhost/api/v1/jobs', { method: 'POST', body: '{}', headers: { cookie: `tickflow_session=${live.sessionId}`, 'content-type': 'application/json' } }));
    expect(post.status).toBe(400); // operator may create; the body is just empty
    // a cookie-authenticated write that is not declared JSON (a cross-site form/simple request) is refused (CSRF)
    const plain = await jobs.POST(new Request('http://localhost/api/v1/jobs', { method: 'POST', body: '{}', headers: { cookie: `tickflow_session=${live.sessionId}` } }));
    expect(plain.status).toBe(403);
    await logout(t.db, live.sessionId);
    expect((await jobs.GET(new Request('http://localhost/api/v1/jobs', { headers: { cookie: `tickflow_session=${live.sessionId}` } }))).status).toBe(401);
    await logout(t.db, r.sessionId);
    expect(await getSessionActor(t.db, r.sessionId, NOW)).toBeNull();

    const r2 = await login(t.db, { email: 'op@x.io', password: 'operator-pass', client: '2.2.2.2' }, NOW, limiter);
    const user = await t.db.user.findUniqueOrThrow({ where: { email: 'op@x.io' } });
    const admin = await t.db.user.findFirstOrThrow({ where: { role: 'admin' } });
    const adminActor: Actor = { kind: 'user', id: admin.id, name: admin.email, role: 'admin' };
    await updateUser(t.db, user.id, { disabled: true }, adminActor);
    expect(await getSessionActor(t.db, r2.sessionId, NOW)).toBeNull();
    expect((await rejects(login(t.db, { email: 'op@x.io', password: 'operator-pass' }, NOW, limiter))).status).toBe(401);
    // cannot demote the last admin
    expect((await rejects(updateUser(t.db, admin.id, { role: 'viewer' }, adminActor))).status).toBe(409);
  });

  it('rate-limits logins: 5 failures per email+IP in 15 minutes, then 429 even with the right password', async () => {
    await createUser(t.db, { email: 'rl@x.io', password: 'right-password', role: 'viewer' }, SYSTEM_ACTOR);
    const limiter = new LoginRateLimiter();
    for (let i = 0; i < 5; i++) {
      const e = await rejects(login(t.db, { email: 'rl@x.io', password: `wrong${i}`, client: '9.9.9.9' }, new Date(NOW.getTime() + i * 1000), limiter));
      expect(e.code).toBe('unauthorized');
    }
    const blocked = await rejects(login(t.db, { email: 'rl@x.io', password: 'right-password', client: '9.9.9.9' }, new Date(NOW.getTime() + 10_000), limiter));
    expect(blocked.status).toBe(429);
    expect(blocked.detail?.retryAfterSeconds).toBeGreaterThan(800);
    // another IP is not blocked
    await login(t.db, { email: 'rl@x.io', password: 'right-password', client: '8.8.8.8' }, new Date(NOW.getTime() + 10_000), limiter);
    // after the window the right password works again, and success resets the counter
    const later = new Date(NOW.getTime() + 15 * 60_000 + 5_000);
    const ok = await login(t.db, { email: 'rl@x.io', password: 'right-password', client: '9.9.9.9' }, later, limiter);
    expect(ok.actor.name).toBe('rl@x.io');
    // unknown emails count too (no enumeration), and say the same thing
    const unknown = await rejects(login(t.db, { email: 'ghost@x.io', password: 'x', client: '9.9.9.9' }, later, limiter));
    expect(unknown.message).toBe('Invalid email or password');
  });

  it('counts an IPv6 client as its /64: a fresh address of the same network per guess gets no fresh allowance', async () => {
    await createUser(t.db, { email: 'rl6@x.io', password: 'right-password', role: 'viewer' }, SYSTEM_ACTOR);
    const limiter = new LoginRateLimiter();
    // one host may use any address of its /64 (SLAAC privacy addresses): one guess from each
    for (let i = 0; i < 5; i++) {
      const e = await rejects(login(t.db, { email: 'rl6@x.io', password: `wrong${i}`, client: `2001:db8:1:2::${(i + 1).toString(16)}` }, new Date(NOW.getTime() + i * 1000), limiter));
      expect(e.code).toBe('unauthorized');
    }
    const blocked = await rejects(login(t.db, { email: 'rl6@x.io', password: 'right-password', client: '2001:db8:1:2:ffff:1:2:3' }, new Date(NOW.getTime() + 10_000), limiter));
    expect(blocked.status).toBe(429);
    // the per-client limit over all accounts counts the network too
    for (let i = 0; i < 15; i++) await rejects(login(t.db, { email: `spray${i}@x.io`, password: 'x', client: `2001:db8:1:2:0:0:1:${i.toString(16)}` }, new Date(NOW.getTime() + 20_000 + i), limiter));
    expect((await rejects(login(t.db, { email: 'other@x.io', password: 'x', client: '2001:db8:1:2::beef' }, new Date(NOW.getTime() + 30_000), limiter))).status).toBe(429);
    // another /64 is another client, and an IPv4 client (mapped or not) is its address
    await login(t.db, { email: 'rl6@x.io', password: 'right-password', client: '2001:db8:1:3::1' }, new Date(NOW.getTime() + 30_000), limiter);
    expect(limitedClient('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(limitedClient('9.9.9.9')).toBe('9.9.9.9');
    expect(limitedClient('unknown')).toBe('unknown');
  });

  it('roles: viewer < operator < admin', () => {
    const v: Actor = { kind: 'token', id: 't', name: 'token:v', role: 'viewer' };
    const o: Actor = { ...v, role: 'operator' };
    expect(can(v, 'read')).toBe(true);
    expect(can(v, 'jobs.write')).toBe(false);
    expect(can(o, 'jobs.write')).toBe(true);
    expect(can(o, 'users.manage')).toBe(false);
    expect(can(SYSTEM_ACTOR, 'users.manage')).toBe(true);
    expect(can(null, 'read')).toBe(false);
    expect(() => requireRole(null, 'viewer')).toThrow(/Authentication/);
    expect(() => requireRole(v, 'operator')).toThrow(/operator/);
  });
});
