/**
 * Test alarms are rate-limited (lib/alarms/test-alarm-limit.ts): so many per principal and per
 * target in a sliding window, counted from the alarms rows, a 429 `rate_limited` with Retry-After
 * on the REST door, nothing queued past the limit, and sends at once cannot overshoot it.
 * Injected clock for the window.
 */
import { describe, expect, it } from 'vitest';
import * as alarmTest from '../../app/api/v1/alarms/test/route.ts';
import type { Actor } from '../../lib/auth/actor.ts';
import { sendTestAlarm } from '../../lib/alarms/send-test-alarm.ts';
import { TEST_ALARM_WINDOW_MS, TEST_ALARMS_PER_PRINCIPAL, TEST_ALARMS_PER_TARGET } from '../../lib/alarms/test-alarm-limit.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { call, useRestFixture } from '../helpers/rest.ts';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const operator = (id: string): Actor => ({ kind: 'user', id, name: `${id}@tickflow.test`, role: 'operator' });
/** A webhook to a receiver of its own (the per-target limit counts an origin). */
const hook = (n: number) => ({ channel: { type: 'webhook', target: `https://h${n}.example.com/hook` } });

describe('test alarm rate limit', () => {
  let t: TestDatabase;
  let ops: string;
  useRestFixture([], (f) => ({ t, operator: ops } = f));

  it('REST: past the per-principal limit a test send is a 429 rate_limited with Retry-After, and nothing is queued', async () => {
    for (let i = 0; i < TEST_ALARMS_PER_PRINCIPAL; i++) {
      const r = await call(alarmTest.POST, 'POST', '/api/v1/alarms/test', { token: ops, body: hook(100 + i) });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
    }
    const before = await t.db.alarm.count();
    const r = await call(alarmTest.POST, 'POST', '/api/v1/alarms/test', { token: ops, body: hook(199) });
    expect(r.status).toBe(429);
    expect(r.json.error.code).toBe('rate_limited');
    expect(r.json.error.message).toMatch(/test alarms in the last 10 minutes/);
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(TEST_ALARM_WINDOW_MS / 1000);
    expect(await t.db.alarm.count()).toBe(before);
  });

  it('per principal, in a sliding window: the oldest send leaving the window makes room for one', async () => {
    const a = operator('slide');
    for (let i = 0; i < TEST_ALARMS_PER_PRINCIPAL; i++) await sendTestAlarm(t.db, hook(200 + i), a, at(i * 1000));
    const refused = await sendTestAlarm(t.db, hook(299), a, at(60_000)).catch((e) => e);
    expect(refused).toMatchObject({ code: 'rate_limited', detail: { retryAfterSeconds: (TEST_ALARM_WINDOW_MS - 60_000) / 1000 } });
    // another operator is not held back by it
    await sendTestAlarm(t.db, hook(298), operator('other'), at(60_000));
    // the first send leaves the window at T0 + window
    await expect(sendTestAlarm(t.db, hook(299), a, at(TEST_ALARM_WINDOW_MS - 1))).rejects.toMatchObject({ code: 'rate_limited', detail: { retryAfterSeconds: 1 } });
    await sendTestAlarm(t.db, hook(299), a, at(TEST_ALARM_WINDOW_MS));
    await expect(sendTestAlarm(t.db, hook(299), a, at(TEST_ALARM_WINDOW_MS + 1))).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('per target, whoever sends: several operators together cannot flood one receiver', async () => {
    const start = at(3 * TEST_ALARM_WINDOW_MS);
    const mailbox = { channel: { type: 'email', target: 'victim@example.com' } };
    for (let i = 0; i < TEST_ALARMS_PER_TARGET; i++) await sendTestAlarm(t.db, mailbox, operator(`flood-${i}`), start);
    await expect(sendTestAlarm(t.db, mailbox, operator('flood-x'), start)).rejects.toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/This target got/) });
    // another spelling of the same mailbox is the same receiver
    await expect(sendTestAlarm(t.db, { channel: { type: 'email', target: 'Victim@Example.com' } }, operator('flood-y'), start)).rejects.toMatchObject({ code: 'rate_limited' });
    // the same operator may still test another target
    await sendTestAlarm(t.db, { channel: { type: 'email', target: 'ops@example.com' } }, operator('flood-x'), start);
    // a webhook receiver is its origin: another path or query does not buy more sends
    for (let i = 0; i < TEST_ALARMS_PER_TARGET; i++) await sendTestAlarm(t.db, { channel: { type: 'webhook', target: `https://victim.example/hook?n=${i}` } }, operator(`hook-${i}`), start);
    await expect(sendTestAlarm(t.db, { channel: { type: 'webhook', target: 'https://victim.example:443/other' } }, operator('hook-x'), start)).rejects.toMatchObject({ code: 'rate_limited' });
    await sendTestAlarm(t.db, { channel: { type: 'webhook', target: 'https://victim.example:8443/other' } }, operator('hook-x'), start);
  });

  it('sends at once cannot overshoot the limit', async () => {
    const a = operator('burst');
    const start = at(6 * TEST_ALARM_WINDOW_MS);
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => sendTestAlarm(t.db, hook(400 + i), a, start)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(TEST_ALARMS_PER_PRINCIPAL);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(Array(12 - TEST_ALARMS_PER_PRINCIPAL).fill('rate_limited'));
    expect(await t.db.alarm.count({ where: { content: { path: ['requestedByKey'], equals: 'user:burst' } } })).toBe(TEST_ALARMS_PER_PRINCIPAL);
  });
});
