/**
 * Alarms: raise (per configured channel), collapse within the window, delivery by the
 * dispatcher to a real local webhook receiver (HMAC verified by the receiver) and a real
 * local SMTP server, retries with exponential backoff, failure after N attempts, fan-out of
 * the engine's dead-letter / node-offline source rows, test alarms. Injected clock throughout.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { offerHandlers, useTestDatabase } from '../helpers/db.ts';
import { SYSTEM_ACTOR, type Actor } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { alarmsForFinishedRun } from '../../lib/alarms/alarms-for-finished-run.ts';
import { raiseAlarm } from '../../lib/alarms/raise-alarm.ts';
import { dispatchAlarms } from '../../lib/alarms/dispatch-alarms.ts';
import { closeAlarmTransports, deliverAlarm, SIGNATURE_HEADER } from '../../lib/alarms/deliver.ts';
import { sendTestAlarm } from '../../lib/alarms/send-test-alarm.ts';
import { listAlarms } from '../../lib/alarms/list-alarms.ts';
import { AlarmDispatcher } from '../../worker/alarm-dispatcher.ts';
import { log } from '../../lib/log.ts';
import { claimTasks, completeTask, triggerRun } from '../../lib/engine/index.ts';
import { markOfflineNodes } from '../../lib/engine/nodes/mark-offline-nodes.ts';

const SECRET = 'test-webhook-secret';
const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

type Received = { body: string; json: any; signature: string | undefined; validSignature: boolean; headers: http.IncomingHttpHeaders };

/** A webhook receiver on 127.0.0.1:0 that verifies the HMAC itself; `plan` decides each answer. */
async function startReceiver() {
  const received: Received[] = [];
  let plan: (n: number) => number | 'hang' = () => 200;
  const hung: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const sig = req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined;
      const expected = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      const validSignature = !!sig && sig.length === expected.length && timingSafeEqual(Buffer.from(sig), Buffer.from(expected));
      received.push({ body, json: JSON.parse(body), signature: sig, validSignature, headers: req.headers });
      const answer = plan(received.length);
      if (answer === 'hang') {
        hung.push(res);
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer === 200 ? 'ok' : 'nope');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  // the receiver is on loopback: allow exactly it (lib/net/outbound.ts refuses loopback by default)
  const allow = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.TICKFLOW_OUTBOUND_ALLOW = [process.env.TICKFLOW_OUTBOUND_ALLOW, allow].filter(Boolean).join(',');
  return {
    url,
    received,
    setPlan(p: (n: number) => number | 'hang') {
      plan = p;
    },
    reset() {
      received.length = 0;
      plan = () => 200;
    },
    async close() {
      for (const r of hung) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A local SMTP server (smtp-server) on 127.0.0.1:0 collecting messages. */
async function startSmtp() {
  const mails: { from: string; to: string[]; raw: string }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const t = useTestDatabase();
let hook: Awaited<ReturnType<typeof startReceiver>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const ENV_KEYS = ['TICKFLOW_WEBHOOK_SECRET', 'TICKFLOW_SMTP_URL', 'TICKFLOW_SMTP_FROM', 'TICKFLOW_ALARM_MAX_ATTEMPTS', 'TICKFLOW_ALARM_TIMEOUT_MS', 'TICKFLOW_ALARM_COLLAPSE_SECONDS', 'TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK', 'TICKFLOW_ALARM_NODE_OFFLINE_EMAIL'];
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  await offerHandlers(t, ['alarm.fail', 'alarm.scan', 'alarm.scan2', 'alarm.scan3']);
  hook = await startReceiver();
  smtp = await startSmtp();
  for (const k of ENV_KEYS) saved[k] = process.env[k];
});
afterAll(async () => {
  closeAlarmTransports();
  await hook?.close();
  await smtp?.close();
  for (const k of ENV_KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});
beforeEach(async () => {
  process.env.TICKFLOW_WEBHOOK_SECRET = SECRET;
  process.env.TICKFLOW_SMTP_URL = smtp.url;
  process.env.TICKFLOW_SMTP_FROM = 'Tickflow Test <alarms@tickflow.test>';
  process.env.TICKFLOW_ALARM_MAX_ATTEMPTS = '3';
  delete process.env.TICKFLOW_ALARM_TIMEOUT_MS;
  delete process.env.TICKFLOW_ALARM_COLLAPSE_SECONDS;
  delete process.env.TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK;
  delete process.env.TICKFLOW_ALARM_NODE_OFFLINE_EMAIL;
  hook.reset();
  smtp.mails.length = 0;
  await t.db.alarm.deleteMany({});
});
afterEach(() => hook.setPlan(() => 200));

let seq = 0;
async function jobWithAlarms(alarms: Record<string, unknown>) {
  return createJob(t.db, { key: `alarm.job.${++seq}`, name: 'alarm test', schedule: { kind: 'manual' }, handler: 'builtin.noop', alarms }, SYSTEM_ACTOR, T0);
}

describe('raise and deliver', () => {
  it('raises one row per configured channel and delivers webhook (signed) and email', async () => {
    const job = await jobWithAlarms({ onFailure: true, channels: [{ type: 'webhook', target: hook.url }, { type: 'email', target: 'ops@tickflow.test' }, { type: 'log', target: '' }] });
    const raised = await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000001', jobId: job.id, status: 'failed', error: 'main: boom' }, null, T0);
    expect(raised.map((r) => r.channel).sort()).toEqual(['email', 'log', 'webhook']);
    expect(raised.every((r) => !r.collapsed)).toBe(true);

    const r = await dispatchAlarms(t.db, {}, at(1000));
    expect(r).toMatchObject({ claimed: 3, sent: 3, retried: 0, failed: 0 });

    expect(hook.received).toHaveLength(1);
    const got = hook.received[0];
    expect(got.validSignature).toBe(true);
    expect(got.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.json).toMatchObject({ type: 'failure', level: 'error', jobId: job.id, runId: '00000000-0000-4000-8000-000000000001', count: 1, attempt: 1 });
    expect(got.json.message).toContain(job.key);
    expect(got.json.message).toContain('boom');

    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0].to).toEqual(['ops@tickflow.test']);
    expect(smtp.mails[0].from).toBe('alarms@tickflow.test');
    expect(smtp.mails[0].raw).toMatch(/Subject: \[Tickflow\] failure: job alarm\.job\.\d+/);

    const rows = await t.db.alarm.findMany({ orderBy: { channel: 'asc' } });
    for (const row of rows) {
      expect(row.status).toBe('sent');
      expect(row.attempts).toBe(1);
      expect(row.sentAt?.toISOString()).toBe(at(1000).toISOString());
      expect(row.error).toBeNull();
    }
  });

  it('does nothing for a type that is switched off, or for cancelled runs', async () => {
    const job = await jobWithAlarms({ onFailure: true, onSuccess: false, channels: [{ type: 'webhook', target: hook.url }] });
    expect(await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000002', jobId: job.id, status: 'success' }, null, T0)).toEqual([]);
    expect(await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000002', jobId: job.id, status: 'cancelled' }, null, T0)).toEqual([]);
    expect(await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000002', jobId: '00000000-0000-4000-8000-00000000dead', status: 'failed' }, null, T0)).toEqual([]);
    expect(await t.db.alarm.count()).toBe(0);
  });

  it('opt-in success and timeout alarms', async () => {
    const job = await jobWithAlarms({ onSuccess: true, onTimeout: true, channels: [{ type: 'log', target: '' }] });
    const s = await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000003', jobId: job.id, status: 'success' }, null, T0);
    const to = await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000004', jobId: job.id, status: 'timeout' }, null, T0);
    expect(s).toHaveLength(1);
    expect(to).toHaveLength(1);
    const rows = await t.db.alarm.findMany({ orderBy: { type: 'asc' } });
    expect(rows.map((r) => [r.type, r.level])).toEqual([
      ['timeout', 'error'],
      ['success', 'info'],
    ]);
  });
});

describe('collapse', () => {
  it('collapses repeats for the same job, type and channel within the window, then starts a new row', async () => {
    const job = await jobWithAlarms({ onFailure: true, channels: [{ type: 'webhook', target: hook.url }] });
    const run = (n: number) => `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`;
    const first = await alarmsForFinishedRun(t.db, { id: run(1), jobId: job.id, status: 'failed' }, null, T0);
    // the first one is delivered; repeats inside 10 min are folded into it (no second message)
    await dispatchAlarms(t.db, {}, at(1000));
    for (let i = 2; i <= 5; i++) {
      const again = await alarmsForFinishedRun(t.db, { id: run(i), jobId: job.id, status: 'failed' }, null, at(i * 60_000));
      expect(again[0]).toMatchObject({ id: first[0].id, collapsed: true, count: i });
    }
    expect((await dispatchAlarms(t.db, {}, at(6 * 60_000))).claimed).toBe(0);
    expect(hook.received).toHaveLength(1);
    const row = await t.db.alarm.findUniqueOrThrow({ where: { id: first[0].id } });
    expect(row.count).toBe(5);
    expect((row.content as any).lastRunId).toBe(run(5));
    // its instant as every instant the API gives: ISO-8601 UTC (lib/engine/sql/iso-utc.ts)
    expect((row.content as any).lastAt).toBe(at(5 * 60_000).toISOString());

    // a different type is not collapsed into it
    const timeoutJob = await jobWithAlarms({ onFailure: true, onTimeout: true, channels: [{ type: 'webhook', target: hook.url }] });
    const a = await alarmsForFinishedRun(t.db, { id: run(6), jobId: timeoutJob.id, status: 'failed' }, null, at(7 * 60_000));
    const b = await alarmsForFinishedRun(t.db, { id: run(7), jobId: timeoutJob.id, status: 'timeout' }, null, at(7 * 60_000));
    expect(a[0].id).not.toBe(b[0].id);

    // after the window (10 min by default) a new row is raised
    const later = await alarmsForFinishedRun(t.db, { id: run(8), jobId: job.id, status: 'failed' }, null, at(11 * 60_000));
    expect(later[0].collapsed).toBe(false);
    expect(later[0].id).not.toBe(first[0].id);
  });

  it('a pending row absorbs repeats and its delivery reports the count', async () => {
    const job = await jobWithAlarms({ onFailure: true, channels: [{ type: 'webhook', target: hook.url }] });
    await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000201', jobId: job.id, status: 'failed' }, null, T0);
    await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000202', jobId: job.id, status: 'failed' }, null, at(10));
    await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000203', jobId: job.id, status: 'failed' }, null, at(20));
    await dispatchAlarms(t.db, {}, at(1000));
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0].json.count).toBe(3);
    expect(hook.received[0].json.message).toContain('(x3)');
  });

  it('concurrent raises for the same key collapse into one row', async () => {
    const job = await jobWithAlarms({ onFailure: true, channels: [{ type: 'log', target: '' }] });
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => alarmsForFinishedRun(t.db, { id: `00000000-0000-4000-8000-0000000003${String(i).padStart(2, '0')}`, jobId: job.id, status: 'failed' }, null, at(i))),
    );
    const rows = await t.db.alarm.findMany({ where: { jobId: job.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0].count).toBe(8);
  });
});

describe('retries', () => {
  it('retries a failing webhook with exponential backoff, then succeeds', async () => {
    const job = await jobWithAlarms({ onFailure: true, channels: [{ type: 'webhook', target: hook.url }] });
    hook.setPlan((n) => (n <= 2 ? 500 : 200));
    const [a] = await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000401', jobId: job.id, status: 'failed' }, null, T0);

    expect(await dispatchAlarms(t.db, {}, T0)).toMatchObject({ claimed: 1, retried: 1 });
    let row = await t.db.alarm.findUniqueOrThrow({ where: { id: a.id } });
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row.error).toMatch(/HTTP 500/);
    expect(row.nextAttemptAt.toISOString()).toBe(at(30_000).toISOString()); // 30 s * 2^0

    expect((await dispatchAlarms(t.db, {}, at(29_999))).claimed).toBe(0); // not due yet
    expect(await dispatchAlarms(t.db, {}, at(30_000))).toMatchObject({ claimed: 1, retried: 1 });
    row = await t.db.alarm.findUniqueOrThrow({ where: { id: a.id } });
    expect(row.attempts).toBe(2);
    expect(row.nextAttemptAt.toISOString()).toBe(at(30_000 + 60_000).toISOString()); // 30 s * 2^1

    expect(await dispatchAlarms(t.db, {}, at(90_000))).toMatchObject({ claimed: 1, sent: 1 });
    row = await t.db.alarm.findUniqueOrThrow({ where: { id: a.id } });
    expect(row).toMatchObject({ status: 'sent', attempts: 3, error: null });
    expect(hook.received).toHaveLength(3);
    expect(hook.received.map((r) => r.json.attempt)).toEqual([1, 2, 3]);
    expect(hook.received.every((r) => r.validSignature)).toBe(true);
  });

  it('gives up after TICKFLOW_ALARM_MAX_ATTEMPTS and keeps the last error', async () => {
    const job = await jobWithAlarms({ onFailure: true, channels: [{ type: 'webhook', target: hook.url }] });
    hook.setPlan(() => 503);
    const [a] = await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000402', jobId: job.id, status: 'failed' }, null, T0);
    let now = T0;
    for (let i = 0; i < 3; i++) {
      await dispatchAlarms(t.db, {}, now);
      const row = await t.db.alarm.findUniqueOrThrow({ where: { id: a.id } });
      now = row.nextAttemptAt;
    }
    const row = await t.db.alarm.findUniqueOrThrow({ where: { id: a.id } });
    expect(row).toMatchObject({ status: 'failed', attempts: 3 });
    expect(row.error).toMatch(/HTTP 503/);
    expect((await dispatchAlarms(t.db, {}, at(86_400_000))).claimed).toBe(0);
  });

  it('a webhook that does not answer in time is a failed attempt', async () => {
    process.env.TICKFLOW_ALARM_TIMEOUT_MS = '300';
    const job = await jobWithAlarms({ onFailure: true, channels: [{ type: 'webhook', target: hook.url }] });
    hook.setPlan(() => 'hang');
    const [a] = await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000403', jobId: job.id, status: 'failed' }, null, T0);
    expect(await dispatchAlarms(t.db, {}, T0)).toMatchObject({ retried: 1 });
    const row = await t.db.alarm.findUniqueOrThrow({ where: { id: a.id } });
    expect(row.error).toMatch(/timed out after 300 ms/);
  });

  it('email without SMTP configured fails with a clear error; unreachable SMTP is retried', async () => {
    delete process.env.TICKFLOW_SMTP_URL;
    const job = await jobWithAlarms({ onFailure: true, channels: [{ type: 'email', target: 'ops@tickflow.test' }] });
    const [a] = await alarmsForFinishedRun(t.db, { id: '00000000-0000-4000-8000-000000000404', jobId: job.id, status: 'failed' }, null, T0);
    await dispatchAlarms(t.db, {}, T0);
    const row = await t.db.alarm.findUniqueOrThrow({ where: { id: a.id } });
    expect(row.status).toBe('pending');
    expect(row.error).toMatch(/TICKFLOW_SMTP_URL/);
    // configured again: the retry goes through
    process.env.TICKFLOW_SMTP_URL = smtp.url;
    await dispatchAlarms(t.db, {}, row.nextAttemptAt);
    expect((await t.db.alarm.findUniqueOrThrow({ where: { id: a.id } })).status).toBe('sent');
    expect(smtp.mails).toHaveLength(1);
  });

  it('a failed test send says what failed: refused connection in words, HTTP status, missing setting (typed)', async () => {
    const operator: Actor = { kind: 'user', id: 'typed', name: 'typed@tickflow.test', role: 'operator' };
    // a port nothing listens on (allow-listed, so the outbound guard lets it through to the socket)
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    process.env.TICKFLOW_OUTBOUND_ALLOW = `${process.env.TICKFLOW_OUTBOUND_ALLOW},127.0.0.1:${port}`;
    const base = { id: 'x', jobId: null, runId: null, type: 'failure', level: 'info', content: { test: true }, count: 1, attempts: 1, createdAt: T0 } as const;
    await expect(deliverAlarm({ ...base, channel: 'webhook', target: `http://127.0.0.1:${port}/hook` })).rejects.toMatchObject({
      name: 'AlarmDeliveryError',
      code: 'network',
      message: 'webhook request failed: connection refused (ECONNREFUSED)',
    });
    hook.setPlan(() => 404);
    await expect(deliverAlarm({ ...base, channel: 'webhook', target: hook.url })).rejects.toMatchObject({ code: 'http_status', detail: { status: 404 }, message: 'webhook answered HTTP 404: nope' });
    delete process.env.TICKFLOW_SMTP_URL;
    await expect(deliverAlarm({ ...base, channel: 'email', target: 'ops@tickflow.test' })).rejects.toMatchObject({ code: 'not_configured', detail: { setting: 'TICKFLOW_SMTP_URL' } });
    // through the dispatcher, the test alarm's row keeps the words
    const sent = await sendTestAlarm(t.db, { channel: { type: 'webhook', target: `http://127.0.0.1:${port}/hook` } }, operator, T0);
    await dispatchAlarms(t.db, {}, T0);
    expect(await t.db.alarm.findUniqueOrThrow({ where: { id: sent.id } })).toMatchObject({ status: 'pending', error: 'webhook request failed: connection refused (ECONNREFUSED)' });
  });

  it('two dispatchers never deliver the same alarm twice', async () => {
    const job = await jobWithAlarms({ onFailure: true, channels: [{ type: 'webhook', target: hook.url }] });
    for (let i = 0; i < 6; i++) {
      await raiseAlarm(t.db, { jobId: job.id, type: 'failure', level: 'error', content: { message: `m${i}` }, channels: [{ type: 'webhook', target: `${hook.url}?n=${i}` }] }, T0);
    }
    const logger = log('test');
    const d1 = new AlarmDispatcher({ intervalMs: 1000, limit: 3 }, { db: t.db, clock: () => T0, logger });
    const d2 = new AlarmDispatcher({ intervalMs: 1000, limit: 3 }, { db: t.db, clock: () => T0, logger });
    const [r1, r2] = await Promise.all([d1.runOnce(T0), d2.runOnce(T0)]);
    expect(r1.sent + r2.sent).toBe(6);
    expect(hook.received).toHaveLength(6);
    expect(new Set(hook.received.map((r) => r.json.id)).size).toBe(6);
  });
});

