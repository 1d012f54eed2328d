/**
 * Bad input is a 4xx naming the field, never a run that fails later, and nothing is written:
 * a trigger's payload (empty included, single and bulk) gets the save's checks over the whole
 * merge (lib/handlers/check-payloads.ts), a grpc step's proto is parsed on save the way the
 * worker parses it (lib/handlers/grpc-proto.ts), and a batch names the item it refuses.
 */
import { describe, expect, it } from 'vitest';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as bulk from '../../app/api/v1/jobs/bulk/route.ts';
import * as job from '../../app/api/v1/jobs/[id]/route.ts';
import * as preview from '../../app/api/v1/schedule/preview/route.ts';
import * as trigger from '../../app/api/v1/jobs/[id]/trigger/route.ts';
import * as user from '../../app/api/v1/users/[id]/route.ts';
import * as users from '../../app/api/v1/users/route.ts';
import * as tokens from '../../app/api/v1/tokens/route.ts';
import { ensureSystemJobs } from '../../lib/system-jobs/definitions.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { call, useRestFixture } from '../helpers/rest.ts';

const PROTO = 'syntax = "proto3"; package a; service B { rpc C (M) returns (M); } message M { string s = 1; }';

describe('input checks on trigger, on save and in batches', () => {
  let t: TestDatabase;
  let admin: string;
  let operator: string;
  useRestFixture([], (f) => ({ t, admin, operator } = f));

  const create = async (token: string, key: string, body: Record<string, unknown>) =>
    call(jobs.POST, 'POST', '/api/v1/jobs', { token, body: { key, name: key, schedule: { kind: 'manual' }, ...body } });
  const created = async (token: string, key: string, body: Record<string, unknown>) => {
    const c = await create(token, key, body);
    expect(c.status, JSON.stringify(c.json)).toBe(201);
    return c.json.id as string;
  };
  const fire = (token: string, id: string, body: unknown) => call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token, params: { id }, body });
  const fieldsOf = (r: { json: any }) => Object.keys(r.json?.error?.fields ?? {}).sort();

  it('an empty trigger payload still completes the merge: a required field is asked for (single and bulk)', async () => {
    const id = await created(operator, 'chk.http', { handler: 'http', payload: { method: 'GET' } });
    const one = await fire(operator, id, { payload: {} });
    expect(one.status).toBe(400);
    expect(fieldsOf(one)).toEqual(['payload.url']);
    const many = await fire(operator, id, { runs: [{ payload: {} }] });
    expect(many.status).toBe(400);
    expect(fieldsOf(many)).toEqual(['runs.0.payload.url']);
    expect(await t.db.run.count({ where: { jobId: id } })).toBe(0);
    expect((await fire(operator, id, { payload: { url: 'https://x.test' } })).status).toBe(201);
  });

  it('number settings are checked on a trigger as on save (single and bulk), nothing started', async () => {
    const sleep = await created(operator, 'chk.sleep', { handler: 'builtin.sleep', payload: { ms: 1 } });
    const one = await fire(operator, sleep, { payload: { ms: 'abc' } });
    expect(one.status).toBe(400);
    expect(fieldsOf(one)).toEqual(['payload.ms']);
    const many = await fire(operator, sleep, { runs: [{ payload: { ms: 5 } }, { payload: { ms: -1 } }] });
    expect(many.status).toBe(400);
    expect(fieldsOf(many)).toEqual(['runs.1.payload.ms']);
    expect(await t.db.run.count({ where: { jobId: sleep } })).toBe(0);
    const saved = await create(operator, 'chk.sleep2', { handler: 'builtin.sleep', payload: { ms: 'abc' } });
    expect(saved.status).toBe(400);
    expect(fieldsOf(saved)).toEqual(['payload.ms']);

    const shell = await created(admin, 'chk.shell', { handler: 'shell', payload: { command: ['/bin/true'] } });
    const sh = await fire(admin, shell, { payload: { killGraceMs: 'abc' } });
    expect(sh.status).toBe(400);
    expect(fieldsOf(sh)).toEqual(['payload.killGraceMs']);
    expect(await t.db.run.count({ where: { jobId: shell } })).toBe(0);
  });

  it('a grpc proto that does not parse, or lacks the service or method, is refused on save at the field', async () => {
    const step = (config: Record<string, unknown>) => ({ steps: [{ key: 'main', handler: 'grpc', config: { address: '127.0.0.1:5432', service: 'a.B', method: 'C', proto: PROTO, ...config } }] });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ proto: 'this is not a proto {{{' }, 'steps.0.config.proto', /does not parse/],
      [{ proto: 'syntax = "proto3"; import "/etc/passwd";' }, 'steps.0.config.proto', /not available/],
      [{ service: 'a.Nope' }, 'steps.0.config.service', /unknown service "a\.Nope" \(the proto defines: a\.B\)/],
      [{ method: 'D' }, 'steps.0.config.method', /unknown method "D"/],
    ];
    for (const [config, field, message] of cases) {
      const r = await create(operator, `chk.grpc.${field}`, step(config));
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(fieldsOf(r)).toEqual([field]);
      expect(r.json.error.fields[field]).toMatch(message);
    }
    expect(await t.db.job.count({ where: { key: { startsWith: 'chk.grpc.' } } })).toBe(0);
    expect((await create(operator, 'chk.grpc.ok', step({}))).status).toBe(201);
  });

  it('a refused run of a bulk trigger is named at its index', async () => {
    const id = await created(admin, 'chk.sql', { handler: 'sql', payload: { sql: 'select 1' } });
    const r = await fire(operator, id, { runs: [{ payload: { sql: 'select 2' } }, { payload: { connection: 'default' } }] });
    expect(r.status).toBe(403);
    expect(fieldsOf(r).every((k) => k === 'runs.1.payload' || k.startsWith('runs.1.payload.')), JSON.stringify(r.json)).toBe(true);
    expect(fieldsOf(r).length).toBeGreaterThan(0);
    expect(await t.db.run.count({ where: { jobId: id } })).toBe(0);
  });

  it('a bulk job action names the refused id by its index and changes nothing', async () => {
    const a = await created(operator, 'chk.bulk.a', { handler: 'builtin.noop' });
    const missing = '00000000-0000-0000-0000-000000000000';
    const r = await call(bulk.POST, 'POST', '/api/v1/jobs/bulk', { token: operator, body: { action: 'pause', ids: [a, missing] } });
    expect(r.status).toBe(404);
    expect(fieldsOf(r)).toEqual(['ids.1']);
    expect((await t.db.job.findUniqueOrThrow({ where: { id: a } })).status).not.toBe('paused');

    await ensureSystemJobs(t.db);
    const system = await t.db.job.findFirstOrThrow({ where: { steps: { some: { handler: { startsWith: 'system.' } } } } });
    const d = await call(bulk.POST, 'POST', '/api/v1/jobs/bulk', { token: admin, body: { action: 'delete', ids: [a, system.id] } });
    expect(d.status).toBe(403);
    expect(fieldsOf(d)).toEqual(['ids.1']);
    expect((await t.db.job.findUniqueOrThrow({ where: { id: a } })).deletedAt).toBeNull();
  });

  it('a name of only blank-looking characters (Hangul fillers, braille blank, grapheme joiner, variation selector) is a 400 at the name, nothing written', async () => {
    const before = { jobs: await t.db.job.count(), users: await t.db.user.count(), tokens: await t.db.apiToken.count() };
    for (const blank of ['\u3164', '\u2800', '\u115f\u1160', '\u034f', '\ufe0f']) {
      const job = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'blank.name', name: blank, schedule: { kind: 'manual' }, handler: 'builtin.noop' } });
      expect([job.status, job.json.error?.fields]).toEqual([400, { name: 'Name must contain a visible character' }]);
      const step = await create(operator, 'blank.step', { steps: [{ key: 'a', name: blank, handler: 'builtin.noop' }] });
      expect([step.status, fieldsOf(step)]).toEqual([400, ['steps.0.name']]);
      const label = await create(operator, 'blank.label', { handler: 'builtin.noop', routing: { labels: { zone: `eu${blank}` } } });
      expect([label.status, fieldsOf(label)]).toEqual([400, ['routing.labels.zone']]);
      const u = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { email: 'blank@x.test', name: blank, password: 'long-enough-1', role: 'viewer' } });
      expect([u.status, fieldsOf(u)]).toEqual([400, ['name']]);
      const tok = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { name: blank, scope: 'read' } });
      expect([tok.status, fieldsOf(tok)]).toEqual([400, ['name']]);
    }
    expect({ jobs: await t.db.job.count(), users: await t.db.user.count(), tokens: await t.db.apiToken.count() }).toEqual(before);
  });

  it('no fire time past 9999-12-31T23:59:59Z: a stagger that moves the last one there is a 400 at staggerSeconds, and no view lists one', async () => {
    const before = await t.db.job.count();
    // the offset hashed from the new job's id is in [0, 86400 s): past the range unless it is under 1 s
    const once = await create(operator, 'end.once', { schedule: { kind: 'once', runAt: '9999-12-31T23:59:59Z' }, staggerSeconds: 86_400, handler: 'builtin.noop' });
    expect([once.status, fieldsOf(once)], JSON.stringify(once.json)).toEqual([400, ['staggerSeconds']]);
    const cron = await create(operator, 'end.cron', { schedule: { kind: 'cron', cron: '59 23 31 12 *' }, startAt: '9999-12-30T00:00:00Z', staggerSeconds: 86_400, handler: 'builtin.noop' });
    expect([cron.status, fieldsOf(cron)], JSON.stringify(cron.json)).toEqual([400, ['staggerSeconds']]);
    expect(await t.db.job.count()).toBe(before);

    // a ten-year interval from 9995: its first slot is the only one in range
    const id = await created(operator, 'end.interval', { schedule: { kind: 'interval', intervalSeconds: 315_360_000 }, startAt: '9995-01-01T00:00:00Z', handler: 'builtin.noop' });
    const got = await call(job.GET, 'GET', `/api/v1/jobs/${id}`, { token: operator, params: { id } });
    expect(got.json.nextFireTimes).toEqual(['9995-01-01T00:00:00.000Z']);
    const p = await call(preview.GET, 'GET', `/api/v1/schedule/preview?cron=${encodeURIComponent('* * * * *')}&from=9999-12-31T23:58:00Z&jobId=${id}&staggerSeconds=86400&count=5`, { token: operator });
    expect(p.status).toBe(200);
    for (const t of p.json.fireTimes as string[]) expect(t <= '9999-12-31T23:59:59.999Z', t).toBe(true);
  });

  it('the last admin: a disable is named at disabled, a demotion at role', async () => {
    const admins = await t.db.user.findMany({ where: { role: 'admin', disabled: false } });
    expect(admins).toHaveLength(1);
    const id = admins[0]!.id;
    const patch = (body: unknown) => call(user.PATCH, 'PATCH', `/api/v1/users/${id}`, { token: admin, params: { id }, body });
    const disable = await patch({ disabled: true });
    expect(disable.status).toBe(409);
    expect(fieldsOf(disable)).toEqual(['disabled']);
    const demote = await patch({ role: 'operator' });
    expect(demote.status).toBe(409);
    expect(fieldsOf(demote)).toEqual(['role']);
    expect(await t.db.user.findUniqueOrThrow({ where: { id } })).toMatchObject({ role: 'admin', disabled: false });
  });
});
