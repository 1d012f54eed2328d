/**
 * Alarm acknowledgement and silences: a silenced alarm is recorded but never delivered (the
 * dispatcher marks it `silenced`, the log channel writes nothing, a webhook receiver gets
 * nothing), per job, per alarm type and per rule (job + type); it ends at `until` or when
 * unsilenced; acknowledgement records who, when and the note; viewers are refused; the REST door
 * names bad fields. Injected clock throughout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { SYSTEM_ACTOR, type Actor } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { triggerJob } from '../../lib/jobs/trigger-job.ts';
import { raiseAlarm } from '../../lib/alarms/raise-alarm.ts';
import { dispatchAlarms } from '../../lib/alarms/dispatch-alarms.ts';
import { listAlarms } from '../../lib/alarms/list-alarms.ts';
import { createSilence } from '../../lib/alarms/create-silence.ts';
import { endSilence } from '../../lib/alarms/end-silence.ts';
import { listSilences } from '../../lib/alarms/list-silences.ts';
import { acknowledgeAlarm } from '../../lib/alarms/acknowledge-alarm.ts';
import { sendTestAlarm } from '../../lib/alarms/send-test-alarm.ts';
import { call, byToken } from '../helpers/rest.ts';
import { userToken } from '../helpers/rest.ts';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (min: number) => new Date(T0.getTime() + min * 60_000);
const operator: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000001', name: 'ops@example.test', role: 'operator' };
const viewer: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000002', name: 'look@example.test', role: 'viewer' };

let t: TestDatabase;
let server: http.Server;
let hookUrl: string;
const received: string[] = [];
let jobA: string;
let jobB: string;

beforeAll(async () => {
  t = await createTestDatabase();
  process.env.DATABASE_URL = t.url;
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  hookUrl = `http://127.0.0.1:${port}/hook`;
  process.env.TICKFLOW_OUTBOUND_ALLOW = [process.env.TICKFLOW_OUTBOUND_ALLOW, `127.0.0.1:${port}`].filter(Boolean).join(',');
  const alarms = { onFailure: true, onTimeout: true, channels: [{ type: 'webhook' as const, target: hookUrl }] };
  jobA = (await createJob(t.db, { key: 'silence.a', name: 'a', schedule: { kind: 'manual' }, handler: 'builtin.noop', alarms }, SYSTEM_ACTOR)).id;
  jobB = (await createJob(t.db, { key: 'silence.b', name: 'b', schedule: { kind: 'manual' }, handler: 'builtin.noop', alarms }, SYSTEM_ACTOR)).id;
});
afterAll(async () => {
  const { getDb } = await import('../../lib/db.ts');
  await getDb().$disconnect();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await t.close();
});
beforeEach(async () => {
  received.length = 0;
  await t.db.alarm.deleteMany({});
  await t.db.alarmSilence.deleteMany({});
});

const raise = (jobId: string, type: 'failure' | 'timeout', now: Date) =>
  raiseAlarm(t.db, { jobId, type, level: 'error', content: { message: `${type} of ${jobId}` }, collapse: false }, now);
const statusOf = async (id: string) => (await t.db.alarm.findUniqueOrThrow({ where: { id } })).status;

describe('silences', () => {
  it('a silenced job alarm is recorded as silenced and never sent; other jobs are still sent', async () => {
    const s = await createSilence(t.db, { jobId: jobA, durationMinutes: 60, note: 'maintenance' }, operator, at(0));
    expect(s).toMatchObject({ jobId: jobA, jobKey: 'silence.a', type: null, until: at(60).toISOString(), createdBy: 'ops@example.test', active: true, note: 'maintenance' });
    const [a] = await raise(jobA, 'failure', at(1));
    const [b] = await raise(jobB, 'failure', at(1));
    const r = await dispatchAlarms(t.db, {}, at(1));
    expect(r).toMatchObject({ silenced: 1, claimed: 1, sent: 1 });
    expect(await statusOf(a!.id)).toBe('silenced');
    expect(await statusOf(b!.id)).toBe('sent');
    expect(received.map((x) => JSON.parse(x).jobId)).toEqual([jobB]);
    const listed = await listAlarms(t.db, { status: 'silenced' });
    expect(listed.items.map((x) => x.id)).toEqual([a!.id]);
    expect(listed.items[0]!.silence).toMatchObject({ id: s.id, createdBy: 'ops@example.test', until: at(60).toISOString(), endedAt: null });
    // a second pass never delivers it either
    await dispatchAlarms(t.db, {}, at(2));
    expect(received).toHaveLength(1);
  });

  it('a rule silence (job + type) silences only that type of that job; a type silence every job', async () => {
    await createSilence(t.db, { jobId: jobA, type: 'timeout', durationMinutes: 240 }, operator, at(0));
    const [aTimeout] = await raise(jobA, 'timeout', at(1));
    const [aFailure] = await raise(jobA, 'failure', at(1));
    const [bTimeout] = await raise(jobB, 'timeout', at(1));
    await dispatchAlarms(t.db, {}, at(1));
    expect([await statusOf(aTimeout!.id), await statusOf(aFailure!.id), await statusOf(bTimeout!.id)]).toEqual(['silenced', 'sent', 'sent']);

    await createSilence(t.db, { type: 'timeout', durationMinutes: 60 }, operator, at(2));
    const [b2] = await raise(jobB, 'timeout', at(3));
    await dispatchAlarms(t.db, {}, at(3));
    expect(await statusOf(b2!.id)).toBe('silenced');
  });

  it('a silence ends at its until, and an unsilence ends it at once (who is recorded); later alarms are sent', async () => {
    const s = await createSilence(t.db, { jobId: jobA, until: at(30).toISOString() }, operator, at(0));
    const [during] = await raise(jobA, 'failure', at(10));
    await dispatchAlarms(t.db, {}, at(10));
    expect(await statusOf(during!.id)).toBe('silenced');
    const [after] = await raise(jobA, 'failure', at(30));
    await dispatchAlarms(t.db, {}, at(30));
    expect(await statusOf(after!.id)).toBe('sent');
    expect((await listSilences(t.db, {}, at(30))).items).toEqual([]);

    const s2 = await createSilence(t.db, { jobId: jobA, durationMinutes: 1440 }, operator, at(40));
    const ended = await endSilence(t.db, s2.id, { ...operator, name: 'other@example.test' }, at(41));
    expect(ended).toMatchObject({ active: false, endedAt: at(41).toISOString(), endedBy: 'other@example.test' });
    const [afterUnsilence] = await raise(jobA, 'failure', at(42));
    await dispatchAlarms(t.db, {}, at(42));
    expect(await statusOf(afterUnsilence!.id)).toBe('sent');
    // the alarm silenced earlier stays recorded as silenced
    expect(await statusOf(during!.id)).toBe('silenced');
    const all = await listSilences(t.db, { includeEnded: true }, at(42));
    expect(all.items.map((x) => [x.id, x.active])).toEqual([
      [s2.id, false],
      [s.id, false],
    ]);
  });

  it('repeats collapse into a silenced row only while its silence lasts, and never into a delivery that gave up', async () => {
    const repeat = (now: Date) => raiseAlarm(t.db, { jobId: jobA, type: 'failure', level: 'error', content: { message: 'again' } }, now);
    const s = await createSilence(t.db, { jobId: jobA, durationMinutes: 60 }, operator, at(0));
    const [first] = await repeat(at(1));
    await dispatchAlarms(t.db, {}, at(1));
    expect(await statusOf(first!.id)).toBe('silenced');
    // during the silence, repeats are counted on the silenced row
    const [during] = await repeat(at(2));
    expect(during).toMatchObject({ id: first!.id, collapsed: true, count: 2 });
    // after an unsilence, the next one within the window is a row of its own, and it is sent
    await endSilence(t.db, s.id, operator, at(3));
    const [afterUnsilence] = await repeat(at(4));
    expect(afterUnsilence).toMatchObject({ collapsed: false, count: 1 });
    await dispatchAlarms(t.db, {}, at(4));
    expect(await statusOf(afterUnsilence!.id)).toBe('sent');
    expect(received).toHaveLength(1);
    // ...and the sent row absorbs the repeats after it (one message per window)
    expect((await repeat(at(5)))[0]).toMatchObject({ id: afterUnsilence!.id, collapsed: true, count: 2 });

    // a silence that runs out: the same
    await createSilence(t.db, { jobId: jobB, until: at(8).toISOString() }, operator, at(6));
    const [b1] = await raiseAlarm(t.db, { jobId: jobB, type: 'failure', level: 'error', content: { message: 'b' } }, at(7));
    await dispatchAlarms(t.db, {}, at(7));
    expect(await statusOf(b1!.id)).toBe('silenced');
    const [b2] = await raiseAlarm(t.db, { jobId: jobB, type: 'failure', level: 'error', content: { message: 'b' } }, at(9));
    expect(b2).toMatchObject({ collapsed: false });

    // a delivery that gave up does not swallow what happens next
    await t.db.alarm.update({ where: { id: afterUnsilence!.id }, data: { status: 'failed' } });
    const [afterFailure] = await repeat(at(6));
    expect(afterFailure).toMatchObject({ collapsed: false, count: 1 });
  });

  it('an id spelled in upper case names the same job: a silence, the alarm, runs and log filters find its rows (lib/api/ids.ts canonicalId)', async () => {
    const { POST: silence } = await import('../../app/api/v1/alarms/silences/route.ts');
    const { GET: alarms } = await import('../../app/api/v1/alarms/route.ts');
    const { GET: runs } = await import('../../app/api/v1/runs/route.ts');
    const { GET: audit } = await import('../../app/api/v1/jobs/[id]/audit/route.ts');
    const op = await userToken(t.db, 'operator', 'upper-op');
    const upper = jobA.toUpperCase();
    const made = await call(silence, 'POST', '/api/v1/alarms/silences', { token: op, body: { jobId: upper, durationMinutes: 30 } });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ jobId: jobA, jobKey: 'silence.a', active: true });
    const [a] = await raise(jobA, 'failure', new Date());
    await dispatchAlarms(t.db, {}, new Date());
    expect(await statusOf(a!.id)).toBe('silenced');
    expect(received).toEqual([]);
    const listed = await call(alarms, 'GET', `/api/v1/alarms?jobId=${upper}`, { token: op });
    expect(listed.json.items.map((x: { id: string }) => x.id)).toEqual([a!.id]);
    await triggerJob(t.db, jobA, {}, SYSTEM_ACTOR);
    const byUpper = await call(runs, 'GET', `/api/v1/runs?jobId=${upper}`, { token: op });
    const byLower = await call(runs, 'GET', `/api/v1/runs?jobId=${jobA}`, { token: op });
    expect(byUpper.json.items.length).toBeGreaterThan(0);
    expect(byUpper.json.items).toEqual(byLower.json.items);
    const auditUpper = await call(audit, 'GET', `/api/v1/jobs/${upper}/audit`, { token: op, params: { id: upper } });
    const auditLower = await call(audit, 'GET', `/api/v1/jobs/${jobA}/audit`, { token: op, params: { id: jobA } });
    expect(auditUpper.status).toBe(200);
    expect(auditUpper.json).toEqual(auditLower.json);
  });

  it('a test alarm is never silenced (it exists to check the receiver)', async () => {
    await createSilence(t.db, { type: 'failure', durationMinutes: 60 }, operator, at(0));
    const a = await sendTestAlarm(t.db, { channel: { type: 'webhook', target: hookUrl } }, operator, at(1));
    await dispatchAlarms(t.db, {}, at(1));
    expect(await statusOf(a.id)).toBe('sent');
  });

  it('refuses a viewer, a silence without a scope or a duration, one in the past, one over 30 days, an unknown job', async () => {
    await expect(createSilence(t.db, { jobId: jobA, durationMinutes: 60 }, viewer, at(0))).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createSilence(t.db, { durationMinutes: 60 }, operator, at(0))).rejects.toMatchObject({ code: 'validation', fields: { jobId: expect.any(String) } });
    await expect(createSilence(t.db, { jobId: jobA }, operator, at(0))).rejects.toMatchObject({ code: 'validation', fields: { durationMinutes: expect.any(String) } });
    await expect(createSilence(t.db, { jobId: jobA, until: at(-1).toISOString() }, operator, at(0))).rejects.toMatchObject({ code: 'validation', fields: { until: 'Must be in the future' } });
    await expect(createSilence(t.db, { jobId: jobA, until: at(31 * 24 * 60).toISOString() }, operator, at(0))).rejects.toMatchObject({ fields: { until: 'At most 30 days ahead' } });
    await expect(createSilence(t.db, { jobId: '00000000-0000-4000-8000-00000000dead', durationMinutes: 5 }, operator, at(0))).rejects.toMatchObject({ code: 'not_found', fields: { jobId: 'No such job' } });
    // a job key or garbage is not an id: the rule of every id (lib/api/schemas.ts objectId), a 400 at jobId
    for (const jobId of ['nightly.report', 'garbage', '00000000-0000-4000-8000']) {
      await expect(createSilence(t.db, { jobId, durationMinutes: 5 }, operator, at(0))).rejects.toMatchObject({ code: 'validation', fields: { jobId: 'Must be a job id (uuid)' } });
    }
    expect(await t.db.alarmSilence.count()).toBe(0);
  });
});

describe('acknowledge', () => {
  it('records who, when and the note; a second acknowledgement is a conflict naming the first', async () => {
    const [a] = await raise(jobA, 'failure', at(0));
    const v = await acknowledgeAlarm(t.db, a!.id, { note: 'looking into it' }, operator, at(5));
    expect(v).toMatchObject({ acknowledgedBy: 'ops@example.test', acknowledgedAt: at(5).toISOString(), ackNote: 'looking into it' });
    await expect(acknowledgeAlarm(t.db, a!.id, {}, { ...operator, name: 'late@example.test' }, at(6))).rejects.toMatchObject({
      code: 'conflict',
      message: `Alarm already acknowledged by ops@example.test at ${at(5).toISOString()}`,
    });
    await expect(acknowledgeAlarm(t.db, a!.id, {}, viewer, at(6))).rejects.toMatchObject({ code: 'forbidden' });
    await expect(acknowledgeAlarm(t.db, 'nope', {}, operator, at(6))).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('REST', () => {
  it('acknowledge, silence and unsilence over /api/v1; bad fields are 400 naming the field; viewers 403', async () => {
    const { POST: ack } = await import('../../app/api/v1/alarms/[id]/acknowledge/route.ts');
    const { GET: list, POST: silence } = await import('../../app/api/v1/alarms/silences/route.ts');
    const { DELETE: unsilence } = await import('../../app/api/v1/alarms/silences/[id]/route.ts');
    const op = await userToken(t.db, 'operator', 'rest-op');
    const view = await userToken(t.db, 'viewer', 'rest-view');
    const [a] = await raise(jobA, 'failure', new Date());

    const r1 = await call(ack, 'POST', `/api/v1/alarms/${a!.id}/acknowledge`, { token: op, params: { id: a!.id }, body: { note: 'mine' } });
    expect(r1.status).toBe(200);
    expect(r1.json).toMatchObject({ id: a!.id, ackNote: 'mine', acknowledgedBy: byToken('rest-op') });
    expect((await call(ack, 'POST', `/api/v1/alarms/${a!.id}/acknowledge`, { token: op, params: { id: a!.id } })).status).toBe(409);

    const bad = await call(silence, 'POST', '/api/v1/alarms/silences', { token: op, body: { jobId: jobA, durationMinutes: 0 } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.error.fields)).toEqual(['durationMinutes']);
    const badType = await call(silence, 'POST', '/api/v1/alarms/silences', { token: op, body: { type: 'nope', durationMinutes: 60 } });
    expect(badType.status).toBe(400);
    expect(badType.json.error.fields).toHaveProperty('type');
    expect((await call(silence, 'POST', '/api/v1/alarms/silences', { token: view, body: { jobId: jobA, durationMinutes: 60 } })).status).toBe(403);

    const made = await call(silence, 'POST', '/api/v1/alarms/silences', { token: op, body: { jobId: jobA, type: 'failure', durationMinutes: 60 } });
    expect(made.status).toBe(201);
    const listed = await call(list, 'GET', '/api/v1/alarms/silences', { token: view });
    expect(listed.json.items.map((x: { id: string }) => x.id)).toEqual([made.json.id]);
    const ended = await call(unsilence, 'DELETE', `/api/v1/alarms/silences/${made.json.id}`, { token: op, params: { id: made.json.id } });
    expect(ended.status).toBe(200);
    expect(ended.json).toMatchObject({ active: false, endedBy: byToken('rest-op') });
    expect((await call(list, 'GET', '/api/v1/alarms/silences', { token: view })).json.items).toEqual([]);
    expect((await call(unsilence, 'DELETE', '/api/v1/alarms/silences/x', { token: op, params: { id: 'x' } })).status).toBe(404);
  });
});
