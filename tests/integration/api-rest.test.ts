/**
 * REST contract tests: route handlers called directly with `new Request(...)`
 * against a real PostgreSQL (DATABASE_URL points at this file's database).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestDatabase } from '../helpers/db.ts';
import { byToken, call, userToken, useRestFixture, type RestFixture, type RouteHandler } from '../helpers/rest.ts';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { checkApiToken, createApiToken } from '../../lib/auth/tokens.ts';
import * as health from '../../app/api/v1/health/route.ts';
import * as preview from '../../app/api/v1/schedule/preview/route.ts';
import { previewSchedule } from '../../lib/schedule/preview-schedule.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { getJob } from '../../lib/jobs/get-job.ts';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as bulk from '../../app/api/v1/jobs/bulk/route.ts';
import * as job from '../../app/api/v1/jobs/[id]/route.ts';
import * as restore from '../../app/api/v1/jobs/[id]/restore/route.ts';
import * as purge from '../../app/api/v1/jobs/[id]/purge/route.ts';
import * as pause from '../../app/api/v1/jobs/[id]/pause/route.ts';
import * as resume from '../../app/api/v1/jobs/[id]/resume/route.ts';
import * as trigger from '../../app/api/v1/jobs/[id]/trigger/route.ts';
import * as versions from '../../app/api/v1/jobs/[id]/versions/route.ts';
import * as version from '../../app/api/v1/jobs/[id]/versions/[version]/route.ts';
import * as diff from '../../app/api/v1/jobs/[id]/diff/route.ts';
import * as rollback from '../../app/api/v1/jobs/[id]/rollback/route.ts';
import * as dag from '../../app/api/v1/jobs/[id]/dag/route.ts';
import * as grid from '../../app/api/v1/jobs/[id]/grid/route.ts';
import * as runs from '../../app/api/v1/runs/route.ts';
import * as run from '../../app/api/v1/runs/[id]/route.ts';
import * as cancelRun from '../../app/api/v1/runs/[id]/cancel/route.ts';
import * as retryRun from '../../app/api/v1/runs/[id]/retry/route.ts';
import * as retryTask from '../../app/api/v1/tasks/[id]/retry/route.ts';
import * as workers from '../../app/api/v1/workers/route.ts';
import * as drain from '../../app/api/v1/workers/[id]/drain/route.ts';
import * as resumeWorker from '../../app/api/v1/workers/[id]/resume/route.ts';
import * as bin from '../../app/api/v1/recycle-bin/route.ts';
import * as users from '../../app/api/v1/users/route.ts';
import * as user from '../../app/api/v1/users/[id]/route.ts';
import * as tokens from '../../app/api/v1/tokens/route.ts';
import * as token from '../../app/api/v1/tokens/[id]/route.ts';
import * as resetPassword from '../../app/api/v1/users/[id]/password/route.ts';
import * as openapi from '../../app/api/v1/openapi.json/route.ts';



describe('REST /api/v1', () => {
  let t: TestDatabase;
  let admin: string;
  let operator: string;
  let viewer: string;
  const cronJob = (key: string) => ({ key, name: `Job ${key}`, schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'Asia/Shanghai' }, handler: 'builtin.echo', payload: { x: 1 } });

  useRestFixture(['h'], (f) => ({ t, admin, operator, viewer } = f));

  it('GET /health needs no auth', async () => {
    await t.pool.query(`INSERT INTO worker_nodes (node_id, name, host, pid) VALUES ('n1', 'w1', 'h', 1)`);
    const r = await call(health.GET, 'GET', '/api/v1/health');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: 'ok', database: 'ok', workers: 1 });
  });

  it('GET /schedule/preview of an interval: anchored at startAt, else at from, inside the window', async () => {
    const from = await call(preview.GET, 'GET', '/api/v1/schedule/preview?intervalSeconds=90&from=2026-03-07T00:00:00Z&count=3', { token: viewer });
    expect(from.status).toBe(200);
    expect(from.json).toMatchObject({ intervalSeconds: 90, timezone: 'UTC' });
    expect(from.json.fireTimes).toEqual(['2026-03-07T00:01:30.000Z', '2026-03-07T00:03:00.000Z', '2026-03-07T00:04:30.000Z']);
    // anchored at the window's start, and nothing after its end
    const windowed = await call(preview.GET, 'GET', '/api/v1/schedule/preview?intervalSeconds=3600&from=2026-03-07T00:00:00Z&startAt=2026-03-07T00:20:00Z&endAt=2026-03-07T02:30:00Z&count=5', { token: viewer });
    expect(windowed.json.fireTimes).toEqual(['2026-03-07T00:20:00.000Z', '2026-03-07T01:20:00.000Z', '2026-03-07T02:20:00.000Z']);
  });

  it('the edit form\'s preview of a saved interval job lists the fires the job page lists: anchored at its creation, not at now', async () => {
    const created = new Date('2026-03-01T10:17:00Z');
    // before the first fire, so the job page lists from its stored next fire (a tick would move it on)
    const now = new Date('2026-03-01T10:47:00Z');
    for (const staggerSeconds of [0, 300]) {
      const saved = await createJob(t.db, { key: `preview.anchor.${staggerSeconds}`, name: 'p', schedule: { kind: 'interval', intervalSeconds: 3600 }, staggerSeconds, handler: 'builtin.noop' }, SYSTEM_ACTOR, created);
      const page = await getJob(t.db, saved.id, SYSTEM_ACTOR, now);
      const form = previewSchedule({ intervalSeconds: '3600', jobId: saved.id, staggerSeconds: String(staggerSeconds), createdAt: saved.createdAt, from: now.toISOString(), count: '5' }, now);
      expect(form.fireTimes, `stagger ${staggerSeconds}`).toEqual(page.nextFireTimes);
      if (staggerSeconds === 0) expect(form.fireTimes[0]).toBe('2026-03-01T11:17:00.000Z');
    }
  });

  it('GET /schedule/preview of a cron that only ever lands on a clock change answers its fire times (it held the console before)', async () => {
    // 02:30 on the last Sunday of March in Berlin is in the spring-forward gap every year: fired at 03:30 CEST
    const r = await call(preview.GET, 'GET', '/api/v1/schedule/preview?cron=30%202%20*%203%200L&tz=Europe/Berlin&from=2026-01-01T00:00:00Z&count=3', { token: viewer });
    expect(r.status).toBe(200);
    expect(r.json.fireTimes).toEqual(['2026-03-29T01:30:00.000Z', '2027-03-28T01:30:00.000Z', '2028-03-26T01:30:00.000Z']);
  });

  it('GET /schedule/preview needs a signed-in caller of any role: 401 without credentials', async () => {
    const q = '/api/v1/schedule/preview?cron=0%200%200%20%3F%202%201%235&count=50';
    expect((await call(preview.GET, 'GET', q)).status).toBe(401);
    const r = await call(preview.GET, 'GET', q, { token: viewer });
    expect(r.status).toBe(200);
    // the fifth Monday of February: only what falls within 100 years of now (lib/schedule/limits.ts)
    expect(r.json.fireTimes.length).toBeLessThanOrEqual(4);
  });

  it('GET /schedule/preview answers the issue example and 400 naming the field', async () => {
    const r = await call(preview.GET, 'GET', '/api/v1/schedule/preview?cron=0%202%20*%20*%20*&tz=America/New_York&from=2026-03-07T00:00:00Z&count=3', { token: viewer });
    expect(r.status).toBe(200);
    expect(r.json.fireTimes).toEqual(['2026-03-07T07:00:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:00:00.000Z']);
    const bad: [string, string][] = [
      ['cron=not%20cron&tz=UTC', 'cron'],
      ['tz=UTC', 'cron'],
      ['cron=0%200%2031%204%20*', 'cron'],
      ['cron=0%202%20*%20*%20*&tz=Mars/Base', 'tz'],
      ['cron=0%202%20*%20*%20*&from=yesterday', 'from'],
      ['cron=0%202%20*%20*%20*&count=0', 'count'],
      ['cron=0%202%20*%20*%20*&count=51', 'count'],
      ['cron=0%202%20*%20*%20*&count=abc', 'count'],
      ['intervalSeconds=0', 'intervalSeconds'],
      ['intervalSeconds=1.5', 'intervalSeconds'],
      ['intervalSeconds=abc', 'intervalSeconds'],
      [`intervalSeconds=${10 * 365 * 86400 + 1}`, 'intervalSeconds'],
      ['intervalSeconds=60&cron=*%20*%20*%20*%20*', 'intervalSeconds'],
      ['intervalSeconds=60&tz=Mars/Base', 'tz'],
    ];
    for (const [qs, field] of bad) {
      const e = await call(preview.GET, 'GET', `/api/v1/schedule/preview?${qs}`, { token: viewer });
      expect(e.status, qs).toBe(400);
      expect(e.json.error.code).toBe('validation');
      expect(Object.keys(e.json.error.fields), qs).toContain(field);
      // the job form's preview (a server action over the same domain function) reads the same message and fields
      const query = Object.fromEntries(new URLSearchParams(qs));
      let thrown: unknown;
      try {
        previewSchedule(query, new Date());
      } catch (err) {
        thrown = err;
      }
      expect(thrown, qs).toMatchObject({ name: 'DomainError', code: 'validation', message: e.json.error.message, fields: e.json.error.fields });
    }
    // and the same fire times
    const q = { cron: '0 2 * * *', tz: 'America/New_York', from: '2026-03-07T00:00:00Z', count: '3' };
    expect(previewSchedule(q, new Date())).toEqual(r.json);
  });

  it('refuses missing or bad credentials with 401', async () => {
    const jobsBefore = await t.db.job.count();
    for (const [h, m] of [
      [jobs.GET, 'GET'],
      [jobs.POST, 'POST'],
      [runs.GET, 'GET'],
      [workers.GET, 'GET'],
    ] as const) {
      const r = await call(h, m, '/api/v1/jobs', { body: m === 'POST' ? cronJob('x') : undefined });
      expect(r.status).toBe(401);
      expect(r.json.error.code).toBe('unauthorized');
    }
    expect((await call(jobs.GET, 'GET', '/api/v1/jobs', { token: 'tf_nope' })).status).toBe(401);
    // a bad token is refused even on a public route
    expect((await call(health.GET, 'GET', '/api/v1/health', { token: 'garbage' })).status).toBe(401);
    expect(await t.db.job.count()).toBe(jobsBefore);
  });

  it('TICKFLOW_API_TOKEN grants admin', async () => {
    process.env.TICKFLOW_API_TOKEN = 'env-secret-token-123';
    try {
      expect((await call(users.GET, 'GET', '/api/v1/users', { token: 'env-secret-token-123' })).status).toBe(200);
      expect((await call(users.GET, 'GET', '/api/v1/users', { token: 'env-secret-token-124' })).status).toBe(401);
    } finally {
      delete process.env.TICKFLOW_API_TOKEN;
    }
  });

  it('creates, lists, gets, patches (409 on stale version), deletes, restores and purges', async () => {
    const c = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('report.daily') });
    expect(c.status).toBe(201);
    expect(c.json).toMatchObject({ key: 'report.daily', status: 'active', version: 1, createdBy: byToken('ops'), schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'Asia/Shanghai' } });
    expect(c.json.steps).toEqual([expect.objectContaining({ key: 'main', handler: 'builtin.echo', payload: { x: 1 } })]);
    expect(c.json.nextRunAt).toMatch(/T18:00:00\.000Z$/);
    const id = c.json.id;

    const l = await call(jobs.GET, 'GET', '/api/v1/jobs?q=report', { token: viewer });
    expect(l.status).toBe(200);
    expect(l.json.items.map((j: { id: string }) => j.id)).toEqual([id]);

    const g = await call(job.GET, 'GET', `/api/v1/jobs/${id}`, { token: viewer, params: { id } });
    expect(g.status).toBe(200);
    expect(g.json.nextFireTimes).toHaveLength(5);
    expect((await call(job.GET, 'GET', '/api/v1/jobs/not-a-uuid', { token: viewer, params: { id: 'not-a-uuid' } })).status).toBe(404);
    const unknown = '7c1e0d7e-1111-4222-8333-444455556666';
    expect((await call(job.GET, 'GET', `/api/v1/jobs/${unknown}`, { token: viewer, params: { id: unknown } })).status).toBe(404);

    const p = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params: { id }, body: { expectedVersion: 1, name: 'Renamed' } });
    expect(p.status).toBe(200);
    expect(p.json.version).toBe(2);
    const stale = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: admin, params: { id }, body: { expectedVersion: 1, description: 'x' } });
    expect(stale.status).toBe(409);
    expect(stale.json.error.code).toBe('conflict');
    expect(stale.json.error.detail.currentVersion).toBe(2);
    expect(stale.json.error.detail.changedFields).toEqual(['name']);
    const noVersion = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params: { id }, body: { name: 'x' } });
    expect(noVersion.status).toBe(400);
    expect(noVersion.json.error.fields.expectedVersion).toBeTruthy();

    const pa = await call(pause.POST, 'POST', `/api/v1/jobs/${id}/pause`, { token: operator, params: { id }, body: { reason: 'r' } });
    expect(pa.json.status).toBe('paused');
    const re = await call(resume.POST, 'POST', `/api/v1/jobs/${id}/resume`, { token: operator, params: { id } });
    expect(re.json.status).toBe('active');

    const v = await call(versions.GET, 'GET', `/api/v1/jobs/${id}/versions`, { token: viewer, params: { id } });
    expect(v.json.items.map((x: { changeType: string }) => x.changeType)).toEqual(['resume', 'pause', 'update', 'create']);
    const one = await call(version.GET, 'GET', `/api/v1/jobs/${id}/versions/1`, { token: viewer, params: { id, version: '1' } });
    expect(one.json.snapshot.name).toBe('Job report.daily');
    const d = await call(diff.GET, 'GET', `/api/v1/jobs/${id}/diff?from=1&to=2`, { token: viewer, params: { id } });
    expect(d.json.diff.fields).toEqual([{ path: 'name', from: 'Job report.daily', to: 'Renamed' }]);
    expect((await call(diff.GET, 'GET', `/api/v1/jobs/${id}/diff?from=1`, { token: viewer, params: { id } })).json.error.fields.to).toBeTruthy();
    const rb = await call(rollback.POST, 'POST', `/api/v1/jobs/${id}/rollback`, { token: operator, params: { id }, body: { version: 1 } });
    expect(rb.status).toBe(200);
    expect(rb.json).toMatchObject({ name: 'Job report.daily', version: 5 });
    // once more: v1's configuration is now the current one, so it restores nothing (lib/jobs/rollback-rule.ts)
    const again = await call(rollback.POST, 'POST', `/api/v1/jobs/${id}/rollback`, { token: operator, params: { id }, body: { version: 1 } });
    expect(again.status).toBe(422);
    expect(again.json.error.fields.version).toBe("Nothing to roll back: v1's configuration is the current one (v5)");
    const dg = await call(dag.PUT, 'PUT', `/api/v1/jobs/${id}/dag`, {
      token: operator,
      params: { id },
      body: { steps: [{ key: 'a', handler: 'h' }, { key: 'b', handler: 'h' }], edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }], expectedVersion: 5 },
    });
    expect(dg.status).toBe(400);
    expect(dg.json.error.fields.edges).toMatch(/Cycle: a -> b -> a|Cycle: b -> a -> b/);

    const del = await call(job.DELETE, 'DELETE', `/api/v1/jobs/${id}`, { token: operator, params: { id } });
    expect(del.status).toBe(200);
    expect(del.json.deletedAt).toBeTruthy();
    const b = await call(bin.GET, 'GET', '/api/v1/recycle-bin', { token: viewer });
    expect(b.json.items.map((j: { id: string }) => j.id)).toContain(id);
    const taken = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('report.daily') });
    expect(taken.status).toBe(201);
    const rs = await call(restore.POST, 'POST', `/api/v1/jobs/${id}/restore`, { token: operator, params: { id } });
    expect(rs.status).toBe(409);
    expect(rs.json.error.message).toContain(taken.json.id);
    const pu = await call(purge.DELETE, 'DELETE', `/api/v1/jobs/${id}/purge`, { token: operator, params: { id } });
    expect(pu.status).toBe(200);
    expect(pu.json).toMatchObject({ purged: true, id });
    expect((await call(job.GET, 'GET', `/api/v1/jobs/${id}`, { token: viewer, params: { id } })).status).toBe(404);
  });

  it('answers invalid JSON and bad fields with 400, never 500, writing nothing', async () => {
    const before = await t.db.job.count();
    const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody: '{"key": ', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.json.error.code).toBe('validation');
    for (const [patch, field] of [
      [{ key: 'has space' }, 'key'],
      [{ schedule: { kind: 'cron', cron: '61 * * * *', timezone: 'UTC' } }, 'schedule.cron'],
      [{ schedule: { kind: 'cron', cron: '0 * * * *', timezone: 'Nowhere/City' } }, 'schedule.timezone'],
      [{ payload: { s: 'x'.repeat(66_000) } }, 'payload'],
      [{ policy: { blockStrategy: 'maybe' } }, 'policy.blockStrategy'],
    ] as const) {
      const e = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { ...cronJob('bad.one'), ...patch } });
      expect(e.status).toBe(400);
      expect(Object.keys(e.json.error.fields)).toContain(field);
    }
    expect((await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: [] })).status).toBe(400);
    expect((await call(jobs.GET, 'GET', '/api/v1/jobs?sort=bogus', { token: viewer })).status).toBe(400);
    expect((await call(jobs.GET, 'GET', '/api/v1/jobs?limit=0', { token: viewer })).status).toBe(400);
    expect((await call(runs.GET, 'GET', '/api/v1/runs?from=nope', { token: viewer })).json.error.fields.from).toBeTruthy();
    expect((await call(runs.GET, 'GET', '/api/v1/runs?cursor=abc', { token: viewer })).status).toBe(400);
    // a forged cursor whose value PostgreSQL refuses (a NUL) was a 500
    const nul = Buffer.from(JSON.stringify({ s: 'jobs:key:asc', v: '\u0000', id: '00000000-0000-4000-8000-000000000000' })).toString('base64url');
    const forged = await call(jobs.GET, 'GET', `/api/v1/jobs?sort=key&dir=asc&cursor=${nul}`, { token: viewer });
    expect([forged.status, Object.keys(forged.json.error.fields)]).toEqual([400, ['cursor']]);
    // a forged cursor whose value is null where the sorted column never is (key, name, created_at) was a 500
    for (const sort of ['key', 'name', 'created_at', 'next_run_at']) {
      for (const dir of ['asc', 'desc']) {
        const nullValue = Buffer.from(JSON.stringify({ s: `jobs:${sort}:${dir}`, v: null, id: '00000000-0000-4000-8000-000000000000' })).toString('base64url');
        const r = await call(jobs.GET, 'GET', `/api/v1/jobs?sort=${sort}&dir=${dir}&cursor=${nullValue}`, { token: viewer });
        expect([sort, dir, r.status, Object.keys(r.json.error?.fields ?? {})]).toEqual([sort, dir, 400, ['cursor']]);
      }
    }
    expect(await t.db.job.count()).toBe(before);
  });

  it('refuses a query parameter the route does not take (a misspelt filter would read as filtered), naming each', async () => {
    const typo = await call(runs.GET, 'GET', '/api/v1/runs?stauts=failed&limit=5', { token: viewer });
    expect(typo.status).toBe(400);
    expect(typo.json.error.fields).toEqual({ stauts: 'Unknown query parameter' });
    expect(typo.json.error.message).toBe('Invalid stauts: Unknown query parameter');
    const two = await call(jobs.GET, 'GET', '/api/v1/jobs?stat=paused&sortBy=key&limit=5', { token: viewer });
    expect(two.status).toBe(400);
    expect(two.json.error.fields).toEqual({ stat: 'Unknown query parameter', sortBy: 'Unknown query parameter' });
    // routes that parse the query themselves, routes parsed here, and routes that take none
    expect((await call(bin.GET, 'GET', '/api/v1/recycle-bin?page=2', { token: viewer })).json.error.fields).toEqual({ page: 'Unknown query parameter' });
    const versioned = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('qp.versions') });
    const stray = await call(versions.GET, 'GET', `/api/v1/jobs/${versioned.json.id}/versions?offset=3`, { token: viewer, params: { id: versioned.json.id } });
    expect([stray.status, stray.json.error.fields]).toEqual([400, { offset: 'Unknown query parameter' }]);
    // a job that does not exist is a 404 whatever the query holds (lib/api/missing-resource.ts)
    expect((await call(versions.GET, 'GET', `/api/v1/jobs/00000000-0000-4000-8000-000000000001/versions?offset=3`, { token: viewer, params: { id: '00000000-0000-4000-8000-000000000001' } })).status).toBe(404);
    expect((await call(workers.GET, 'GET', '/api/v1/workers?status=online', { token: viewer })).json.error.fields).toEqual({ status: 'Unknown query parameter' });
    expect((await call(health.GET, 'GET', '/api/v1/health?verbose=1')).status).toBe(400);
    // the same requests without the stray parameter are answered
    expect((await call(runs.GET, 'GET', '/api/v1/runs?status=failed&limit=5', { token: viewer })).status).toBe(200);
    expect((await call(workers.GET, 'GET', '/api/v1/workers', { token: viewer })).status).toBe(200);
    // credentials are checked first: an anonymous caller learns nothing about the route's parameters
    expect((await call(runs.GET, 'GET', '/api/v1/runs?stauts=failed')).status).toBe(401);
  });

  it('names of Object.prototype\'s properties are names like any other: step keys, a handler, query parameters (lib/own-keys.ts)', async () => {
    const keys = ['constructor', 'toString', 'hasOwnProperty', 'valueOf'];
    const before = Object.getOwnPropertyNames(Object).sort();
    // no positions: the job's DAG is laid out on save (lib/dag/layout-dag.ts)
    const created = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: {
      key: 'proto.steps', name: 'proto steps', schedule: { kind: 'manual' },
      steps: keys.map((key) => ({ key, handler: 'builtin.noop' })),
      edges: [{ from: 'constructor', to: 'toString' }, { from: 'toString', to: 'hasOwnProperty' }, { from: 'constructor', to: 'valueOf' }],
    } });
    expect(created.status).toBe(201);
    expect(Object.getOwnPropertyNames(Object).sort()).toEqual(before);
    const id = created.json.id as string;
    const read = await call(job.GET, 'GET', `/api/v1/jobs/${id}`, { token: viewer, params: { id } });
    expect(read.json.steps.map((s: { key: string }) => s.key).sort()).toEqual([...keys].sort());
    const laidOut = read.json.steps.map((s: { position: { x: number; y: number } }) => s.position);
    expect(new Set(laidOut.map((p: { x: number; y: number }) => `${p.x},${p.y}`)).size).toBe(keys.length);
    const ran = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params: { id }, body: {} });
    expect(ran.status).toBe(201);
    const cells = (await call(grid.GET, 'GET', `/api/v1/jobs/${id}/grid`, { token: viewer, params: { id } })).json;
    expect([...cells.steps].sort()).toEqual([...keys].sort());
    expect(Object.keys(cells.cells[ran.json.id]).sort()).toEqual([...keys].sort());
    // a handler so named is refused as unknown until a worker offers it, then saved like any
    // custom handler: not taken for a shipped one with an input schema
    const handlerJob = { ...cronJob('proto.handler'), handler: 'constructor', payload: { url: 1 } };
    const unknown = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: handlerJob });
    expect([unknown.status, unknown.json.error.fields.handler]).toEqual([400, expect.stringMatching(/^Unknown handler "constructor"/)]);
    await t.pool.query(`INSERT INTO worker_nodes (node_id, name, host, pid, handlers) VALUES ('proto-node', 'proto', 'h', 1, ARRAY['constructor', 'toString'])`);
    try {
      expect((await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: handlerJob })).status).toBe(201);
    } finally {
      // the workers test below lists the nodes this file registered
      await t.pool.query(`DELETE FROM worker_nodes WHERE node_id = 'proto-node'`);
    }
    // a query parameter so named is an unknown parameter
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const q = await call(runs.GET, 'GET', `/api/v1/runs?${name}=x&limit=1`, { token: viewer });
      expect([q.status, q.json.error.fields]).toEqual([400, { [name]: 'Unknown query parameter' }]);
    }
    // a JSON null body is no empty object
    const nullBody = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params: { id }, rawBody: 'null', headers: { 'content-type': 'application/json' } });
    expect([nullBody.status, nullBody.json.error.fields]).toEqual([400, { _root: 'Must be an object' }]);
    expect(await t.db.run.count({ where: { jobId: id } })).toBe(1);
  });

  it('search text is matched literally: % and _ are no wildcards (jobs by key or name, runs by error text)', async () => {
    const a = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { ...cronJob('lit.100pct'), name: 'Load 100% of rows' } });
    await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { ...cronJob('lit_under'), name: 'Plain' } });
    await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { ...cronJob('litXunder'), name: 'Plain' } });
    const keys = async (q: string) => (await call(jobs.GET, 'GET', `/api/v1/jobs?q=${encodeURIComponent(q)}`, { token: viewer })).json.items.map((j: { key: string }) => j.key).sort();
    expect(await keys('%')).toEqual(['lit.100pct']);
    expect(await keys('lit_')).toEqual(['lit_under']);
    expect(await keys('\\')).toEqual([]);
    expect(a.status).toBe(201);
    // runs by error text: disk% matches no error without a %
    const run = await call(trigger.POST, 'POST', `/api/v1/jobs/${a.json.id}/trigger`, { token: operator, params: { id: a.json.id }, body: {} });
    await t.pool.query(`UPDATE runs SET status = 'failed', error = 'disk full', finished_at = now() WHERE id = $1`, [run.json.id]);
    expect((await call(runs.GET, 'GET', `/api/v1/runs?q=${encodeURIComponent('disk%')}`, { token: viewer })).json.items).toEqual([]);
    // a text the error's trigram index cannot look up would read every failed run's error: refused at q
    for (const q of ['%%%', '~', 'd.']) {
      const refused = await call(runs.GET, 'GET', `/api/v1/runs?q=${encodeURIComponent(q)}`, { token: viewer });
      expect([q, refused.status, refused.json.error?.fields?.q]).toEqual([q, 400, expect.stringMatching(/index can look up/)]);
    }
    expect((await call(runs.GET, 'GET', `/api/v1/runs?q=${encodeURIComponent(run.json.id.slice(0, 8))}`, { token: viewer })).json.items).toHaveLength(1);
    expect((await call(runs.GET, 'GET', `/api/v1/runs?q=${encodeURIComponent('disk full')}`, { token: viewer })).json.items).toHaveLength(1);
  });

  it('Idempotency-Key replays the first response and refuses another body with 422', async () => {
    const headers = { 'idempotency-key': 'create-idem-1' };
    const a = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('idem.job'), headers });
    expect(a.status).toBe(201);
    expect(a.headers.get('idempotent-replayed')).toBeNull();
    const b = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('idem.job'), headers });
    expect(b.status).toBe(201);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.json).toEqual(a.json);
    expect(await t.db.job.count({ where: { key: 'idem.job' } })).toBe(1);
    const c = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('idem.other'), headers });
    expect(c.status).toBe(422);
    expect(c.json.error.code).toBe('idempotency_mismatch');
    expect(await t.db.job.count({ where: { key: 'idem.other' } })).toBe(0);
    // the same body with its keys in another order and other spacing is the same request: replayed
    const reordered = Object.fromEntries(Object.entries(cronJob('idem.job')).reverse());
    const d = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody: JSON.stringify(reordered, null, 2), headers: { ...headers, 'content-type': 'application/json' } });
    expect([d.status, d.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(d.json).toEqual(a.json);
    // concurrent duplicates: serialised on the key, one change, one replay
    const [x, y] = await Promise.all([
      call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('idem.race'), headers: { 'idempotency-key': 'race' } }),
      call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('idem.race'), headers: { 'idempotency-key': 'race' } }),
    ]);
    expect([x.status, y.status]).toEqual([201, 201]);
    expect(x.json.id).toBe(y.json.id);
    expect([x.headers.get('idempotent-replayed'), y.headers.get('idempotent-replayed')].sort()).toEqual([null, 'true'].sort());
    expect(await t.db.job.count({ where: { key: 'idem.race' } })).toBe(1);
    // another caller never gets someone else's answer, not even with a token of the same name: the
    // key is theirs, so the request runs (the job key is taken: 409)
    const twin = await userToken(t.db, 'operator', 'ops');
    for (const token of [admin, twin]) {
      const other = await call(jobs.POST, 'POST', '/api/v1/jobs', { token, body: cronJob('idem.race'), headers: { 'idempotency-key': 'race' } });
      expect([other.status, other.json.error?.code, other.headers.get('idempotent-replayed')]).toEqual([409, 'conflict', null]);
    }
    // an answer carrying a secret is never stored: a generated password is not kept for a replay, and a
    // repeat of the key is a 409 saying the reset was done, not a second reset
    const target = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { email: 'reset@example.com', password: 'longenough', role: 'viewer' } });
    const reset1 = await call(resetPassword.POST, 'POST', `/api/v1/users/${target.json.id}/password`, { token: admin, params: { id: target.json.id }, body: {}, headers: { 'idempotency-key': 'reset-k1' } });
    expect(reset1.status).toBe(200);
    expect(reset1.json.password).toEqual(expect.any(String));
    const resetRow = await t.db.idempotencyKey.findFirstOrThrow({ where: { key: 'reset-k1' } });
    expect(JSON.stringify(resetRow)).not.toContain(reset1.json.password);
    const hashAfterReset = (await t.db.user.findUniqueOrThrow({ where: { id: target.json.id } })).passwordHash;
    const reset2 = await call(resetPassword.POST, 'POST', `/api/v1/users/${target.json.id}/password`, { token: admin, params: { id: target.json.id }, body: {}, headers: { 'idempotency-key': 'reset-k1' } });
    expect([reset2.status, reset2.json.error?.code, reset2.headers.get('idempotent-replayed')]).toEqual([409, 'idempotency_not_replayable', null]);
    expect(reset2.json.error.message).toMatch(/^This Idempotency-Key already did this request at \d{4}-.*send a new key$/);
    // naming what it did: the user whose password it reset, as a token's repeat names the token
    expect(reset2.json.error.detail).toMatchObject({ resourceId: target.json.id, doneAt: expect.any(String) });
    expect(reset2.json.error.message).toContain(target.json.id);
    expect(JSON.stringify(reset2.json)).not.toContain(reset1.json.password);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: target.json.id } })).passwordHash).toBe(hashAfterReset);
    // a GIVEN password is no secret of the answer ({ user } only): stored and replayed like any answer, and the
    // repeat resets nothing again (the sessions made since stay)
    const given = { password: 'chosen-by-admin' };
    const set1 = await call(resetPassword.POST, 'POST', `/api/v1/users/${target.json.id}/password`, { token: admin, params: { id: target.json.id }, body: given, headers: { 'idempotency-key': 'reset-k2' } });
    expect([set1.status, Object.keys(set1.json)]).toEqual([200, ['user']]);
    const hashAfterSet = (await t.db.user.findUniqueOrThrow({ where: { id: target.json.id } })).passwordHash;
    await t.pool.query(`INSERT INTO sessions (id, user_id, expires_at) VALUES ('replay-session', $1, now() + interval '1 day')`, [target.json.id]);
    const set2 = await call(resetPassword.POST, 'POST', `/api/v1/users/${target.json.id}/password`, { token: admin, params: { id: target.json.id }, body: given, headers: { 'idempotency-key': 'reset-k2' } });
    expect([set2.status, set2.headers.get('idempotent-replayed'), set2.json]).toEqual([200, 'true', set1.json]);
    expect((await t.db.user.findUniqueOrThrow({ where: { id: target.json.id } })).passwordHash).toBe(hashAfterSet);
    expect(await t.db.session.count({ where: { userId: target.json.id } })).toBe(1);
    expect(JSON.stringify(await t.db.idempotencyKey.findFirstOrThrow({ where: { key: 'reset-k2' } }))).not.toContain(given.password);
    // the same for a new API token: one token, its secret nowhere but in the first answer
    const tokenBody = { name: 'idem-token', scope: 'operate' };
    const made = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: tokenBody, headers: { 'idempotency-key': 'token-k1' } });
    expect(made.status).toBe(201);
    const again = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: tokenBody, headers: { 'idempotency-key': 'token-k1' } });
    expect([again.status, again.json.error?.code]).toEqual([409, 'idempotency_not_replayable']);
    expect(again.json.error.detail).toMatchObject({ resourceId: made.json.id, doneAt: expect.any(String) });
    expect(again.json.error.message).toContain(made.json.id);
    expect(await t.db.apiToken.count({ where: { name: 'idem-token' } })).toBe(1);
    const tokenRow = await t.db.idempotencyKey.findFirstOrThrow({ where: { key: 'token-k1' } });
    expect(JSON.stringify(tokenRow)).not.toContain(made.json.token);
    // a different request under that key is still a mismatch
    const otherToken = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { ...tokenBody, name: 'idem-token-2' }, headers: { 'idempotency-key': 'token-k1' } });
    expect([otherToken.status, otherToken.json.error?.code]).toEqual([422, 'idempotency_mismatch']);
    // and so is one whose body is not valid, on the routes whose body rest() parses (the token's, a user's) as on
    // those whose domain function parses it (a job's): the key was used for another request, whatever this one holds
    const invalid = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { ...tokenBody, scope: 'everything' }, headers: { 'idempotency-key': 'token-k1' } });
    expect([invalid.status, invalid.json.error?.code]).toEqual([422, 'idempotency_mismatch']);
    const userBody = { email: 'idem-user@example.com', password: 'longenough', role: 'viewer' };
    expect((await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: userBody, headers: { 'idempotency-key': 'user-k1' } })).status).toBe(201);
    const invalidUser = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { ...userBody, password: 'short' }, headers: { 'idempotency-key': 'user-k1' } });
    expect([invalidUser.status, invalidUser.json.error?.code]).toEqual([422, 'idempotency_mismatch']);
    const invalidJob = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { ...cronJob('idem.race'), name: '' }, headers: { 'idempotency-key': 'race' } });
    expect([invalidJob.status, invalidJob.json.error?.code]).toEqual([422, 'idempotency_mismatch']);
    // a new key with that body: the field is named
    expect((await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { ...tokenBody, scope: 'everything' }, headers: { 'idempotency-key': 'token-k9' } })).json.error.fields).toHaveProperty('scope');
    // a failed request stores nothing: the same key may be retried
    const bad = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { ...cronJob('idem.2'), name: '' }, headers: { 'idempotency-key': 'k2' } });
    expect(bad.status).toBe(400);
    const ok = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('idem.2'), headers: { 'idempotency-key': 'k2b' } });
    expect(ok.status).toBe(201);
    const row = await t.db.idempotencyKey.findFirstOrThrow({ where: { key: 'create-idem-1' } });
    // the owner of a stored answer is the token itself (kind and id), not a name another token could share
    expect(row).toMatchObject({ statusCode: 201, createdBy: expect.stringMatching(/^token:[0-9a-f-]{36}$/), resourceId: a.json.id });
    expect(await t.db.idempotencyKey.count({ where: { key: 'k2' } })).toBe(0);
    // PATCH replay: the second identical PATCH is not a 409
    const id = a.json.id;
    const p1 = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params: { id }, body: { expectedVersion: 1, name: 'N' }, headers: { 'idempotency-key': 'p1' } });
    const p2 = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params: { id }, body: { expectedVersion: 1, name: 'N' }, headers: { 'idempotency-key': 'p1' } });
    expect([p1.status, p2.status]).toEqual([200, 200]);
    expect(p2.json.version).toBe(2);
    // expired keys are cleaned
    const { cleanupIdempotencyKeys } = await import('../../lib/api/idempotency.ts');
    expect(await cleanupIdempotencyKeys(t.db, new Date(Date.now() + 25 * 3600_000))).toBeGreaterThanOrEqual(3);
    expect(await t.db.idempotencyKey.count()).toBe(0);
  });

  it('an Idempotency-Key belongs to its user or token: the same key from another principal is an independent request', async () => {
    const headers = { 'idempotency-key': 'idem-test-1' };
    const mine = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('idem.principal'), headers });
    expect(mine.status).toBe(201);
    // a second token of the same operator, and the admin: each one's key is its own
    const me = await checkApiToken(t.db, operator);
    if (!('actor' in me)) throw new Error(me.refused);
    const second = (await createApiToken(t.db, { name: 'second', scope: 'operate', ownerId: me.actor.ownerId }, SYSTEM_ACTOR)).token;
    for (const [token, key] of [[second, 'idem.principal.second'], [admin, 'idem.principal.admin']] as const) {
      // the same body runs again (the job key is taken: 409), never "used with a different request"
      const same = await call(jobs.POST, 'POST', '/api/v1/jobs', { token, body: cronJob('idem.principal'), headers });
      expect([same.status, same.json.error?.code, same.headers.get('idempotent-replayed')]).toEqual([409, 'conflict', null]);
      const other = await call(jobs.POST, 'POST', '/api/v1/jobs', { token, body: cronJob(key), headers });
      expect([other.status, other.headers.get('idempotent-replayed')]).toEqual([201, null]);
      // and that principal's own repeat replays its own answer
      const again = await call(jobs.POST, 'POST', '/api/v1/jobs', { token, body: cronJob(key), headers });
      expect([again.status, again.json.id, again.headers.get('idempotent-replayed')]).toEqual([201, other.json.id, 'true']);
    }
    // the first principal still gets its own answer, and a different body under its key is still a 422
    const replay = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('idem.principal'), headers });
    expect([replay.json.id, replay.headers.get('idempotent-replayed')]).toEqual([mine.json.id, 'true']);
    const mismatch = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('idem.principal.x'), headers });
    expect([mismatch.status, mismatch.json.error.code]).toEqual([422, 'idempotency_mismatch']);
    expect(await t.db.idempotencyKey.count({ where: { key: 'idem-test-1' } })).toBe(3);
  });

  it('triggers a run (201) and reads it back with tasks and logs; cancel and retry', async () => {
    const c = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { ...cronJob('trig.me'), schedule: { kind: 'manual' } } });
    const id = c.json.id;
    const headers = { 'idempotency-key': 'trig-1' };
    const tr = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params: { id }, body: { payload: { y: 2 } }, headers });
    expect(tr.status).toBe(201);
    expect(tr.json).toMatchObject({ jobId: id, trigger: 'api', triggeredBy: byToken('ops') });
    const again = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params: { id }, body: { payload: { y: 2 } }, headers });
    expect(again.json.id).toBe(tr.json.id);
    expect(await t.db.run.count({ where: { jobId: id } })).toBe(1);
    const badPayload = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params: { id }, body: { payload: 'x' } });
    expect(badPayload.status).toBe(400);
    expect(badPayload.json.error.fields.payload).toBeTruthy();

    const list = await call(runs.GET, 'GET', `/api/v1/runs?jobId=${id}`, { token: viewer });
    expect(list.json.items.map((r: { id: string }) => r.id)).toEqual([tr.json.id]);
    const g = await call(run.GET, 'GET', `/api/v1/runs/${tr.json.id}`, { token: viewer, params: { id: tr.json.id } });
    expect(g.status).toBe(200);
    expect(g.json.tasks).toHaveLength(1);
    expect(g.json.tasks[0]).toMatchObject({ stepKey: 'main', status: 'pending', attempt: 1 });
    expect(g.json.tasks[0].logs.length).toBeGreaterThanOrEqual(1);
    expect(g.json.tasks[0].logs[0]).toMatchObject({ toStatus: 'pending' });
    expect((await call(run.GET, 'GET', '/api/v1/runs/zzz', { token: viewer, params: { id: 'zzz' } })).status).toBe(404);

    const cx = await call(cancelRun.POST, 'POST', `/api/v1/runs/${tr.json.id}/cancel`, { token: operator, params: { id: tr.json.id } });
    expect(cx.status).toBe(200);
    expect(cx.json.status).toBe('cancelled');
    const rr = await call(retryRun.POST, 'POST', `/api/v1/runs/${tr.json.id}/retry`, { token: operator, params: { id: tr.json.id } });
    expect(rr.status).toBe(201);
    expect(rr.json).toMatchObject({ trigger: 'retry', parentRunId: tr.json.id });
    expect(rr.json.retryChain.map((r: { id: string }) => r.id)).toEqual([tr.json.id, rr.json.id]);
    const taskId = g.json.tasks[0].id;
    // Not while the retry run is active (one run of a job at a time: docs/recovery.md) ...
    const busy = await call(retryTask.POST, 'POST', `/api/v1/tasks/${taskId}/retry`, { token: operator, params: { id: taskId } });
    expect(busy.status).toBe(409);
    expect(busy.json.error.detail).toMatchObject({ activeRunId: rr.json.id });
    expect((await call(cancelRun.POST, 'POST', `/api/v1/runs/${rr.json.id}/cancel`, { token: operator, params: { id: rr.json.id } })).status).toBe(200);
    const rt = await call(retryTask.POST, 'POST', `/api/v1/tasks/${taskId}/retry`, { token: operator, params: { id: taskId } });
    // ... then the cancelled run's task re-opens: the answer is its run, with the task pending again.
    expect(rt.status).toBe(200);
    expect(rt.json.id).toBe(tr.json.id);
    expect(rt.json.tasks.find((x: { id: string }) => x.id === taskId)).toMatchObject({ status: 'pending' });
    expect((await t.db.task.findUniqueOrThrow({ where: { id: taskId } })).status).toBe('pending');
    expect((await call(retryTask.POST, 'POST', '/api/v1/tasks/nope/retry', { token: operator, params: { id: 'nope' } })).status).toBe(404);
  });

  it('pages runs by (scheduled_for desc, id desc) without repeats or skips under concurrent inserts', async () => {
    const insert = (at: string) =>
      t.pool.query(
        `INSERT INTO runs (job_id, job_key, job_version, trigger, triggered_by, scheduled_for, status, trace_id, finished_at)
         VALUES ('0c4f4a2e-7d1b-4c55-9a3e-5f0d2b9e8a11', 'page', 1, 'manual', 'x', $1, 'success', 't', now())`,
        [at],
      );
    for (let i = 0; i < 17; i++) await insert(new Date(Date.UTC(2026, 0, 1, 0, i % 6)).toISOString()); // ties on scheduled_for
    const before = (await t.pool.query(`SELECT id FROM runs WHERE job_id = '0c4f4a2e-7d1b-4c55-9a3e-5f0d2b9e8a11'`)).rows.map((r) => r.id);
    const seen: string[] = [];
    let cursor = '';
    for (let n = 0; n < 20; n++) {
      const r = await call(runs.GET, 'GET', `/api/v1/runs?jobId=0c4f4a2e-7d1b-4c55-9a3e-5f0d2b9e8a11&limit=4${cursor ? `&cursor=${cursor}` : ''}`, { token: viewer });
      seen.push(...r.json.items.map((x: { id: string }) => x.id));
      await insert(new Date(Date.UTC(2026, 0, 1, 0, n % 6)).toISOString());
      await insert('2027-01-01T00:00:00Z');
      if (!r.json.nextCursor) break;
      cursor = r.json.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of before) expect(seen).toContain(id);
  });

  it('workers: list and drain', async () => {
    const w = await call(workers.GET, 'GET', '/api/v1/workers', { token: viewer });
    expect(w.json.items[0]).toMatchObject({ nodeId: 'n1', status: 'online' });
    expect(typeof w.json.items[0].heartbeatAgeSeconds).toBe('number');
    // the only online worker: refused without the confirmation, naming the consequence
    const refused = await call(drain.POST, 'POST', '/api/v1/workers/n1/drain', { token: operator, params: { id: 'n1' } });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: 'conflict', detail: { lastWorker: true } });
    expect(refused.json.error.message).toMatch(/last online worker: draining it means no schedule fires and no task runs/);
    expect((await t.db.workerNode.findUniqueOrThrow({ where: { nodeId: 'n1' } })).status).toBe('online');
    const d = await call(drain.POST, 'POST', '/api/v1/workers/n1/drain', { token: operator, params: { id: 'n1' }, body: { confirmLastWorker: true } });
    expect(d.json.status).toBe('draining');
    const r = await call(resumeWorker.POST, 'POST', '/api/v1/workers/n1/resume', { token: operator, params: { id: 'n1' } });
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('online');
    expect((await call(resumeWorker.POST, 'POST', '/api/v1/workers/n1/resume', { token: viewer, params: { id: 'n1' } })).status).toBe(403);
    expect((await call(drain.POST, 'POST', '/api/v1/workers/zz/drain', { token: operator, params: { id: 'zz' } })).status).toBe(404);
  });

  it('users and tokens are admin only; a revoked token stops working', async () => {
    expect((await call(users.GET, 'GET', '/api/v1/users', { token: operator })).status).toBe(403);
    expect((await call(tokens.GET, 'GET', '/api/v1/tokens', { token: operator })).status).toBe(403);
    const u = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { email: 'Op@Example.com', password: 'longenough', role: 'operator' } });
    expect(u.status).toBe(201);
    expect(u.json).toMatchObject({ email: 'op@example.com', role: 'operator' });
    expect(u.json.passwordHash).toBeUndefined();
    const badU = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { email: 'nope', password: 'short', role: 'boss' } });
    expect(Object.keys(badU.json.error.fields).sort()).toEqual(['email', 'password', 'role']);
    const pu = await call(user.PATCH, 'PATCH', `/api/v1/users/${u.json.id}`, { token: admin, params: { id: u.json.id }, body: { role: 'viewer' } });
    expect(pu.json.role).toBe('viewer');
    const tk = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { name: 'ci', scope: 'read' } });
    expect(tk.status).toBe(201);
    expect(tk.json.token).toMatch(/^tf_/);
    expect((await call(jobs.GET, 'GET', '/api/v1/jobs', { token: tk.json.token })).status).toBe(200);
    const list = await call(tokens.GET, 'GET', '/api/v1/tokens', { token: admin });
    expect(JSON.stringify(list.json)).not.toContain(tk.json.token);
    const rv = await call(token.DELETE, 'DELETE', `/api/v1/tokens/${tk.json.id}`, { token: admin, params: { id: tk.json.id } });
    expect(rv.json.revokedAt).toBeTruthy();
    const revoked = await call(jobs.GET, 'GET', '/api/v1/jobs', { token: tk.json.token });
    expect([revoked.status, revoked.json.error.message]).toEqual([401, 'This API token was revoked']);
    // a token that a demotion broke says so (its holder has the secret); an unknown one reveals nothing
    const op2 = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { email: 'op2@example.com', password: 'longenough', role: 'operator' } });
    const opTk = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { name: 'op2', scope: 'operate', ownerId: op2.json.id } });
    expect((await call(jobs.GET, 'GET', '/api/v1/jobs', { token: opTk.json.token })).status).toBe(200);
    await call(user.PATCH, 'PATCH', `/api/v1/users/${op2.json.id}`, { token: admin, params: { id: op2.json.id }, body: { role: 'viewer' } });
    const demoted = await call(jobs.GET, 'GET', '/api/v1/jobs', { token: opTk.json.token });
    expect(demoted.status).toBe(401);
    expect(demoted.json.error.message).toMatch(/^This API token's scope \(operate\) needs its owner to be an operator or above, and the owner is now a viewer/);
    const unknown = await call(jobs.GET, 'GET', '/api/v1/jobs', { token: `${opTk.json.token.slice(0, -4)}zzzz` });
    expect([unknown.status, unknown.json.error.message]).toEqual([401, 'Invalid API token']);
    const du = await call(user.DELETE, 'DELETE', `/api/v1/users/${u.json.id}`, { token: admin, params: { id: u.json.id } });
    expect(du.json.deleted).toBe(true);
  });

  it('refuses a viewer with 403 on every mutating route, changing nothing', async () => {
    const c = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob('viewer.target') });
    const id = c.json.id;
    const runRow = await t.db.run.findFirstOrThrow();
    const taskRow = await t.db.task.findFirstOrThrow();
    const uid = '7c1e0d7e-1111-4222-8333-444455556666';
    const routes: [RouteHandler, string, Record<string, string>, unknown][] = [
      [jobs.POST, 'POST', {}, cronJob('viewer.new')],
      [bulk.POST, 'POST', {}, { action: 'pause', ids: [id] }],
      [job.PATCH, 'PATCH', { id }, { expectedVersion: 1, name: 'x' }],
      [job.DELETE, 'DELETE', { id }, undefined],
      [restore.POST, 'POST', { id }, undefined],
      [purge.DELETE, 'DELETE', { id }, undefined],
      [purge.POST, 'POST', { id }, undefined],
      [pause.POST, 'POST', { id }, undefined],
      [resume.POST, 'POST', { id }, undefined],
      [trigger.POST, 'POST', { id }, {}],
      [rollback.POST, 'POST', { id }, { version: 1 }],
      [dag.PUT, 'PUT', { id }, { steps: [{ key: 'a', handler: 'h' }] }],
      [cancelRun.POST, 'POST', { id: runRow.id }, undefined],
      [retryRun.POST, 'POST', { id: runRow.id }, undefined],
      [retryTask.POST, 'POST', { id: taskRow.id }, undefined],
      [drain.POST, 'POST', { id: 'n1' }, undefined],
      [users.POST, 'POST', {}, { email: 'v@x.io', password: 'longenough', role: 'admin' }],
      [user.PATCH, 'PATCH', { id: uid }, { role: 'admin' }],
      [user.DELETE, 'DELETE', { id: uid }, undefined],
      [tokens.POST, 'POST', {}, { name: 'x', scope: 'admin' }],
      [token.DELETE, 'DELETE', { id: uid }, undefined],
    ];
    const runsBefore = await t.db.run.count();
    for (const [h, m, params, body] of routes) {
      const r = await call(h, m, '/api/v1/x', { token: viewer, params, body, headers: { 'idempotency-key': `v-${m}-${Math.random()}` } });
      expect(r.status, `${m} ${JSON.stringify(params)}`).toBe(403);
      expect(r.json.error.code).toBe('forbidden');
    }
    const after = await t.db.job.findUniqueOrThrow({ where: { id } });
    expect(after.version).toBe(1);
    expect(await t.db.run.count()).toBe(runsBefore);
    expect(await t.db.job.count({ where: { key: 'viewer.new' } })).toBe(0);
  });

  it('serves an OpenAPI document generated from the zod schemas', async () => {
    const r = await call(openapi.GET, 'GET', '/api/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.json.openapi).toBe('3.1.0');
    expect(Object.keys(r.json.paths)).toEqual(expect.arrayContaining(['/jobs', '/jobs/{id}', '/runs/{id}', '/schedule/preview']));
    expect(r.json.components.schemas.CreateJobInput.properties.key.pattern).toBe('^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$');
  });
});

// its own database: the example's key must not meet the jobs of the tests above
describe("README's REST examples", () => {
  let f!: RestFixture;
  useRestFixture([], (x) => (f = x));

  it("README's create example (the handler shorthand) answers what the README shows", async () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
    const block = readme.slice(readme.indexOf('curl -s -X POST localhost:3000/api/v1/jobs'));
    const body = JSON.parse(/-d '([^']+)'/.exec(block)![1]!.replace(/\n\s*/g, ''));
    expect(body).toMatchObject({ handler: 'builtin.echo', payload: { x: 1 } });
    // the answer: the comment lines after "# 201", from the first one that opens a JSON object
    const comments = block.slice(block.indexOf('\n# 201')).split('\n').slice(1);
    const shownLines = comments.slice(comments.findIndex((l) => l.startsWith('# {')));
    const shown = JSON.parse(shownLines.slice(0, shownLines.findIndex((l) => !l.startsWith('#'))).map((l) => l.replace(/^#\s?/, '')).join(''));
    const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: f.admin, body });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject(shown);
  });
});
