/**
 * The role matrix (docs/security.md "Roles"): every REST route of the OpenAPI
 * document and every console server action, called as viewer, operator and admin
 * (session cookie) and with a token of each scope, is allowed or refused as the
 * EXPECTED table below says — and a refusal changes nothing in the database.
 *
 * A new route or action fails here until it names an operation of
 * lib/auth/permissions.ts and this table states who may call it.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SYSTEM_ACTOR, type Role } from '../../lib/auth/actor.ts';
import { filesUnder } from '../helpers/files-under.ts';
import { OPERATIONS, operationMinRole, type Operation } from '../../lib/auth/permissions.ts';
import { ROLE_OF_SCOPE, TOKEN_SCOPES } from '../../lib/auth/scopes.ts';
import { createSession, SESSION_COOKIE } from '../../lib/auth/sessions.ts';
import { createApiToken } from '../../lib/auth/tokens.ts';
import { createUser } from '../../lib/auth/users.ts';
import { buildOpenApiDocument } from '../../lib/api/openapi.ts';
import { useTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { call, type RouteHandler } from '../helpers/rest.ts';

// Server actions read the session cookie through next/headers; here the cookie is
// the session of the role under test (the real session lookup runs).
const cookieJar = vi.hoisted(() => ({ session: '' as string }));
vi.mock('next/headers', () => ({
  cookies: async () => ({
    get: (name: string) => (name === 'tickflow_session' && cookieJar.session ? { name, value: cookieJar.session } : undefined),
    set: () => undefined,
    delete: () => undefined,
  }),
  headers: async () => new Headers(),
}));
// revalidatePath needs Next's request store; nothing to revalidate in a test
vi.mock('next/cache', () => ({ revalidatePath: () => undefined }));

/** Who may call each operation: the contract this test holds the code to. */
const EXPECTED: Record<Operation, Role | 'public'> = {
  health: 'public',
  'schedule.preview': 'viewer',
  openapi: 'public',
  'session.signIn': 'public',
  'session.signOut': 'public',
  'session.displayTimeZone': 'viewer',
  'jobs.list': 'viewer',
  'jobs.get': 'viewer',
  'jobs.versions': 'viewer',
  'jobs.version': 'viewer',
  'jobs.diff': 'viewer',
  'recycleBin.list': 'viewer',
  'runs.list': 'viewer',
  'runs.get': 'viewer',
  'workers.list': 'viewer',
  'handlers.list': 'viewer',
  'tasks.logs': 'viewer',
  'logs.search': 'viewer',
  'stats.daily': 'viewer',
  'stats.overview': 'viewer',
  'stats.series': 'viewer',
  'alarms.list': 'viewer',
  'alarms.silences': 'viewer',
  'jobs.create': 'operator',
  'jobs.update': 'operator',
  'jobs.saveDag': 'operator',
  'jobs.delete': 'operator',
  'jobs.restore': 'operator',
  'jobs.purge': 'operator',
  'jobs.pause': 'operator',
  'jobs.resume': 'operator',
  'jobs.rollback': 'operator',
  'jobs.bulk': 'operator',
  'jobs.import': 'operator',
  'jobs.trigger': 'operator',
  'runs.cancel': 'operator',
  'runs.retry': 'operator',
  'tasks.retry': 'operator',
  'tasks.markSuccess': 'operator',
  'tasks.clear': 'operator',
  'jobs.backfillPreview': 'operator',
  'jobs.backfill': 'operator',
  'jobs.audit': 'viewer',
  'jobs.grid': 'viewer',
  'jobs.calendar': 'viewer',
  'workers.drain': 'operator',
  'workers.resume': 'operator',
  'alarms.test': 'operator',
  'alarms.acknowledge': 'operator',
  'alarms.silence': 'operator',
  'alarms.unsilence': 'operator',
  'users.list': 'admin',
  'users.create': 'admin',
  'users.update': 'admin',
  'users.delete': 'admin',
  'users.resetPassword': 'admin',
  'tokens.list': 'admin',
  'tokens.create': 'admin',
  'tokens.revoke': 'admin',
  'stats.setZone': 'admin',
};

