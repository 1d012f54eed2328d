/**
 * The REST request rules of README "Input rules" that hold for every route (app/_lib/rest.ts): one
 * spelling of a number in a path or query, the order in which a request's checks answer, what an
 * Idempotency-Key replay counts as the same request, and a body's byte order mark.
 */
import { describe, expect, it } from 'vitest';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as version from '../../app/api/v1/jobs/[id]/versions/[version]/route.ts';
import * as versions from '../../app/api/v1/jobs/[id]/versions/route.ts';
import * as diff from '../../app/api/v1/jobs/[id]/diff/route.ts';
import * as pause from '../../app/api/v1/jobs/[id]/pause/route.ts';
import * as runs from '../../app/api/v1/runs/route.ts';
import * as alarms from '../../app/api/v1/alarms/route.ts';
import * as logSearch from '../../app/api/v1/logs/search/route.ts';
import * as series from '../../app/api/v1/stats/series/route.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { call, useRestFixture } from '../helpers/rest.ts';

const MISSING = '7c1e0d7e-1111-4222-8333-444455556666';

describe('REST request rules', () => {
  let t: TestDatabase;
  let operator: string;
  let viewer: string;
  useRestFixture([], (f) => ({ t, operator, viewer } = f));

  const createJob = async (key: string) => {
    const c = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key, name: key, schedule: { kind: 'manual' }, handler: 'builtin.noop' } });
    expect(c.status, JSON.stringify(c.json)).toBe(201);
    return c.json.id as string;
  };

  it('a number in a path or query has one spelling: `01`, `+1` and ` 1` are a 400 naming the field, as `1.0` is', async () => {
    const id = await createJob('rules.version');
    const get = (v: string) => call(version.GET, 'GET', `/api/v1/jobs/${id}/versions/${encodeURIComponent(v)}`, { token: viewer, params: { id, version: v } });
    expect((await get('1')).status).toBe(200);
    for (const v of ['01', '+1', ' 1', '1.0', '1e0']) {
      const r = await get(v);
      expect([r.status, Object.keys(r.json.error.fields ?? {})], v).toEqual([400, ['version']]);
    }
    expect((await get('01')).json.error.fields.version).toBe('Must be written 1: plain decimal digits, without a sign, spaces or leading zeros');
    // the job's 404 still comes first
    expect((await call(version.GET, 'GET', `/api/v1/jobs/${MISSING}/versions/01`, { token: viewer, params: { id: MISSING, version: '01' } })).status).toBe(404);
    const d = await call(diff.GET, 'GET', `/api/v1/jobs/${id}/diff?from=1&to=01`, { token: viewer, params: { id } });
    expect([d.status, Object.keys(d.json.error.fields)]).toEqual([400, ['to']]);
    const l = await call(versions.GET, 'GET', `/api/v1/jobs/${id}/versions?limit=+5`, { token: viewer, params: { id } });
    expect([l.status, Object.keys(l.json.error.fields)]).toEqual([400, ['limit']]);
    expect(t).toBeDefined();
  });

  describe('order of checks (app/_lib/rest.ts): credentials, the body\'s framing, the target\'s 404, the Idempotency-Key, then the fields', () => {
    const body = (key: string) => ({ key, name: key, schedule: { kind: 'manual' }, handler: 'builtin.noop' });
    const post = (idem: string, opts: { query?: string; body?: unknown; rawBody?: string } = {}) =>
      call(jobs.POST, 'POST', `/api/v1/jobs${opts.query ?? ''}`, {
        token: operator,
        ...(opts.rawBody !== undefined ? { rawBody: opts.rawBody } : { body: opts.body }),
        headers: { 'idempotency-key': idem, 'content-type': 'application/json' },
      });

    it('a key reused for another request is its 422 whatever that request\'s query or fields hold', async () => {
      expect((await post('order-1', { body: body('rules.order.a') })).status).toBe(201);
      for (const [what, r] of [
        ['an unknown query parameter', await post('order-1', { query: '?bogus=1', body: body('rules.order.b') })],
        ['a parameter given twice', await post('order-1', { query: '?q=a&q=b', body: body('rules.order.a') })],
        ['a bad field', await post('order-1', { body: { ...body('rules.order.c'), schedule: { kind: 'nope' } } })],
        ['a key written twice', await post('order-1', { rawBody: JSON.stringify(body('rules.order.a')).replace('{', '{"key":"other",') })],
        ['null', await post('order-1', { rawBody: 'null' })],
      ] as const) {
        expect([r.status, r.json.error.code], what).toEqual([422, 'idempotency_mismatch']);
      }
      // the same request, its keys in another order and spaced out, is a replay
      const reordered = JSON.stringify(Object.fromEntries(Object.entries(body('rules.order.a')).reverse()), null, 2);
      const again = await post('order-1', { rawBody: reordered });
      expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
      expect(await t.db.job.count({ where: { key: { startsWith: 'rules.order.' } } })).toBe(1);
    });

    it('a fresh key on a request refused for its fields stores nothing: the corrected request under it runs', async () => {
      const r = await post('order-2', { query: '?bogus=1', body: body('rules.order.d') });
      expect([r.status, r.json.error.fields]).toEqual([400, { bogus: 'Unknown query parameter' }]);
      expect((await post('order-2', { body: body('rules.order.d') })).status).toBe(201);
    });

    it('the body\'s framing comes before the key: a body that is not JSON is a 400 even under a used key', async () => {
      expect((await post('order-3', { body: body('rules.order.e') })).status).toBe(201);
      const r = await post('order-3', { rawBody: '{"key":' });
      expect([r.status, r.json.error.fields]).toEqual([400, { _body: 'Invalid JSON' }]);
    });

    it('the target\'s 404 comes before the key: a key reused on a job that does not exist is its 404', async () => {
      const id = await createJob('rules.order.target');
      const headers = { 'idempotency-key': 'order-4' };
      expect((await call(pause.POST, 'POST', `/api/v1/jobs/${id}/pause`, { token: operator, params: { id }, body: {}, headers })).status).toBe(200);
      const r = await call(pause.POST, 'POST', `/api/v1/jobs/${MISSING}/pause`, { token: operator, params: { id: MISSING }, body: {}, headers });
      expect([r.status, r.json.error.code]).toEqual([404, 'not_found']);
      // and on the job that exists, another request under the key is the 422
      const other = await call(pause.POST, 'POST', `/api/v1/jobs/${id}/pause`, { token: operator, params: { id }, body: { reason: 'x' }, headers });
      expect([other.status, other.json.error.code]).toEqual([422, 'idempotency_mismatch']);
    });
  });

  it('a query filter naming a job that does not exist matches nothing on every list and view (200), and a job key in its place is a 400 at jobId', async () => {
    const lists: [string, (url: string) => Promise<{ status: number; json: any }>, (json: any) => number][] = [
      ['/runs', (u) => call(runs.GET, 'GET', u, { token: viewer }), (j) => j.items.length],
      ['/alarms', (u) => call(alarms.GET, 'GET', u, { token: viewer }), (j) => j.items.length],
      ['/logs/search', (u) => call(logSearch.GET, 'GET', `${u}&q=abc`, { token: viewer }), (j) => j.lines.length],
      ['/stats/series', (u) => call(series.GET, 'GET', `${u}&from=2026-01-01&to=2026-01-02`, { token: viewer }), (j) => j.byHandler.length + j.totals.length],
    ];
    for (const [path, get, count] of lists) {
      const r = await get(`/api/v1${path}?jobId=${MISSING}`);
      expect([r.status, count(r.json)], path).toEqual([200, 0]);
      const key = await get(`/api/v1${path}?jobId=rules.some.key`);
      expect([key.status, Object.keys(key.json.error.fields)], path).toEqual([400, ['jobId']]);
    }
  });

  it('one leading UTF-8 byte order mark is ignored (RFC 8259 §8.1): the same request as the body without it; a second one is a 400', async () => {
    const text = JSON.stringify({ key: 'rules.bom', name: 'bom', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    const headers = { 'content-type': 'application/json', 'idempotency-key': 'bom-1' };
    const first = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody: bom, headers });
    expect([first.status, first.json.key]).toEqual([201, 'rules.bom']);
    const again = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody: text, headers });
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    const twice = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody: new Uint8Array([0xef, 0xbb, 0xbf, ...bom]), headers: { 'content-type': 'application/json' } });
    expect([twice.status, twice.json.error.fields]).toEqual([400, { _body: 'Invalid JSON' }]);
    expect(await t.db.job.count({ where: { key: 'rules.bom' } })).toBe(1);
  });
});
