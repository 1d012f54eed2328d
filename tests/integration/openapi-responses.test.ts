/**
 * The OpenAPI document (lib/api/openapi.ts) lists what each operation really answers: every
 * operation but a GET reads a body and takes Idempotency-Key (app/_lib/rest.ts), so each lists
 * 413, 415 and the header, and each route answers them; an operation that takes fields
 * documents its body (optional when leaving it out is no error), and only the actions without fields
 * document none.
 */
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, ERROR_CODES } from '../../lib/api/openapi.ts';
import { DOMAIN_ERROR_CODES } from '../../lib/errors.ts';
import { MAX_BODY_BYTES } from '../../app/_lib/rest.ts';
import { BODY_TOO_LARGE_MESSAGE } from '../../lib/api/body-limit.ts';
import { call, useRestFixture, type RouteHandler } from '../helpers/rest.ts';
import type { TestDatabase } from '../helpers/db.ts';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as job from '../../app/api/v1/jobs/[id]/route.ts';
import * as restore from '../../app/api/v1/jobs/[id]/restore/route.ts';
import * as users from '../../app/api/v1/users/route.ts';
import * as user from '../../app/api/v1/users/[id]/route.ts';

type Op = { parameters?: { name: string; in: string }[]; responses: Record<string, unknown>; requestBody?: unknown };
const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, Op>> };
const root = path.resolve(__dirname, '../../app/api/v1');
const writes = Object.entries(doc.paths).flatMap(([template, ops]) =>
  Object.entries(ops)
    .filter(([method]) => method !== 'get')
    .map(([method, op]) => ({ template, method: method.toUpperCase(), op })),
);

