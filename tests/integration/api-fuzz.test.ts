/**
 * Property-based fuzzing of every operation of the OpenAPI document
 * (lib/api/openapi.ts) with fast-check: requests are built from each
 * operation's own schema (path and query parameters, JSON body) and then bent
 * (wrong types, unknown fields, keys with lone surrogates or NUL, year-0000 and
 * out-of-range timestamps, a bad `startAt` beside a good `endAt`, ids that do
 * not exist). For every request:
 * - the answer is never a 5xx;
 * - a refused request (4xx) changes nothing in the database;
 * - every `error.fields` entry names a field that exists: in the request, in
 *   the operation's schema, or `_root` / `_body` / `_path`;
 * - the response text is valid Unicode (no lone surrogate, escaped or not).
 * Route handlers are called directly, as Next would call them
 * (tests/helpers/rest.ts). Requests Next itself answers before any handler
 * (TRACE, `%ff` in a path) are covered by lib/infra/http-guard.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { call, useRestFixture, type RestFixture, type RouteHandler } from '../helpers/rest.ts';
import { buildOpenApiDocument } from '../../lib/api/openapi.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { triggerJob } from '../../lib/jobs/trigger-job.ts';

type Schema = Record<string, unknown>;
type Operation = {
  template: string;
  method: string;
  params: { name: string; in: string; required: boolean; schema: Schema }[];
  body: Schema | null;
  bodyRequired: boolean;
};

const doc = buildOpenApiDocument() as { paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: Record<string, Schema> } };

function resolve(s: Schema | undefined): Schema {
  let cur = s ?? {};
  for (let i = 0; i < 10 && typeof cur.$ref === 'string'; i++) {
    const ref = cur.$ref as string;
    cur = ref.startsWith('#/components/schemas/') ? doc.components.schemas[ref.slice('#/components/schemas/'.length)]! : {};
  }
  return cur;
}

const operations: Operation[] = Object.entries(doc.paths).flatMap(([template, ops]) =>
  Object.entries(ops).map(([method, op]) => {
    const body = (op.requestBody as { required: boolean; content: Record<string, { schema: Schema }> } | undefined) ?? null;
    return {
      template,
      method: method.toUpperCase(),
      params: ((op.parameters as Operation['params']) ?? []).filter((p) => p.in === 'path' || p.in === 'query'),
      body: body ? resolve(body.content['application/json']!.schema) : null,
      bodyRequired: body?.required ?? false,
    };
  }),
);

/** Values that broke some route once: wrong types, limits, lone surrogates, year 0000. */
const nasty = fc.constantFrom<unknown>(
  null,
  true,
  0,
  -1,
  1e400 === Infinity ? 1.7976931348623157e308 : 0,
  2 ** 31,
  1.5,
  '',
  ' ',
  'x'.repeat(300),
  '\u0000',
  '\ud800',
  'a\udc00b',
  '%ff',
  '0000-01-01T00:00:00Z',
  '0000-12-31T23:59:59Z',
  '+275760-09-13T00:00:00Z',
  '2026-02-30T00:00:00Z',
  '2026-01-01',
  '9999-12-31T23:59:59Z',
  '1969-12-31T23:59:59Z',
  'not-a-date',
  '7c1e0d7e-1111-4222-8333-444455556666',
  [],
  {},
  { __proto__: 1 },
);