describe('engine source rows, node offline, test alarms', () => {
  it("fans the engine's dead-letter log row out to the job's channels once", async () => {
    const job = await jobWithAlarms({ onDeadLetter: true, channels: [{ type: 'webhook', target: hook.url }, { type: 'log', target: '' }] });
    // the row exactly as lib/engine/sql/finalise-run.ts inserts it
    await t.pool.query(
      `INSERT INTO alarms (job_id, run_id, type, level, channel, target, content, created_at, updated_at, next_attempt_at)
       VALUES ($1, $2, 'dead_letter', 'error', 'log', '', $3, $4, $4, $4)`,
      [job.id, '00000000-0000-4000-8000-000000000501', { jobKey: job.key, consecutiveFailures: 3, message: `job ${job.key} moved to dead letter after 3 consecutive failed runs` }, T0],
    );
    const r1 = await dispatchAlarms(t.db, {}, T0);
    expect(r1).toMatchObject({ sent: 1, fannedOut: 1 });
    const r2 = await dispatchAlarms(t.db, {}, at(1));
    expect(r2).toMatchObject({ sent: 1, fannedOut: 0 });
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0].json).toMatchObject({ type: 'dead_letter', jobId: job.id });
    expect(hook.received[0].json.message).toContain('dead letter');
    expect(await t.db.alarm.count({ where: { type: 'dead_letter' } })).toBe(2);
  });

  it('counts every fan-out of a pass whose source rows are delivered concurrently', async () => {
    const webhook = [{ type: 'webhook' as const, target: hook.url }];
    for (let i = 0; i < 6; i++) {
      const job = await jobWithAlarms({ onDeadLetter: true, channels: webhook });
      await t.pool.query(
        `INSERT INTO alarms (job_id, run_id, type, level, channel, target, content, created_at, updated_at, next_attempt_at)
         VALUES ($1, $2, 'dead_letter', 'error', 'log', '', $3, $4, $4, $4)`,
        [job.id, `00000000-0000-4000-8000-00000000070${i}`, { jobKey: job.key, consecutiveFailures: 3, message: `job ${job.key} moved to dead letter` }, at(10_000)],
      );
    }
    expect(await dispatchAlarms(t.db, {}, at(12_000))).toMatchObject({ claimed: 6, sent: 6, fannedOut: 6 });
    expect(await t.db.alarm.count({ where: { type: 'dead_letter', channel: 'webhook' } })).toBe(6);
  });

  it("fans a dead-letter row out by the job's alarm settings when the engine wrote it, not at the dispatch", async () => {
    const { updateJob } = await import('../../lib/jobs/update-job.ts');
    const webhook = [{ type: 'webhook' as const, target: hook.url }];
    const sourceRow = (jobId: string, key: string, runId: string, createdAt: Date) =>
      t.pool.query(
        `INSERT INTO alarms (job_id, run_id, type, level, channel, target, content, created_at, updated_at, next_attempt_at)
         VALUES ($1, $2, 'dead_letter', 'error', 'log', '', $3, $4, $4, $4)`,
        [jobId, runId, { jobKey: key, consecutiveFailures: 3, message: `job ${key} moved to dead letter after 3 consecutive failed runs` }, createdAt],
      );
    // On when the job moved, switched off before the dispatch: delivered.
    const wasOn = await jobWithAlarms({ onDeadLetter: true, channels: webhook });
    await sourceRow(wasOn.id, wasOn.key, '00000000-0000-4000-8000-000000000601', at(10_000));
    await updateJob(t.db, wasOn.id, { expectedVersion: 1, alarms: { onDeadLetter: false, channels: webhook } }, SYSTEM_ACTOR, at(11_000));
    // Off when the job moved, switched on before the dispatch: not delivered.
    const wasOff = await jobWithAlarms({ onDeadLetter: false, channels: webhook });
    await sourceRow(wasOff.id, wasOff.key, '00000000-0000-4000-8000-000000000602', at(10_000));
    await updateJob(t.db, wasOff.id, { expectedVersion: 1, alarms: { onDeadLetter: true, channels: webhook } }, SYSTEM_ACTOR, at(11_000));

    expect(await dispatchAlarms(t.db, {}, at(12_000))).toMatchObject({ fannedOut: 1 });
    await dispatchAlarms(t.db, {}, at(13_000));
    expect(hook.received.map((r) => r.json.jobId)).toEqual([wasOn.id]);
  });

  it('node offline alarms go to the globally configured channels', async () => {
    process.env.TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK = hook.url;
    process.env.TICKFLOW_ALARM_NODE_OFFLINE_EMAIL = 'oncall@tickflow.test';
    await t.pool.query(
      `INSERT INTO alarms (type, level, channel, target, content, status, created_at, updated_at, next_attempt_at)
       VALUES ('node_offline', 'warning', 'log', 'node-a', $1, 'pending', $2, $2, $2)`,
      [{ nodeId: 'node-a', name: 'worker-a', message: 'worker node worker-a (node-a) missed heartbeats' }, T0],
    );
    await dispatchAlarms(t.db, {}, T0);
    await dispatchAlarms(t.db, {}, at(1));
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0].json).toMatchObject({ type: 'node_offline', level: 'warning', jobId: null });
    expect(smtp.mails.map((m) => m.to)).toEqual([['oncall@tickflow.test']]);
    // direct raise uses the same env channels
    const direct = await raiseAlarm(t.db, { jobId: null, type: 'node_offline', level: 'warning', content: { message: 'x' } }, at(2));
    expect(direct.map((d) => d.channel).sort()).toEqual(['email', 'webhook']);
  });

  it('state changes are never collapsed: a second node offline, and a dead letter after a resume, each send their own message', async () => {
    process.env.TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK = hook.url;
    const nodeRow = (nodeId: string, when: Date) =>
      t.pool.query(
        `INSERT INTO alarms (type, level, channel, target, content, status, created_at, updated_at, next_attempt_at)
         VALUES ('node_offline', 'warning', 'log', $1, $2, 'pending', $3, $3, $3)`,
        [nodeId, { nodeId, name: `worker-${nodeId}`, message: `worker node worker-${nodeId} (${nodeId}) missed heartbeats` }, when],
      );
    await nodeRow('node-b', T0);
    await dispatchAlarms(t.db, {}, T0);
    await dispatchAlarms(t.db, {}, at(1));
    // another node, 12 s later: inside the collapse window
    await nodeRow('node-c', at(12_000));
    await dispatchAlarms(t.db, {}, at(12_000));
    await dispatchAlarms(t.db, {}, at(12_001));
    expect(hook.received.map((r) => r.json.content.nodeId)).toEqual(['node-b', 'node-c']);

    const job = await jobWithAlarms({ onDeadLetter: true, channels: [{ type: 'webhook', target: hook.url }] });
    const deadLetterRow = (runId: string, when: Date) =>
      t.pool.query(
        `INSERT INTO alarms (job_id, run_id, type, level, channel, target, content, created_at, updated_at, next_attempt_at)
         VALUES ($1, $2, 'dead_letter', 'error', 'log', '', $3, $4, $4, $4)`,
        [job.id, runId, { jobKey: job.key, consecutiveFailures: 1, message: `job ${job.key} moved to dead letter` }, when],
      );
    // moved, resumed by an operator, moved again a minute later
    await deadLetterRow('00000000-0000-4000-8000-000000000801', at(20_000));
    await dispatchAlarms(t.db, {}, at(20_000));
    await dispatchAlarms(t.db, {}, at(20_001));
    await deadLetterRow('00000000-0000-4000-8000-000000000802', at(80_000));
    await dispatchAlarms(t.db, {}, at(80_000));
    await dispatchAlarms(t.db, {}, at(80_001));
    expect(hook.received.filter((r) => r.json.type === 'dead_letter').map((r) => r.json.runId)).toEqual([
      '00000000-0000-4000-8000-000000000801',
      '00000000-0000-4000-8000-000000000802',
    ]);
  });

  it('send test alarm: operator only, never collapsed, delivered on the next pass', async () => {
    const viewer: Actor = { kind: 'user', id: 'v', name: 'viewer@tickflow.test', role: 'viewer' };
    const operator: Actor = { kind: 'user', id: 'o', name: 'operator@tickflow.test', role: 'operator' };
    await expect(sendTestAlarm(t.db, { channel: { type: 'webhook', target: hook.url } }, viewer, T0)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(sendTestAlarm(t.db, { channel: { type: 'webhook', target: 'not a url' } }, operator, T0)).rejects.toMatchObject({ code: 'validation' });
    // matches the http(s) pattern but is no URL the delivery could parse
    await expect(sendTestAlarm(t.db, { channel: { type: 'webhook', target: 'http://[zz' } }, operator, T0)).rejects.toMatchObject({ code: 'validation', fields: { 'channel.target': 'Webhook target is not a valid URL' } });
    // a target the delivery could never send: fetch refuses a URL with credentials, and one email address only
    for (const target of ['http://alice:secret@127.0.0.1/hook', 'https://alice@example.com/hook', 'https://:secret@example.com/hook']) {
      await expect(sendTestAlarm(t.db, { channel: { type: 'webhook', target } }, operator, T0)).rejects.toMatchObject({ code: 'validation', fields: { 'channel.target': expect.stringMatching(/must not carry a user name or password/) } });
    }
    for (const target of ['a@b.com,c', 'a@b.com, c@d.com', 'a@b', 'a@@b.com']) {
      await expect(sendTestAlarm(t.db, { channel: { type: 'email', target } }, operator, T0), target).rejects.toMatchObject({ code: 'validation', fields: { 'channel.target': 'Email target must be one email address' } });
    }
    await expect(createJob(t.db, { key: `alarm.creds.${++seq}`, name: 'creds', schedule: { kind: 'manual' }, handler: 'builtin.noop', alarms: { onFailure: true, channels: [{ type: 'webhook', target: 'http://u:p@127.0.0.1/x' }] } }, SYSTEM_ACTOR, T0))
      .rejects.toMatchObject({ code: 'validation', fields: { 'alarms.channels.0.target': expect.stringMatching(/user name or password/) } });
    const a = await sendTestAlarm(t.db, { channel: { type: 'webhook', target: hook.url } }, operator, T0);
    const b = await sendTestAlarm(t.db, { channel: { type: 'webhook', target: hook.url } }, operator, at(1));
    expect(a.id).not.toBe(b.id);
    await dispatchAlarms(t.db, {}, at(2));
    expect(hook.received).toHaveLength(2);
    expect(hook.received[0].json.content).toMatchObject({ test: true, requestedBy: 'operator@tickflow.test' });
    expect(hook.received[0].validSignature).toBe(true);

    const listed = await listAlarms(t.db, { status: 'sent' });
    expect(listed.items).toHaveLength(2);
    expect(listed.items[0].message).toContain('test alarm');
    // every role reads alarms: the webhook URL's path (often its credential) is not shown, only its origin
    expect(listed.items[0].target).toBe(`${new URL(hook.url).origin}/…`);
    expect(JSON.stringify(listed)).not.toContain(hook.url);
    expect((await listAlarms(t.db, { status: 'failed' })).items).toHaveLength(0);
  });
});