const RANK = { viewer: 1, operator: 2, admin: 3 } as const;
const allowed = (need: Role | 'public', role: Role) => need === 'public' || RANK[role] >= RANK[need];
const ROOT = path.resolve(import.meta.dirname, '../..');

/** app/api/v1 route file of an OpenAPI path template (`/jobs/{id}` -> app/api/v1/jobs/[id]/route.ts). */
function routeFile(template: string): string {
  return path.join(ROOT, 'app/api/v1', template.replace(/\{([^}]+)\}/g, '[$1]'), 'route.ts');
}

/** Every `actions.ts` under app/ (server action modules). */
function actionFiles(): string[] {
  return filesUnder(path.join(ROOT, 'app'), (name) => name === 'actions.ts');
}

/** Row counts of every table a refused call could touch. */
async function snapshot(t: TestDatabase): Promise<Record<string, number>> {
  const tables = ['jobs', 'job_steps', 'job_edges', 'job_versions', 'runs', 'tasks', 'task_logs', 'users', 'api_tokens', 'alarms', 'alarm_silences', 'idempotency_keys', 'settings', 'handler_stats_daily'];
  const out: Record<string, number> = {};
  for (const tb of tables) out[tb] = Number((await t.pool.query(`SELECT count(*)::int AS n FROM ${tb}`)).rows[0].n);
  out.draining = Number((await t.pool.query(`SELECT count(*)::int AS n FROM worker_nodes WHERE status <> 'online'`)).rows[0].n);
  out.paused = Number((await t.pool.query(`SELECT count(*)::int AS n FROM jobs WHERE status <> 'active'`)).rows[0].n);
  return out;
}