function fromSchema(s0: Schema | undefined, depth: number): fc.Arbitrary<unknown> {
  const s = resolve(s0);
  if (depth > 4) return nasty;
  const alts: fc.Arbitrary<unknown>[] = [];
  if (Array.isArray(s.enum)) alts.push(fc.constantFrom(...(s.enum as unknown[])));
  if ('const' in s) alts.push(fc.constant(s.const));
  for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) alts.push(...(s[k] as Schema[]).map((x) => fromSchema(x, depth + 1)));
  const type = Array.isArray(s.type) ? (s.type as string[]) : s.type ? [s.type as string] : [];
  for (const t of type) {
    if (t === 'string') {
      if (s.format === 'date-time') alts.push(fc.date({ min: new Date('1960-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()));
      alts.push(fc.string({ maxLength: 12 }), fc.constantFrom('builtin.echo', 'builtin.noop', '0 2 * * *', 'UTC', 'Australia/Lord_Howe', 'a.b', 'webhook', 'log'));
    } else if (t === 'integer') alts.push(fc.integer({ min: (s.minimum as number) ?? -5, max: Math.min((s.maximum as number) ?? 1000, 10_000) }));
    else if (t === 'number') alts.push(fc.double({ noNaN: true, min: -1e6, max: 1e6 }));
    else if (t === 'boolean') alts.push(fc.boolean());
    else if (t === 'null') alts.push(fc.constant(null));
    else if (t === 'array') alts.push(fc.array(fromSchema(s.items as Schema, depth + 1), { maxLength: 3 }));
    else if (t === 'object') alts.push(objectOf(s, depth));
  }
  if (!type.length && s.properties) alts.push(objectOf(s, depth));
  if (!alts.length) alts.push(fc.jsonValue({ maxDepth: 2 }));
  // Mostly schema-shaped values, sometimes a nasty one in their place.
  return fc.oneof({ arbitrary: fc.oneof(...alts), weight: 4 }, { arbitrary: nasty, weight: 1 });
}

function objectOf(s: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = (s.properties as Record<string, Schema> | undefined) ?? {};
  const required = new Set((s.required as string[] | undefined) ?? []);
  const fields = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromSchema(v, depth + 1)]));
  const known = fc.record(fields, { requiredKeys: Object.keys(props).filter((k) => required.has(k)) });
  const extraKey = fc.constantFrom('unknownField', 'x\ud800', '\udc00', 'a\u0000b', '__proto__', 'constructor');
  return fc
    .tuple(known, fc.option(fc.tuple(extraKey, nasty), { freq: 4 }))
    .map(([o, extra]) => {
      const out: Record<string, unknown> = { ...o };
      if (extra) Object.defineProperty(out, extra[0], { value: extra[1], enumerable: true, writable: true, configurable: true });
      return out;
    });
}

/** Does dot path `path` exist in `value` (a request part) or in `schema`? */
function pathExists(path: string[], value: unknown, schema: Schema | undefined): boolean {
  if (path.length === 0) return true;
  const [head, ...rest] = path;
  if (value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, head!)) {
    return pathExists(rest, (value as Record<string, unknown>)[head!], schemaChild(schema, head!));
  }
  const child = schemaChild(schema, head!);
  return child !== undefined && pathExists(rest, undefined, child);
}

function schemaChild(s0: Schema | undefined, key: string): Schema | undefined {
  if (!s0) return undefined;
  const s = resolve(s0);
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(s[k])) {
      for (const alt of s[k] as Schema[]) {
        const c = schemaChild(alt, key);
        if (c) return c;
      }
    }
  }
  const props = s.properties as Record<string, Schema> | undefined;
  if (props && key in props) return props[key];
  if (s.type === 'array' && /^\d+$/.test(key)) return (s.items as Schema) ?? {};
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) return s.additionalProperties === true ? {} : (s.additionalProperties as Schema);
  if (s.propertyNames || (s.type === 'object' && !props)) return {};
  return undefined;
}

const escapeLone = (k: string) => k.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Same path with its request keys escaped the way errors escape them (lib/api/validation.ts). */
function requestHasPath(field: string, req: { body: unknown; query: Record<string, unknown>; params: Record<string, string> }, op: Operation): boolean {
  if (['_root', '_body', '_path'].includes(field)) return true;
  const parts = field.split('.');
  const matchKey = (obj: unknown, key: string) =>
    obj && typeof obj === 'object' ? Object.keys(obj).find((k) => escapeLone(k) === key) : undefined;
  const walk = (p: string[], value: unknown, schema: Schema | undefined): boolean => {
    if (!p.length) return true;
    const real = matchKey(value, p[0]!);
    if (real !== undefined) return walk(p.slice(1), (value as Record<string, unknown>)[real], schemaChild(schema, real));
    return pathExists(p, undefined, schema);
  };
  if (walk(parts, req.body, op.body ?? undefined)) return true;
  const paramSchema: Schema = { type: 'object', properties: Object.fromEntries(op.params.map((p) => [p.name, p.schema])) };
  return walk(parts, { ...req.query, ...req.params }, paramSchema);
}

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** True when a string or key anywhere in the parsed answer holds a lone surrogate (the text had a `\\udXXX` escape). */
function hasLone(v: unknown): boolean {
  if (typeof v === 'string') return LONE.test(v);
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => LONE.test(k) || hasLone(x));
  return false;
}