describe('through the engine', () => {
  it('a job reaching dead letter alarms on its configured webhook (engine row -> fan-out)', async () => {
    const job = await createJob(
      t.db,
      {
        key: `alarm.dl.${++seq}`,
        name: 'dead letter',
        schedule: { kind: 'manual' },
        handler: 'alarm.fail',
        policy: { deadLetterAfter: 2, maxRetries: 0 },
        alarms: { onDeadLetter: true, channels: [{ type: 'webhook', target: hook.url }] },
      },
      SYSTEM_ACTOR,
      T0,
    );
    for (let i = 0; i < 2; i++) {
      const now = at(i * 1000);
      await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: now }, now);
      const [task] = await claimTasks(t.db, { nodeId: 'n1', handlers: ['alarm.fail'], group: 'default', labels: {}, limit: 1, leaseSeconds: 60 }, at(i * 1000 + 10));
      await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: 'n1', outcome: 'failed', error: 'boom' }, at(i * 1000 + 20));
    }
    expect((await t.db.job.findUniqueOrThrow({ where: { id: job.id } })).status).toBe('dead_letter');
    const r1 = await dispatchAlarms(t.db, {}, at(5000));
    expect(r1.fannedOut).toBe(1);
    await dispatchAlarms(t.db, {}, at(5001));
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0].validSignature).toBe(true);
    expect(hook.received[0].json).toMatchObject({ type: 'dead_letter', jobId: job.id, level: 'error' });
    expect(hook.received[0].json.message).toMatch(/dead letter after 2 consecutive failed runs/);
  });

  it('a worker missing heartbeats alarms on the global node-offline channels', async () => {
    process.env.TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK = hook.url;
    await t.pool.query(`INSERT INTO worker_nodes (node_id, name, host, pid, last_heartbeat_at) VALUES ('gone-1', 'worker-gone', 'h', 1, $1)`, [T0]);
    const off = await markOfflineNodes(t.db, { offlineAfterSeconds: 30 }, at(60_000));
    expect(off.map((o) => o.nodeId)).toEqual(['gone-1']);
    await dispatchAlarms(t.db, {}, at(60_000));
    await dispatchAlarms(t.db, {}, at(60_001));
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0].json).toMatchObject({ type: 'node_offline', level: 'warning' });
    expect(hook.received[0].json.content.nodeId).toBe('gone-1');
    // the heartbeat's instant in ISO-8601 UTC, in the message and the content alike, not PostgreSQL's text
    // ('2026-12-05 01:05:24.645+00', and '…+00:00' in jsonb)
    const last = new Date(T0.getTime() + 645).toISOString();
    await t.pool.query(`INSERT INTO worker_nodes (node_id, name, host, pid, last_heartbeat_at) VALUES ('gone-2', 'worker-far', 'h', 1, $1)`, [last]);
    expect((await markOfflineNodes(t.db, { offlineAfterSeconds: 30 }, at(60_000))).map((o) => o.nodeId)).toEqual(['gone-2']);
    const alarm = await t.db.alarm.findFirstOrThrow({ where: { type: 'node_offline', target: 'gone-2' } });
    expect(alarm.content).toMatchObject({ lastHeartbeatAt: last, message: `worker node worker-far (gone-2) missed heartbeats since ${last}` });
  });
});