describe('OpenAPI responses and request bodies of the writes', () => {
  let t: TestDatabase;
  let admin: string;
  let operator: string;
  let viewer: string;
  useRestFixture([], (f) => ({ t, admin, operator, viewer } = f));

  const handlerOf = async (template: string, method: string) =>
    ((await import(path.join(root, template.replace(/\{([^}]+)\}/g, '[$1]'), 'route.ts'))) as Record<string, RouteHandler>)[method]!;
  const params = { id: '5b4c3f6e-0000-4000-8000-000000000000', version: '1' };

  it('every POST, PUT, PATCH and DELETE lists 413, 415 and Idempotency-Key', () => {
    expect(writes.length).toBeGreaterThan(30);
    for (const { template, method, op } of writes) {
      expect(Object.keys(op.responses), `${method} ${template}`).toEqual(expect.arrayContaining(['413', '415']));
      expect(op.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'), `${method} ${template}`).toBe(true);
    }
  });

  it('and each answers them: 415 for a compressed body, 413 for one over 1 MB', async () => {
    for (const { template, method } of writes) {
      const h = await handlerOf(template, method);
      const gz = await call(h, method, `/api/v1${template}`, {
        token: admin, params, rawBody: new Uint8Array(gzipSync('{}')), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      });
      expect([gz.status, gz.json.error.code], `${method} ${template}`).toEqual([415, 'unsupported_content_encoding']);
      const big = await call(h, method, `/api/v1${template}`, {
        token: admin, params, rawBody: JSON.stringify({ s: 'x'.repeat(MAX_BODY_BYTES) }), headers: { 'content-type': 'application/json' },
      });
      expect([big.status, big.json.error.code], `${method} ${template}`).toEqual([413, 'payload_too_large']);
      // the message is true of what happened: the body was read up to the limit, not that nothing was read
      expect(big.json.error.message, `${method} ${template}`).toBe(BODY_TOO_LARGE_MESSAGE);
      expect((doc.paths[template]![method.toLowerCase()]!.responses['413'] as { description: string }).description).toContain(BODY_TOO_LARGE_MESSAGE);
    }
  });

  it('the writes documented without a body are exactly the actions without fields (README "Input rules")', () => {
    const bodyless = writes.filter(({ op }) => !op.requestBody).map(({ template, method }) => `${method} ${template}`);
    expect(bodyless.sort()).toEqual(
      [
        'DELETE /alarms/silences/{id}', 'DELETE /jobs/{id}/purge', 'DELETE /tokens/{id}', 'DELETE /users/{id}', 'POST /jobs/{id}/purge',
        'POST /runs/{id}/cancel', 'POST /runs/{id}/retry', 'POST /tasks/{id}/retry', 'POST /workers/{id}/resume',
      ].sort(),
    );
  });

  it('DELETE /jobs/{id} and POST /jobs/{id}/restore take the optional { reason } the document names, and record it', async () => {
    for (const [p, m] of [['/jobs/{id}', 'delete'], ['/jobs/{id}/restore', 'post']] as const) {
      expect(doc.paths[p]![m]!.requestBody, `${m} ${p}`).toEqual({ required: false, content: { 'application/json': { schema: { $ref: '#/components/schemas/ReasonInput' } } } });
    }
    const c = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'reason.doc', name: 'r', schedule: { kind: 'manual' }, handler: 'builtin.noop' } });
    const id = c.json.id as string;
    expect((await call(job.DELETE, 'DELETE', `/api/v1/jobs/${id}`, { token: operator, params: { id }, body: { reason: 'retired' } })).status).toBe(200);
    expect((await call(restore.POST, 'POST', `/api/v1/jobs/${id}/restore`, { token: operator, params: { id }, body: { reason: 'needed after all' } })).status).toBe(200);
    const reasons = await t.db.jobVersion.findMany({ where: { jobId: id, changeType: { in: ['delete', 'restore'] } }, orderBy: { version: 'asc' }, select: { changeType: true, reason: true } });
    expect(reasons).toEqual([{ changeType: 'delete', reason: 'retired' }, { changeType: 'restore', reason: 'needed after all' }]);
    // a field the schema does not have is refused by name, as on every write
    const bad = await call(job.DELETE, 'DELETE', `/api/v1/jobs/${id}`, { token: operator, params: { id }, body: { reson: 'x' } });
    expect([bad.status, Object.keys(bad.json.error.fields)]).toEqual([400, ['reson']]);
  });

  it('PATCH /users/{id} documents its body as optional: every field is, and no body changes nothing (200)', async () => {
    expect((doc.paths['/users/{id}']!.patch!.requestBody as { required: boolean }).required).toBe(false);
    const c = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { email: 'optional-body@test.local', password: 'test-password-1', role: 'viewer' } });
    const id = c.json.id as string;
    const r = await call(user.PATCH, 'PATCH', `/api/v1/users/${id}`, { token: admin, params: { id } });
    expect([r.status, r.json.role, r.json.disabled]).toEqual([200, 'viewer', false]);
  });

  describe('each operation documents the error statuses it answers, and no other (lib/api/openapi.ts errorResponses)', () => {
    const all = Object.entries(doc.paths).flatMap(([template, ops]) => Object.entries(ops).map(([method, op]) => ({ template, method: method.toUpperCase(), op })));
    const documented = (op: Op) => Object.keys(op.responses);
    const urlOf = (template: string, id: string) => `/api/v1${template.replace('{id}', id).replace('{version}', '1')}`;

    it('GET /health is public: no 403, 404, 409 or 422; a bad bearer is its 401 and an unknown parameter its 400', async () => {
      const health = doc.paths['/health']!.get!;
      expect(documented(health).sort()).toEqual(['200', '400', '401', '503']);
      const h = await handlerOf('/health', 'GET');
      expect((await call(h, 'GET', '/api/v1/health', { token: 'not-a-token' })).status).toBe(401);
      expect((await call(h, 'GET', '/api/v1/health?x=1')).status).toBe(400);
    });

    it('the Error schema lists exactly the codes that occur: every DomainError code and the door\'s own', () => {
      const schema = (doc as unknown as { components: { schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } } } }).components.schemas.Error;
      const codes = schema.properties.error.properties.code.enum;
      expect(new Set(codes).size).toBe(codes.length);
      expect([...codes].sort()).toEqual([...ERROR_CODES].sort());
      for (const c of DOMAIN_ERROR_CODES) expect(codes).toContain(c);
    });

    it('every operation: a bad bearer (401), a viewer (403 where it needs more), an unknown query parameter (400) and a missing {id} (404) answer documented statuses', async () => {
      expect(all.length).toBeGreaterThan(50);
      const missing = '5b4c3f6e-0000-4000-8000-0000000000ff';
      for (const { template, method, op } of all) {
        const h = await handlerOf(template, method);
        const at = `${method} ${template}`;
        const body = method === 'GET' ? {} : { body: {} };
        const bad = await call(h, method, urlOf(template, missing), { token: 'not-a-token', params: { id: missing, version: '1' }, ...body });
        expect([bad.status, documented(op)], at).toEqual([401, expect.arrayContaining(['401'])]);
        const asViewer = await call(h, method, urlOf(template, missing), { token: viewer, params: { id: missing, version: '1' }, ...body });
        expect(documented(op), `${at} as a viewer: ${asViewer.status}`).toContain(String(asViewer.status));
        const unknown = await call(h, method, `${urlOf(template, missing)}?bogus=1`, { token: admin, params: { id: missing, version: '1' }, ...body });
        expect(documented(op), `${at}?bogus=1: ${unknown.status}`).toContain(String(unknown.status));
        if (template.includes('{id}')) {
          expect([unknown.status, documented(op)], at).toEqual([404, expect.arrayContaining(['404'])]);
        } else {
          // 404 only where the body names an object by id (errorResponses `notFound`)
          expect(unknown.status, at).toBe(400);
          expect(documented(op).includes('404'), at).toBe(['POST /jobs/bulk', 'POST /alarms/silences'].includes(at));
        }
      }
    });

    it('a sample of conflicts and mismatches answer what their operations document, and operations without one document none', async () => {
      const create = doc.paths['/jobs']!.post!;
      const body = { key: 'doc.conflict', name: 'c', schedule: { kind: 'manual' }, handler: 'builtin.noop' };
      const headers = { 'idempotency-key': 'doc-conflict' };
      const first = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body, headers });
      const again = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body });
      expect([again.status, documented(create)]).toEqual([409, expect.arrayContaining(['409'])]);
      const mismatch = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { ...body, name: 'other' }, headers });
      expect([mismatch.status, documented(create)]).toEqual([422, expect.arrayContaining(['422'])]);
      const id = first.json.id as string;
      const purge = await call(await handlerOf('/jobs/{id}/purge', 'DELETE'), 'DELETE', `/api/v1/jobs/${id}/purge`, { token: admin, params: { id } });
      expect([purge.status, documented(doc.paths['/jobs/{id}/purge']!.delete!)]).toEqual([409, expect.arrayContaining(['409'])]);
      // a body naming a job that does not exist: the operations that answer 404 for it document it
      const missing = '5b4c3f6e-0000-4000-8000-0000000000fe';
      for (const [template, body] of [['/jobs/bulk', { action: 'pause', ids: [missing] }], ['/alarms/silences', { jobId: missing, durationMinutes: 5 }]] as const) {
        const r = await call(await handlerOf(template, 'POST'), 'POST', `/api/v1${template}`, { token: admin, body });
        expect([r.status, documented(doc.paths[template]!.post!)], template).toEqual([404, expect.arrayContaining(['404'])]);
      }
      // reads answer no 409 or 422, and say so
      for (const { template, method, op } of all.filter((o) => o.method === 'GET' && o.template !== '/logs/search')) {
        expect(documented(op), `${method} ${template}`).not.toEqual(expect.arrayContaining(['409']));
        expect(documented(op), `${method} ${template}`).not.toEqual(expect.arrayContaining(['422']));
      }
    });
  });
});