let f: RestFixture;
const handlers = new Map<string, Record<string, RouteHandler>>();
const ids: Record<string, string[]> = { id: [], version: ['1', '2', '0', '-1', '99999999999'] };

useRestFixture(['custom.fuzz'], (x) => {
  f = x;
});

async function fingerprint(): Promise<string> {
  // Every table a request may write; api_tokens.last_used_at changes on every authenticated call, so it is left out.
  const tables = ['jobs', 'job_steps', 'job_edges', 'job_versions', 'runs', 'tasks', 'task_dependencies', 'task_logs', 'worker_nodes', 'alarms', 'idempotency_keys', 'users', 'sessions', 'settings'];
  const parts = await Promise.all(
    tables.map((t) => f.t.db.$queryRawUnsafe<{ h: string | null }[]>(`SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) AS h FROM ${t} x`).then((r) => `${t}:${r[0]!.h}`)),
  );
  const tokens = await f.t.db.$queryRawUnsafe<{ h: string | null }[]>(`SELECT md5(string_agg(concat_ws('|', id, user_id, name, scope, revoked_at, expires_at), ',' ORDER BY id)) AS h FROM api_tokens`);
  return [...parts, `api_tokens:${tokens[0]!.h}`].join(' ');
}

function routeFile(template: string): string {
  return `../../app/api/v1${template.replace(/\{(\w+)\}/g, '[$1]')}/route.ts`;
}

