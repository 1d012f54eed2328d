/**
 * A URL Tickflow will call is refused on save unless it is written as it will be called
 * (lib/net/outbound-url.ts): alarm webhooks (test alarms, job alarm channels) and `http` step
 * URLs, through the REST door, as a 400 naming the field, and nothing is written.
 */
import { describe, expect, it } from 'vitest';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as alarmTest from '../../app/api/v1/alarms/test/route.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { call, useRestFixture } from '../helpers/rest.ts';

/** Each is refused for its own reason; `http:///x` is what the URL parser reads as `http://x/`. */
const BAD_URLS = [
  'http:///x',
  'https:///hook',
  'http:x',
  'http://@example.com/',
  'http://u:p@example.com/',
  'ftp://example.com/',
  'http://exa mple.com/',
  'http://example.com/\thook',
  'http://example.com\\@10.0.0.1/',
  'http://аpple.com/',
  'http://ex%41mple.com/',
  'http://0x7f.1/',
  'http://example.com:0/',
  'http://example.com:65536/',
];

describe('outbound URLs on save', () => {
  let t: TestDatabase;
  let operator: string;
  useRestFixture([], (f) => ({ t, operator } = f));

  it('a test alarm to a malformed webhook URL is a 400 naming channel.target, nothing queued', async () => {
    for (const target of BAD_URLS) {
      const r = await call(alarmTest.POST, 'POST', '/api/v1/alarms/test', { token: operator, body: { channel: { type: 'webhook', target } } });
      expect(r.status, target).toBe(400);
      expect(Object.keys(r.json.error.fields), target).toEqual(['channel.target']);
    }
    expect(await t.db.alarm.count()).toBe(0);
  });

  it('a job whose alarm webhook or http step URL is malformed is a 400 naming the field, no job written', async () => {
    let n = 0;
    for (const url of BAD_URLS) {
      const alarm = await call(jobs.POST, 'POST', '/api/v1/jobs', {
        token: operator,
        body: { key: `bad.hook.${++n}`, name: 'x', schedule: { kind: 'manual' }, handler: 'builtin.noop', alarms: { onFailure: true, channels: [{ type: 'webhook', target: url }] } },
      });
      expect(alarm.status, url).toBe(400);
      expect(Object.keys(alarm.json.error.fields), url).toEqual(['alarms.channels.0.target']);
      const step = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: `bad.url.${++n}`, name: 'x', schedule: { kind: 'manual' }, handler: 'http', payload: { url } } });
      expect(step.status, url).toBe(400);
      expect(Object.keys(step.json.error.fields), url).toEqual(['payload.url']);
    }
    expect(await t.db.job.count({ where: { key: { startsWith: 'bad.' } } })).toBe(0);
    const ok = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'good.url', name: 'x', schedule: { kind: 'manual' }, handler: 'http', payload: { url: 'https://hooks.example.com:8443/a?b=c' } } });
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
  });
  it('a log channel takes no target: any text there is a 400 naming the field, not stored and shown to every role', async () => {
    for (const target of ['x', '\u202eevil', ' junk ']) {
      const r = await call(alarmTest.POST, 'POST', '/api/v1/alarms/test', { token: operator, body: { channel: { type: 'log', target } } });
      expect(r.status, target).toBe(400);
      expect(r.json.error.fields).toEqual({ 'channel.target': expect.stringMatching(/log channel has no target/) });
      const job = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'log.target', name: 'x', schedule: { kind: 'manual' }, handler: 'builtin.noop', alarms: { onFailure: true, channels: [{ type: 'log', target }] } } });
      expect(job.status, target).toBe(400);
      expect(Object.keys(job.json.error.fields)).toEqual(['alarms.channels.0.target']);
    }
    expect(await t.db.alarm.count()).toBe(0);
    expect((await call(alarmTest.POST, 'POST', '/api/v1/alarms/test', { token: operator, body: { channel: { type: 'log', target: '' } } })).status).toBe(201);
    expect((await call(alarmTest.POST, 'POST', '/api/v1/alarms/test', { token: operator, body: { channel: { type: 'log' } } })).status).toBe(201);
  });
});