describe('run alarms from the finished-run scan', () => {
  it('raises failure/success alarms exactly once per finished run, after the lag, and delivers them', async () => {
    const { runOnce } = await import('../../worker/alarm-dispatcher.ts');
    const { scanFinishedRuns, RUN_SCAN_CURSOR_KEY } = await import('../../lib/alarms/scan-finished-runs.ts');
    // start the cursor just before this test's runs (the first pass ever would look back one hour)
    await t.db.setting.deleteMany({ where: { key: RUN_SCAN_CURSOR_KEY } });
    const base = new Date('2026-05-01T08:00:00.000Z');
    const B = (ms: number) => new Date(base.getTime() + ms);
    await t.db.setting.create({ data: { key: RUN_SCAN_CURSOR_KEY, value: { finishedAt: base.toISOString(), id: '00000000-0000-0000-0000-000000000000' } } });

    const job = await createJob(
      t.db,
      { key: `alarm.scan.${++seq}`, name: 'scan', schedule: { kind: 'manual' }, handler: 'alarm.scan', policy: { blockStrategy: 'serial_execution' }, alarms: { onFailure: true, onSuccess: true, channels: [{ type: 'webhook', target: hook.url }] } },
      SYSTEM_ACTOR,
      base,
    );
    const quiet = await createJob(t.db, { key: `alarm.quiet.${++seq}`, name: 'quiet', schedule: { kind: 'manual' }, handler: 'alarm.scan' }, SYSTEM_ACTOR, base);
    const finish = async (jobId: string, outcome: 'success' | 'failed', at: Date) => {
      const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: at }, at);
      const [task] = await claimTasks(t.db, { nodeId: 'scan', handlers: ['alarm.scan'], group: 'default', labels: {}, limit: 1, leaseSeconds: 60 }, at);
      await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: 'scan', outcome, error: outcome === 'failed' ? 'kaput' : null }, new Date(at.getTime() + 5));
      return run.id;
    };
    const failedRun = await finish(job.id, 'failed', B(1000));
    await finish(quiet.id, 'failed', B(2000)); // no alarm config: nothing
    const okRun = await finish(job.id, 'success', B(3000));

    // within the lag (45 s) nothing is raised yet
    expect((await scanFinishedRuns(t.db, {}, B(30_000))).scanned).toBe(0);
    const pass = await runOnce(t.db, B(60_000));
    expect(pass.runs).toMatchObject({ scanned: 3, raised: 2, ran: true });
    expect(pass.sent).toBe(2);
    expect(hook.received.map((r) => [r.json.type, r.json.runId])).toEqual(
      expect.arrayContaining([
        ['failure', failedRun],
        ['success', okRun],
      ]),
    );
    expect(hook.received.find((r) => r.json.type === 'failure')!.json.message).toContain('kaput');
    // the cursor moved: a second pass raises nothing again
    const again = await runOnce(t.db, B(120_000));
    expect(again.runs).toMatchObject({ scanned: 0, raised: 0 });
    expect(await t.db.alarm.count({ where: { jobId: job.id } })).toBe(2);
  });

  it('two dispatchers scanning at once consider each run once', async () => {
    const { scanFinishedRuns, RUN_SCAN_CURSOR_KEY } = await import('../../lib/alarms/scan-finished-runs.ts');
    const base = new Date('2026-06-01T08:00:00.000Z');
    await t.db.setting.deleteMany({ where: { key: RUN_SCAN_CURSOR_KEY } });
    await t.db.setting.create({ data: { key: RUN_SCAN_CURSOR_KEY, value: { finishedAt: base.toISOString(), id: '00000000-0000-0000-0000-000000000000' } } });
    const job = await createJob(t.db, { key: `alarm.scan2.${++seq}`, name: 'scan2', schedule: { kind: 'manual' }, handler: 'alarm.scan2', policy: { blockStrategy: 'serial_execution' }, alarms: { onFailure: true, channels: [{ type: 'log', target: '' }] } }, SYSTEM_ACTOR, base);
    process.env.TICKFLOW_ALARM_COLLAPSE_SECONDS = '0'; // one row per run, to count them
    for (let i = 0; i < 5; i++) {
      const at = new Date(base.getTime() + (i + 1) * 1000);
      await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: at }, at);
      const [task] = await claimTasks(t.db, { nodeId: 's2', handlers: ['alarm.scan2'], group: 'default', labels: {}, limit: 1, leaseSeconds: 60 }, at);
      await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: 's2', outcome: 'failed' }, at);
    }
    const later = new Date(base.getTime() + 3_600_000);
    const [a, b] = await Promise.all([scanFinishedRuns(t.db, { limit: 2 }, later), scanFinishedRuns(t.db, { limit: 2 }, later)]);
    let total = a.raised + b.raised;
    for (let i = 0; i < 5; i++) total += (await scanFinishedRuns(t.db, { limit: 2 }, later)).raised;
    expect(total).toBe(5);
    expect(await t.db.alarm.count({ where: { jobId: job.id } })).toBe(5);
  });

  it('follows the alarm settings in force when the run ended, not those at the scan', async () => {
    const { scanFinishedRuns, RUN_SCAN_CURSOR_KEY } = await import('../../lib/alarms/scan-finished-runs.ts');
    const { updateJob } = await import('../../lib/jobs/update-job.ts');
    const base = new Date('2026-07-01T08:00:00.000Z');
    const B = (ms: number) => new Date(base.getTime() + ms);
    await t.db.setting.deleteMany({ where: { key: RUN_SCAN_CURSOR_KEY } });
    await t.db.setting.create({ data: { key: RUN_SCAN_CURSOR_KEY, value: { finishedAt: base.toISOString(), id: '00000000-0000-0000-0000-000000000000' } } });
    process.env.TICKFLOW_ALARM_COLLAPSE_SECONDS = '0'; // one row per run, to tell them apart
    const fail = async (jobId: string, at: Date) => {
      const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: at }, at);
      const [task] = await claimTasks(t.db, { nodeId: 's3', handlers: ['alarm.scan3'], group: 'default', labels: {}, limit: 1, leaseSeconds: 60 }, at);
      await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: 's3', outcome: 'failed', error: 'kaput' }, at);
      return run.id;
    };
    const log = [{ type: 'log' as const, target: '' }];
    // Switched on after a failure: that failure is not reported, the next one is.
    const late = await createJob(t.db, { key: `alarm.late.${++seq}`, name: 'late', schedule: { kind: 'manual' }, handler: 'alarm.scan3' }, SYSTEM_ACTOR, base);
    const beforeOn = await fail(late.id, B(1000));
    await updateJob(t.db, late.id, { expectedVersion: 1, alarms: { onFailure: true, channels: log } }, SYSTEM_ACTOR, B(2000));
    const afterOn = await fail(late.id, B(3000));
    // Switched off right after a failure, before the scan: that failure is still reported, the next one is not.
    const early = await createJob(t.db, { key: `alarm.early.${++seq}`, name: 'early', schedule: { kind: 'manual' }, handler: 'alarm.scan3', alarms: { onFailure: true, channels: log } }, SYSTEM_ACTOR, base);
    const beforeOff = await fail(early.id, B(4000));
    await updateJob(t.db, early.id, { expectedVersion: 1, alarms: { onFailure: false, channels: log } }, SYSTEM_ACTOR, B(5000));
    const afterOff = await fail(early.id, B(6000));

    expect(await scanFinishedRuns(t.db, {}, B(3_600_000))).toMatchObject({ scanned: 4, raised: 2 });
    const alarmed = (await t.db.alarm.findMany({ where: { jobId: { in: [late.id, early.id] } }, select: { runId: true } })).map((a) => a.runId);
    expect(alarmed.sort()).toEqual([afterOn, beforeOff].sort());
    expect(alarmed).not.toContain(beforeOn);
    expect(alarmed).not.toContain(afterOff);
  });
});
