/**
 * REST GET /api/v1/stats/daily and /stats/overview, GET /alarms, POST /alarms/test: route
 * handlers called directly with Request objects (DATABASE_URL = this file's database).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/db.ts';
import { userToken } from '../helpers/rest.ts';
import * as daily from '../../app/api/v1/stats/daily/route.ts';
import * as overview from '../../app/api/v1/stats/overview/route.ts';
import * as alarms from '../../app/api/v1/alarms/route.ts';
import * as testAlarm from '../../app/api/v1/alarms/test/route.ts';

type Handler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
async function call(handler: Handler, method: string, path: string, token: string | null, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await handler(new Request(`http://localhost${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }), { params: Promise.resolve({}) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const t = useTestDatabase();
let viewer: string;
let operator: string;

beforeAll(async () => {
  process.env.DATABASE_URL = t.url;
  viewer = await userToken(t.db, 'viewer', 'view');
  operator = await userToken(t.db, 'operator', 'ops');
  // buckets: [0,10) x2, [100,250) x1, [1000,2500) x1  (13 buckets, DURATION_BUCKET_BOUNDS_MS)
  await t.pool.query(
    `INSERT INTO handler_stats_daily (stat_date, handler, success, failure, timeout, dead_letter, total_duration_ms, max_duration_ms,
                                      total_lateness_ms, lateness_count, duration_buckets)
     VALUES ('2026-03-01', 'http', 3, 1, 0, 1, 2215, 2000, 900, 3, '{2,0,0,1,0,0,1,0,0,0,0,0,0}'),
            ('2026-03-02', 'http', 1, 0, 1, 0, 700, 400, 0, 0, '{0,0,0,0,1,0,0,0,0,0,0,0,0}'),
            ('2026-03-02', 'builtin.echo', 10, 0, 0, 0, 50, 9, 100, 10, '{10,0,0,0,0,0,0,0,0,0,0,0,0}')`,
  );
});
afterAll(async () => {
  const { getDb } = await import('../../lib/db.ts');
  await getDb().$disconnect();
});

describe('GET /api/v1/stats/daily', () => {
  it('returns the aggregate rows in the documented shape', async () => {
    const r = await call(daily.GET, 'GET', '/api/v1/stats/daily?from=2026-03-01&to=2026-03-02', viewer);
    expect(r.status).toBe(200);
    expect(r.json.days).toHaveLength(3);
    expect(r.json.days[0]).toEqual({
      date: '2026-03-01',
      handler: 'http',
      success: 3,
      failure: 1,
      timeout: 0,
      deadLetter: 1,
      // p50: rank 2 of 4 is the 2nd sample of bucket [0,10): 0 + 2/2 * 10
      p50Ms: 10,
      // p95: rank 3.8 falls in bucket [1000,2500) (1 sample): 1000 + 0.8 * 1500 = 2200, clamped to max 2000
      p95Ms: 2000,
      avgLatenessMs: 300,
      avgDurationMs: 554,
      maxDurationMs: 2000,
    });
    const http = r.json.handlers.find((h: { handler: string }) => h.handler === 'http');
    expect(http).toMatchObject({ success: 4, failure: 1, timeout: 1, deadLetter: 1, attempts: 6 });
    expect(http.successRate).toBeCloseTo(4 / 6);
  });

  it('filters by handler (one or a comma list)', async () => {
    const one = await call(daily.GET, 'GET', '/api/v1/stats/daily?from=2026-03-01&to=2026-03-31&handler=builtin.echo', viewer);
    expect(one.json.days.map((d: { handler: string }) => d.handler)).toEqual(['builtin.echo']);
    const two = await call(daily.GET, 'GET', '/api/v1/stats/daily?from=2026-03-01&to=2026-03-31&handler=builtin.echo,http', viewer);
    expect(two.json.days).toHaveLength(3);
  });

  it('400 names the field', async () => {
    const cases: [string, string][] = [
      ['from=2026-13-01&to=2026-03-02', 'from'],
      ['from=2026-02-30&to=2026-03-02', 'from'],
      ['from=2026-03-01&to=tomorrow', 'to'],
      ['to=2026-03-02', 'from'],
      ['from=2026-03-05&to=2026-03-01', 'to'],
      ['from=2025-01-01&to=2026-03-01', 'from'],
    ];
    for (const [q, field] of cases) {
      const r = await call(daily.GET, 'GET', `/api/v1/stats/daily?${q}`, viewer);
      expect(r.status, q).toBe(400);
      expect(Object.keys(r.json.error.fields), q).toContain(field);
    }
    // 366 days inclusive is allowed
    expect((await call(daily.GET, 'GET', '/api/v1/stats/daily?from=2025-03-02&to=2026-03-02', viewer)).status).toBe(200);
  });

  it('needs credentials', async () => {
    expect((await call(daily.GET, 'GET', '/api/v1/stats/daily?from=2026-03-01&to=2026-03-02', null)).status).toBe(401);
  });
});

describe('overview and alarms over REST', () => {
  it('GET /stats/overview', async () => {
    const r = await call(overview.GET, 'GET', '/api/v1/stats/overview', viewer);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ jobs: { active: 0, total: 0 }, runs24h: { total: 0 }, successRate24h: null, workers: { online: 0 } });
  });

  it('POST /alarms/test is operator-only; GET /alarms lists and filters', async () => {
    expect((await call(testAlarm.POST, 'POST', '/api/v1/alarms/test', viewer, { channel: { type: 'log', target: '' } })).status).toBe(403);
    const bad = await call(testAlarm.POST, 'POST', '/api/v1/alarms/test', operator, { channel: { type: 'email', target: 'nope' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.error.fields)).toContain('channel.target');
    const ok = await call(testAlarm.POST, 'POST', '/api/v1/alarms/test', operator, { channel: { type: 'log', target: '' } });
    expect(ok.status).toBe(201);
    const list = await call(alarms.GET, 'GET', '/api/v1/alarms?status=pending', viewer);
    expect(list.status).toBe(200);
    expect(list.json.items).toHaveLength(1);
    expect(list.json.items[0]).toMatchObject({ id: ok.json.id, channel: 'log', status: 'pending', type: 'failure' });
    expect((await call(alarms.GET, 'GET', '/api/v1/alarms?status=sent', viewer)).json.items).toHaveLength(0);
    const badFilter = await call(alarms.GET, 'GET', '/api/v1/alarms?type=bogus', viewer);
    expect(badFilter.status).toBe(400);
    expect(Object.keys(badFilter.json.error.fields)).toContain('type.0');
  });

  it('a filter by one of a set of values answers as on every list: empty filters nothing, several are a list, a bad one is named at its index', async () => {
    const ok = await call(testAlarm.POST, 'POST', '/api/v1/alarms/test', operator, { channel: { type: 'log', target: '' } });
    expect(ok.status).toBe(201);
    const ids = async (qs: string) => {
      const r = await call(alarms.GET, 'GET', `/api/v1/alarms?${qs}`, viewer);
      expect(r.status, `${qs}: ${JSON.stringify(r.json)}`).toBe(200);
      return (r.json.items as { id: string }[]).map((a) => a.id);
    };
    const all = await ids('');
    expect(all).toContain(ok.json.id);
    // as GET /runs?status= and GET /jobs?status= (lib/api/schemas.ts multi): an empty value is no filter
    expect(await ids('status=')).toEqual(all);
    expect(await ids('type=')).toEqual(all);
    expect(await ids('status=sent,pending')).toContain(ok.json.id);
    expect(await ids('status=sent&status=pending')).toContain(ok.json.id);
    expect(await ids('type=timeout,failure')).toContain(ok.json.id);
    expect(await ids('status=sent')).not.toContain(ok.json.id);
    for (const [qs, field, message] of [
      ['status=pendng', 'status.0', 'Must be pending, sent, failed or silenced'],
      ['type=failure,bogus', 'type.1', 'Must be failure, timeout, dead_letter, success or node_offline'],
    ]) {
      const r = await call(alarms.GET, 'GET', `/api/v1/alarms?${qs}`, viewer);
      expect([r.status, r.json.error.fields]).toEqual([400, { [field!]: message }]);
    }
  });
});
