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
});