describe('fuzzing every OpenAPI operation', () => {
  it('covers every operation of the document', async () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const op of operations) {
      if (!handlers.has(op.template)) handlers.set(op.template, (await import(routeFile(op.template))) as Record<string, RouteHandler>);
      expect(typeof handlers.get(op.template)![op.method], `${op.method} ${op.template}`).toBe('function');
    }
    const job = await createJob(f.t.db, { key: 'fuzz.seed', name: 'seed', schedule: { kind: 'manual' }, handler: 'builtin.echo', payload: {} }, SYSTEM_ACTOR);
    const run = await triggerJob(f.t.db, job.id, {}, SYSTEM_ACTOR);
    const runId = 'run' in run ? run.run.id : run.runs[0]!.id;
    const task = await f.t.db.task.findFirst({ where: { runId } });
    const user = await f.t.db.user.findFirst();
    ids.id!.push(job.id, runId, task?.id ?? runId, user?.id ?? job.id, '7c1e0d7e-1111-4222-8333-444455556666', 'not-a-uuid', '\ud800', 'a'.repeat(250));
  });

  it('the reported 500s are 400s naming the field, and write nothing', async () => {
    const jobs = handlers.get('/jobs')!;
    const job = handlers.get('/jobs/{id}')!;
    const runs = handlers.get('/runs')!;
    const alarmTest = handlers.get('/alarms/test')!;
    const seed = await f.t.db.job.findFirstOrThrow({ where: { key: 'fuzz.seed' } });
    const body = (patch: Record<string, unknown>) => ({ key: 'fuzz.kind', name: 'k', schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'UTC' }, handler: 'builtin.echo', ...patch });
    const before = await fingerprint();
    const cases: [Promise<{ status: number; json: { error?: { fields?: Record<string, string> } } }>, string][] = [
      [call(runs.GET!, 'GET', '/api/v1/runs?from=0000-01-01T00:00:00Z', { token: f.admin }), 'from'],
      [call(jobs.POST!, 'POST', '/api/v1/jobs', { token: f.admin, body: body({ startAt: '0000-01-01T00:00:00Z' }) }), 'startAt'],
      [call(jobs.POST!, 'POST', '/api/v1/jobs', { token: f.admin, body: body({ endAt: '0000-01-01T00:00:00Z' }) }), 'endAt'],
      [call(jobs.POST!, 'POST', '/api/v1/jobs', { token: f.admin, body: body({ schedule: { kind: 'once', runAt: '0000-06-01T00:00:00Z' } }) }), 'schedule.runAt'],
      [call(jobs.POST!, 'POST', '/api/v1/jobs', { token: f.admin, body: body({ startAt: 'nope', endAt: '2030-01-01T00:00:00Z' }) }), 'startAt'],
      [call(job.PATCH!, 'PATCH', `/api/v1/jobs/${seed.id}`, { token: f.admin, params: { id: seed.id }, body: { expectedVersion: seed.version, startAt: '2026-02-30T00:00:00Z', endAt: '2030-01-01T00:00:00Z' } }), 'startAt'],
      [call(alarmTest.POST!, 'POST', '/api/v1/alarms/test', { token: f.admin, body: { channel: { type: 'log', target: '' }, extra: 1 } }), 'extra'],
      [call(jobs.POST!, 'POST', '/api/v1/jobs', { token: f.admin, body: body({ payload: { ['a\ud800']: 1 } }) }), 'payload.a\\uD800'],
    ];
    for (const [p, field] of cases) {
      const r = await p;
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(Object.keys(r.json.error?.fields ?? {})).toContain(field);
    }
    expect(await fingerprint()).toBe(before);
  });

  it('never answers 5xx; a refused request writes nothing; every error names a field that exists', async () => {
    const problems: string[] = [];
    let refused = 0;
    let accepted = 0;
    for (const op of operations) {
      const handler = handlers.get(op.template)![op.method]!;
      const pathNames = op.params.filter((p) => p.in === 'path').map((p) => p.name);
      const queryArb = fc.record(
        Object.fromEntries(op.params.filter((p) => p.in === 'query').map((p) => [p.name, fromSchema(p.schema, 1).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))])),
        { requiredKeys: [] },
      );
      const paramsArb = fc.record(Object.fromEntries(pathNames.map((n) => [n, fc.oneof(fc.constantFrom(...(ids[n] ?? ids.id!)), fc.string({ maxLength: 8 }))])));
      const bodyArb = op.body ? fc.oneof({ arbitrary: fromSchema(op.body, 0), weight: 6 }, { arbitrary: nasty, weight: 1 }) : fc.option(fc.jsonValue({ maxDepth: 2 }), { freq: 3 });
      await fc.assert(
        fc.asyncProperty(paramsArb, queryArb, bodyArb, async (params, query, body) => {
          const before = await fingerprint();
          const qs = new URLSearchParams(query as Record<string, string>).toString();
          let url = `/api/v1${op.template.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(escapeLone(String((params as Record<string, string>)[n]))))}`;
          if (qs) url += `?${qs}`;
          const res = await call(handler, op.method, url, {
            token: f.admin,
            params: params as Record<string, string>,
            ...(op.method === 'GET' || op.method === 'HEAD' || body === null || body === undefined ? {} : { body }),
          });
          const label = `${op.method} ${url} ${JSON.stringify(body)?.slice(0, 300)} -> ${res.status} ${JSON.stringify(res.json)?.slice(0, 300)}`;
          if (res.status >= 500) problems.push(`5xx: ${label}`);
          if (hasLone(res.json)) problems.push(`lone surrogate in the answer: ${label}`);
          if (res.status >= 400) {
            refused++;
            if ((await fingerprint()) !== before) problems.push(`refused but wrote: ${label}`);
            for (const field of Object.keys(res.json?.error?.fields ?? {})) {
              if (!requestHasPath(field, { body, query: query as Record<string, unknown>, params: params as Record<string, string> }, op)) {
                problems.push(`error names a field that does not exist (${field}): ${label}`);
              }
            }
          } else accepted++;
        }),
        { numRuns: op.method === 'GET' ? 8 : 20, seed: 20261201, endOnFailure: true },
      );
    }
    expect(problems.slice(0, 15)).toEqual([]);
    expect(refused).toBeGreaterThan(200);
    expect(accepted).toBeGreaterThan(20);
  }, 180_000);
});