describe('role matrix', () => {
  const t = useTestDatabase();
  const sessions = {} as Record<Role, string>;
  const tokens = {} as Record<string, string>;
  let jobId: string;

  beforeAll(async () => {
    process.env.DATABASE_URL = t.url;
    for (const role of ['viewer', 'operator', 'admin'] as const) {
      const u = await createUser(t.db, { email: `${role}@matrix.test`, password: 'matrix-password', role }, SYSTEM_ACTOR);
      sessions[role] = (await createSession(t.db, u.id)).id;
      if (role === 'admin') {
        for (const scope of TOKEN_SCOPES) tokens[scope] = (await createApiToken(t.db, { name: `scope-${scope}`, scope, ownerId: u.id }, SYSTEM_ACTOR)).token;
      }
    }
    // something real for the refused calls to try to change
    const { createJob } = await import('../../lib/jobs/create-job.ts');
    jobId = (await createJob(t.db, { key: 'matrix.job', name: 'm', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, SYSTEM_ACTOR)).id;
    await t.pool.query(`INSERT INTO worker_nodes (node_id, name, host, pid) VALUES ('matrix-node', 'w', 'h', 1), ('matrix-node-2', 'w2', 'h', 2)`);
  });
  afterAll(async () => {
    const { getDb } = await import('../../lib/db.ts');
    await getDb().$disconnect();
  });

  it('every operation of lib/auth/permissions.ts has an expected decision here, and the same one', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const op of Object.keys(OPERATIONS) as Operation[]) expect(operationMinRole(op), op).toBe(EXPECTED[op]);
  });

  it('every REST route of the OpenAPI document names its operation and answers each role and token scope as expected', async () => {
    const paths = buildOpenApiDocument().paths as Record<string, Record<string, { operationId?: string }>>;
    let checked = 0;
    for (const [template, ops] of Object.entries(paths)) {
      const mod = (await import(pathToFileURL(routeFile(template)).href)) as Record<string, RouteHandler & { operation?: string }>;
      for (const [method, doc] of Object.entries(ops)) {
        const label = `${method.toUpperCase()} ${template}`;
        const handler = mod[method.toUpperCase()];
        expect(handler, label).toBeTypeOf('function');
        expect(handler!.operation, `${label} names an operation`).toBeDefined();
        expect(handler!.operation, label).toBe(doc.operationId);
        const need = EXPECTED[handler!.operation as Operation];
        expect(need, `${label}: ${handler!.operation} has an expected decision`).toBeDefined();
        const params = Object.fromEntries([...template.matchAll(/\{([^}]+)\}/g)].map((m) => [m[1]!, m[1] === 'version' ? '1' : m[1] === 'id' && template.startsWith('/jobs/{id}') ? jobId : randomUUID()]));
        if (template.startsWith('/workers/{id}')) params.id = 'matrix-node';
        const url = `/api/v1${template.replace(/\{([^}]+)\}/g, (_, k: string) => params[k]!)}`;
        const body = method === 'get' ? undefined : {};

        // every caller: anonymous, a session per role (cookie; writes are same-origin JSON as
        // the console sends them), a token per scope (all owned by an admin: the scope decides)
        type Caller = { who: string; role: Role | null; opts: { headers?: Record<string, string>; token?: string }; suffix: string };
        const callers: Caller[] = [
          { who: 'anonymous', role: null, opts: {}, suffix: '' },
          ...(['viewer', 'operator', 'admin'] as const).map((role) => ({ who: `${role} session`, role, opts: { headers: { cookie: `${SESSION_COOKIE}=${sessions[role]}`, origin: 'http://localhost' } }, suffix: '' })),
          ...TOKEN_SCOPES.map((scope) => ({ who: `${scope} token`, role: ROLE_OF_SCOPE[scope], opts: { token: tokens[scope] }, suffix: ' (token scope)' })),
        ];
        const refused = callers.filter((c) => need !== 'public' && (c.role === null || !allowed(need, c.role)));
        const before = await snapshot(t);
        for (const c of refused) {
          const r = await call(handler!, method.toUpperCase(), url, { params, body, ...c.opts });
          if (c.role === null) {
            expect(r.status, `${label} ${c.who}`).toBe(401);
            expect(r.json.error.message).toBe('Authentication required');
          } else {
            expect(r.status, `${label} ${c.who}`).toBe(403);
            expect(r.json.error.message).toBe(`${handler!.operation} needs the ${need} role; you act as ${c.role}${c.suffix}`);
          }
        }
        expect(await snapshot(t), `${label}: refusals wrote nothing`).toEqual(before);
        for (const c of callers.filter((x) => !refused.includes(x))) {
          const r = await call(handler!, method.toUpperCase(), url, { params, body, ...c.opts });
          expect([401, 403], `${label} ${c.who}: ${JSON.stringify(r.json)}`).not.toContain(r.status);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(40);
  });

  it('every server action names its operation and refuses weaker roles with nothing written', async () => {
    let checked = 0;
    for (const file of actionFiles()) {
      const mod = (await import(pathToFileURL(file).href)) as Record<string, ((...a: unknown[]) => Promise<unknown>) & { operation?: string }>;
      for (const [name, action] of Object.entries(mod)) {
        const label = `${path.relative(ROOT, file)} ${name}`;
        expect(action, label).toBeTypeOf('function');
        expect(action.operation, `${label} is made with defineAction/publicAction`).toBeDefined();
        const need = EXPECTED[action.operation as Operation];
        expect(need, `${label}: ${action.operation} has an expected decision`).toBeDefined();
        if (need === 'public') continue; // sign-in / sign-out: no role to check
        const args = name === 'bulkJobsAction' ? ['pause', [jobId]] : name === 'diffVersionsAction' ? [jobId, 1, 1] : [jobId, {}];
        for (const role of ['viewer', 'operator', 'admin'] as const) {
          cookieJar.session = sessions[role];
          const before = await snapshot(t);
          // every action answers (none redirects: a form opens the next page itself, app/_actions/define-action.ts)
          const r = (await action(...args)) as { ok: boolean; code?: string; error?: string };
          if (allowed(need, role)) expect(['unauthorized', 'forbidden'], `${label} as ${role}: ${JSON.stringify(r)}`).not.toContain(r.code);
          else {
            expect(r, `${label} as ${role}`).toMatchObject({ ok: false, code: 'forbidden', error: `${action.operation} needs the ${need} role; you act as ${role}` });
            expect(await snapshot(t), `${label} as ${role} wrote nothing`).toEqual(before);
          }
        }
        cookieJar.session = '';
        const anon = (await action(...args)) as { ok: boolean; code?: string };
        expect(anon, `${label} signed out`).toMatchObject({ ok: false, code: 'unauthorized' });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
