/**
 * REST contract: every route under app/api/v1 answers a happy
 * path and refuses bad input with a 4xx naming the field (never a 500, nothing
 * written); bad input on every field of CreateJobInput and UpdateJobInput
 * (table-driven); unknown / malformed ids are 404 on every :id route;
 * Idempotency-Key on PATCH and DELETE; keys expire after 24 h.
 * Route handlers are called directly with `new Request(...)` (as api-rest.test.ts).
 */
import { ENDED_WORKERS_LISTED } from '../../lib/workers/list-workers.ts';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../helpers/db.ts';
import { call, useRestFixture, type CallResult, type RouteHandler, byToken } from '../helpers/rest.ts';
import { filesUnder } from '../helpers/files-under.ts';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { PEER_ADDRESS_HEADER } from '../../lib/auth/client-address.ts';
import * as health from '../../app/api/v1/health/route.ts';
import * as preview from '../../app/api/v1/schedule/preview/route.ts';
import * as openapi from '../../app/api/v1/openapi.json/route.ts';
import { buildOpenApiDocument } from '../../lib/api/openapi.ts';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as bulk from '../../app/api/v1/jobs/bulk/route.ts';
import * as importRoute from '../../app/api/v1/jobs/import/route.ts';
import * as job from '../../app/api/v1/jobs/[id]/route.ts';
import * as restore from '../../app/api/v1/jobs/[id]/restore/route.ts';
import * as purge from '../../app/api/v1/jobs/[id]/purge/route.ts';
import * as pause from '../../app/api/v1/jobs/[id]/pause/route.ts';
import * as resume from '../../app/api/v1/jobs/[id]/resume/route.ts';
import * as trigger from '../../app/api/v1/jobs/[id]/trigger/route.ts';
import * as versions from '../../app/api/v1/jobs/[id]/versions/route.ts';
import * as version from '../../app/api/v1/jobs/[id]/versions/[version]/route.ts';
import * as diff from '../../app/api/v1/jobs/[id]/diff/route.ts';
import * as rollback from '../../app/api/v1/jobs/[id]/rollback/route.ts';
import * as dag from '../../app/api/v1/jobs/[id]/dag/route.ts';
import * as runs from '../../app/api/v1/runs/route.ts';
import * as run from '../../app/api/v1/runs/[id]/route.ts';
import * as cancelRun from '../../app/api/v1/runs/[id]/cancel/route.ts';
import * as retryRun from '../../app/api/v1/runs/[id]/retry/route.ts';
import * as retryTask from '../../app/api/v1/tasks/[id]/retry/route.ts';
import * as markSuccess from '../../app/api/v1/tasks/[id]/mark-success/route.ts';
import * as clearTaskRoute from '../../app/api/v1/tasks/[id]/clear/route.ts';
import * as backfill from '../../app/api/v1/jobs/[id]/backfill/route.ts';
import * as backfillPreview from '../../app/api/v1/jobs/[id]/backfill/preview/route.ts';
import * as audit from '../../app/api/v1/jobs/[id]/audit/route.ts';
import * as workers from '../../app/api/v1/workers/route.ts';
import * as handlersRoute from '../../app/api/v1/handlers/route.ts';
import * as drain from '../../app/api/v1/workers/[id]/drain/route.ts';
import * as resumeWorker from '../../app/api/v1/workers/[id]/resume/route.ts';
import * as bin from '../../app/api/v1/recycle-bin/route.ts';
import * as users from '../../app/api/v1/users/route.ts';
import * as user from '../../app/api/v1/users/[id]/route.ts';
import * as tokens from '../../app/api/v1/tokens/route.ts';
import * as token from '../../app/api/v1/tokens/[id]/route.ts';
import * as daily from '../../app/api/v1/stats/daily/route.ts';
import * as series from '../../app/api/v1/stats/series/route.ts';
import * as grid from '../../app/api/v1/jobs/[id]/grid/route.ts';
import * as calendar from '../../app/api/v1/jobs/[id]/calendar/route.ts';
import * as overview from '../../app/api/v1/stats/overview/route.ts';
import * as alarms from '../../app/api/v1/alarms/route.ts';
import * as testAlarm from '../../app/api/v1/alarms/test/route.ts';
import * as silencesRoute from '../../app/api/v1/alarms/silences/route.ts';
import * as silence from '../../app/api/v1/alarms/silences/[id]/route.ts';

type Res = CallResult;


/** A 400 whose error.fields names `field`. */
function expectField(r: Res, field: string, label = field) {
  expect(r.status, `${label}: ${JSON.stringify(r.json)}`).toBe(400);
  expect(r.json.error.code, label).toBe('validation');
  expect(Object.keys(r.json.error.fields ?? {}), `${label}: ${JSON.stringify(r.json.error)}`).toContain(field);
}

let seq = 0;
const uniq = (p: string) => `${p}.${++seq}`;
const big = (bytes: number) => ({ s: 'x'.repeat(bytes) });
const cronJob = (key: string) => ({ key, name: `Job ${key}`, schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'Asia/Shanghai' }, handler: 'builtin.echo', payload: { x: 1 } });
const dagJob = (key: string) => ({
  key,
  name: `DAG ${key}`,
  schedule: { kind: 'manual' },
  steps: [
    { key: 'a', handler: 'builtin.noop' },
    { key: 'b', handler: 'builtin.noop' },
  ],
  edges: [{ from: 'a', to: 'b', type: 'hard' }],
});
const UNKNOWN = '7c1e0d7e-1111-4222-8333-444455556666';
const step = (patch: Record<string, unknown>) => ({ steps: [{ key: 'a', handler: 'builtin.noop', ...patch }, { key: 'b', handler: 'builtin.noop' }] });
const edge = (patch: Record<string, unknown>) => ({ edges: [{ from: 'a', to: 'b', ...patch }] });

/**
 * One bad value per field of the job body: [label, patch over a valid body, field path].
 * `dag: true` rows patch the steps-based body, the others the cron shorthand body.
 */
const BAD_FIELDS: { label: string; patch: Record<string, unknown>; field: string; dag?: boolean; createOnly?: boolean }[] = [
  { label: 'key with a space', patch: { key: 'has space' }, field: 'key' },
  { label: 'key not a string', patch: { key: 42 }, field: 'key' },
  { label: 'key too long', patch: { key: 'k'.repeat(129) }, field: 'key' },
  { label: 'key starting with a dot', patch: { key: '.hidden' }, field: 'key' },
  { label: 'name empty', patch: { name: '   ' }, field: 'name' },
  { label: 'name too long', patch: { name: 'n'.repeat(201) }, field: 'name' },
  { label: 'description too long', patch: { description: 'd'.repeat(5001) }, field: 'description' },
  { label: 'description not a string', patch: { description: 7 }, field: 'description' },
  { label: 'schedule.kind unknown', patch: { schedule: { kind: 'weekly' } }, field: 'schedule.kind' },
  { label: 'schedule.kind missing', patch: { schedule: { cron: '* * * * *' } }, field: 'schedule.kind' },
  { label: 'schedule.cron syntax', patch: { schedule: { kind: 'cron', cron: '61 * * * *', timezone: 'UTC' } }, field: 'schedule.cron' },
  { label: 'schedule.cron step beyond its field', patch: { schedule: { kind: 'cron', cron: '*/99999999999 * * * *', timezone: 'UTC' } }, field: 'schedule.cron' },
  { label: 'schedule.cron empty', patch: { schedule: { kind: 'cron', cron: '', timezone: 'UTC' } }, field: 'schedule.cron' },
  { label: 'schedule.cron missing', patch: { schedule: { kind: 'cron', timezone: 'UTC' } }, field: 'schedule.cron' },
  { label: 'schedule.cron never fires', patch: { schedule: { kind: 'cron', cron: '0 0 31 4 *', timezone: 'UTC' } }, field: 'schedule.cron' },
  { label: 'schedule.timezone unknown', patch: { schedule: { kind: 'cron', cron: '0 * * * *', timezone: 'Nowhere/City' } }, field: 'schedule.timezone' },
  { label: 'schedule.intervalSeconds 0', patch: { schedule: { kind: 'interval', intervalSeconds: 0 } }, field: 'schedule.intervalSeconds' },
  { label: 'schedule.intervalSeconds fraction', patch: { schedule: { kind: 'interval', intervalSeconds: 1.5 } }, field: 'schedule.intervalSeconds' },
  { label: 'schedule.intervalSeconds string', patch: { schedule: { kind: 'interval', intervalSeconds: '60' } }, field: 'schedule.intervalSeconds' },
  { label: 'schedule.runAt not a date', patch: { schedule: { kind: 'once', runAt: 'tomorrow' } }, field: 'schedule.runAt' },
  { label: 'schedule.runAt without offset', patch: { schedule: { kind: 'once', runAt: '2030-01-01T00:00:00' } }, field: 'schedule.runAt' },
  { label: 'schedule.timezone of a once job unknown', patch: { schedule: { kind: 'once', runAt: '2099-01-01T00:00:00Z', timezone: 'Nowhere/City' } }, field: 'schedule.timezone' },
  { label: 'startAt not a date', patch: { startAt: 'soon' }, field: 'startAt' },
  { label: 'endAt not a date', patch: { endAt: 12 }, field: 'endAt' },
  { label: 'endAt before startAt', patch: { startAt: '2030-01-02T00:00:00Z', endAt: '2030-01-01T00:00:00Z' }, field: 'endAt' },
  { label: 'endAt equal to startAt', patch: { startAt: '2030-01-01T00:00:00Z', endAt: '2030-01-01T00:00:00Z' }, field: 'endAt' },
  { label: 'staggerSeconds negative', patch: { staggerSeconds: -1 }, field: 'staggerSeconds' },
  { label: 'staggerSeconds over a day', patch: { staggerSeconds: 86401 }, field: 'staggerSeconds' },
  { label: 'handler empty', patch: { handler: '' }, field: 'handler' },
  { label: 'handler and steps both', patch: { steps: [{ key: 'a', handler: 'builtin.noop' }] }, field: 'handler' },
  { label: 'payload not an object', patch: { payload: [1, 2] }, field: 'payload' },
  { label: 'payload over 64 KB', patch: { payload: big(66_000) }, field: 'payload' },
  { label: 'no steps and no handler', patch: { handler: undefined }, field: 'steps', createOnly: true },
  { label: 'steps empty', patch: { steps: [], edges: [] }, field: 'steps', dag: true },
  { label: 'steps[].key invalid', patch: step({ key: 'bad key' }), field: 'steps.0.key', dag: true },
  { label: 'steps[].key duplicate', patch: { steps: [{ key: 'a', handler: 'h' }, { key: 'a', handler: 'h' }], edges: [] }, field: 'steps.1.key', dag: true },
  { label: 'steps[].handler empty', patch: step({ handler: ' ' }), field: 'steps.0.handler', dag: true },
  { label: 'steps[].handler missing', patch: step({ handler: undefined }), field: 'steps.0.handler', dag: true },
  { label: 'steps[].payload not an object', patch: step({ payload: 'x' }), field: 'steps.0.payload', dag: true },
  { label: 'steps[].payload over 64 KB', patch: step({ payload: big(66_000) }), field: 'steps.0.payload', dag: true },
  { label: 'steps[].timeoutSeconds 0', patch: step({ timeoutSeconds: 0 }), field: 'steps.0.timeoutSeconds', dag: true },
  { label: 'steps[].timeoutSeconds over 7 days', patch: step({ timeoutSeconds: 7 * 86400 + 1 }), field: 'steps.0.timeoutSeconds', dag: true },
  { label: 'steps[].maxRetries negative', patch: step({ maxRetries: -1 }), field: 'steps.0.maxRetries', dag: true },
  { label: 'steps[].maxRetries fraction', patch: step({ maxRetries: 0.5 }), field: 'steps.0.maxRetries', dag: true },
  { label: 'steps[].resourceKey empty', patch: step({ resourceKey: '  ' }), field: 'steps.0.resourceKey', dag: true },
  { label: 'steps[].resourceKey too long', patch: step({ resourceKey: 'r'.repeat(201) }), field: 'steps.0.resourceKey', dag: true },
  { label: 'edges[].from empty', patch: edge({ from: '' }), field: 'edges.0.from', dag: true },
  { label: 'edges[].from unknown step', patch: edge({ from: 'zz' }), field: 'edges.0.from', dag: true },
  { label: 'edges[].to unknown step', patch: edge({ to: 'zz' }), field: 'edges.0.to', dag: true },
  { label: 'edges[].to itself', patch: edge({ to: 'a' }), field: 'edges.0.to', dag: true },
  { label: 'edges[].type unknown', patch: edge({ type: 'maybe' }), field: 'edges.0.type', dag: true },
  { label: 'edges cycle', patch: { edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }] }, field: 'edges', dag: true },
  { label: 'policy not an object', patch: { policy: 'strict' }, field: 'policy' },
  { label: 'policy.timeoutSeconds 0', patch: { policy: { timeoutSeconds: 0 } }, field: 'policy.timeoutSeconds' },
  { label: 'policy.maxRetries 101', patch: { policy: { maxRetries: 101 } }, field: 'policy.maxRetries' },
  { label: 'policy.backoff.baseSeconds negative', patch: { policy: { backoff: { baseSeconds: -1 } } }, field: 'policy.backoff.baseSeconds' },
  { label: 'policy.backoff.factor below 1', patch: { policy: { backoff: { factor: 0.5 } } }, field: 'policy.backoff.factor' },
  { label: 'policy.backoff.maxSeconds negative', patch: { policy: { backoff: { maxSeconds: -5 } } }, field: 'policy.backoff.maxSeconds' },
  { label: 'policy.backoff.jitter above 1', patch: { policy: { backoff: { jitter: 2 } } }, field: 'policy.backoff.jitter' },
  { label: 'policy.blockStrategy unknown', patch: { policy: { blockStrategy: 'maybe' } }, field: 'policy.blockStrategy' },
  { label: 'policy.misfirePolicy unknown', patch: { policy: { misfirePolicy: 'never' } }, field: 'policy.misfirePolicy' },
  { label: 'policy.misfireMaxCatchup 0', patch: { policy: { misfireMaxCatchup: 0 } }, field: 'policy.misfireMaxCatchup' },
  { label: 'policy.deadLetterAfter negative', patch: { policy: { deadLetterAfter: -1 } }, field: 'policy.deadLetterAfter' },
  { label: 'policy.priority out of range', patch: { policy: { priority: 1001 } }, field: 'policy.priority' },
  { label: 'routing.nodeGroup too long', patch: { routing: { nodeGroup: 'g'.repeat(101) } }, field: 'routing.nodeGroup' },
  { label: 'routing.labels value not a string', patch: { routing: { labels: { zone: 1 } } }, field: 'routing.labels.zone' },
  { label: 'routing.strategy unknown', patch: { routing: { strategy: 'random' } }, field: 'routing.strategy' },
  { label: 'routing.nodes empty id', patch: { routing: { nodes: [''] } }, field: 'routing.nodes.0' },
  { label: 'routing.nodes not an array', patch: { routing: { nodes: 'n1' } }, field: 'routing.nodes' },
  // a job no worker could ever claim (its tasks would wait forever): strategy nodes with no node
  { label: 'routing strategy nodes with no nodes', patch: { routing: { strategy: 'nodes', nodes: [] } }, field: 'routing.nodes' },
  { label: 'routing strategy nodes, nodes left out', patch: { routing: { strategy: 'nodes' } }, field: 'routing.nodes' },
  { label: 'routing.key too long', patch: { routing: { key: 'k'.repeat(201) } }, field: 'routing.key' },
  { label: 'routing.nodes listing a node twice', patch: { routing: { strategy: 'nodes', nodes: ['n1', 'n1'] } }, field: 'routing.nodes.1' },
  // a list or key the job's strategy never reads (lib/engine/sql/claim-routing.ts) would be stored for nothing
  { label: 'routing.nodes with strategy any', patch: { routing: { nodes: ['n1'] } }, field: 'routing.nodes' },
  { label: 'routing.key with strategy any', patch: { routing: { strategy: 'any', key: 'tenant-1' } }, field: 'routing.key' },
  { label: 'routing.key with strategy nodes', patch: { routing: { strategy: 'nodes', nodes: ['n1'], key: 'tenant-1' } }, field: 'routing.key' },
  { label: 'alarms.onFailure not a boolean', patch: { alarms: { onFailure: 'yes' } }, field: 'alarms.onFailure' },
  { label: 'alarms.channels[].type unknown', patch: { alarms: { channels: [{ type: 'sms', target: '+1' }] } }, field: 'alarms.channels.0.type' },
  { label: 'alarms.channels[].target webhook not a URL', patch: { alarms: { channels: [{ type: 'webhook', target: 'not a url' }] } }, field: 'alarms.channels.0.target' },
  { label: 'alarms.channels[].target email not an address', patch: { alarms: { channels: [{ type: 'email', target: 'ops' }] } }, field: 'alarms.channels.0.target' },
];

describe('REST contract /api/v1', () => {
  let t: TestDatabase;
  let admin: string;
  let operator: string;
  let viewer: string;
  const counts = async () => ({
    jobs: await t.db.job.count(),
    versions: await t.db.jobVersion.count(),
    runs: await t.db.run.count(),
    keys: await t.db.idempotencyKey.count(),
  });
  const create = async (body: unknown) => {
    const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    return r.json as { id: string; key: string; version: number };
  };

  useRestFixture(['h'], (f) => ({ t, admin, operator, viewer } = f));

  it('covers every route file under app/api/v1 (this list must grow with the API)', () => {
    const root = path.resolve(__dirname, '../../app/api/v1');
    const found = filesUnder(root, (name) => name === 'route.ts').map((file) => path.relative(root, path.dirname(file)) || '.');
    expect(found.sort()).toEqual(
      [
        '[[...path]]', 'alarms', 'alarms/[id]/acknowledge', 'alarms/silences', 'alarms/silences/[id]', 'alarms/test', 'handlers', 'health', 'jobs', 'jobs/[id]', 'jobs/[id]/dag', 'jobs/[id]/diff', 'jobs/[id]/pause', 'jobs/[id]/purge',
        'jobs/[id]/restore', 'jobs/[id]/resume', 'jobs/[id]/rollback', 'jobs/[id]/trigger', 'jobs/[id]/versions', 'jobs/[id]/versions/[version]',
        'jobs/[id]/backfill', 'jobs/[id]/backfill/preview', 'jobs/[id]/audit', 'jobs/[id]/grid', 'jobs/[id]/calendar', 'tasks/[id]/mark-success', 'tasks/[id]/clear',
        'jobs/bulk', 'jobs/import', 'logs/search', 'openapi.json', 'recycle-bin', 'runs', 'runs/[id]', 'runs/[id]/cancel', 'runs/[id]/retry', 'schedule/preview',
        'stats/daily', 'stats/overview', 'stats/series', 'tasks/[id]/logs', 'tasks/[id]/retry', 'tokens', 'tokens/[id]', 'users', 'users/[id]', 'users/[id]/password', 'workers', 'workers/[id]/drain',
        'workers/[id]/resume',
      ].sort(),
    );
  });

  it('the OpenAPI document lists exactly the methods each route file exports (proxy.ts answers 405 from it)', async () => {
    const root = path.resolve(__dirname, '../../app/api/v1');
    const doc = buildOpenApiDocument().paths as Record<string, Record<string, unknown>>;
    const fromFiles: Record<string, string[]> = {};
    for (const file of filesUnder(root, (name) => name === 'route.ts')) {
      const rel = path.relative(root, path.dirname(file));
      if (rel === '[[...path]]' || rel === 'openapi.json') continue; // the JSON 404 catch-all; the document itself
      const mod = (await import(file)) as Record<string, unknown>;
      const template = `/${rel.replace(/\[([^\]]+)\]/g, '{$1}')}`;
      fromFiles[template] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => typeof mod[m] === 'function').map((m) => m.toLowerCase());
    }
    const fromDoc = Object.fromEntries(Object.entries(doc).map(([k, ops]) => [k, Object.keys(ops).sort()]));
    for (const k of Object.keys(fromFiles)) fromFiles[k]!.sort();
    expect(fromDoc).toEqual(fromFiles);

    const { allowedMethods } = await import('../../lib/api/allowed-methods.ts');
    expect(allowedMethods('/api/v1/jobs')).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
    expect(allowedMethods('/api/v1/jobs/bulk')).toEqual(['OPTIONS', 'POST']);
    expect(allowedMethods('/api/v1/jobs/5b4c3f6e-0000-4000-8000-000000000000/pause')).toEqual(['OPTIONS', 'POST']);
    expect(allowedMethods('/api/v1/jobs/x/versions/3')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(allowedMethods('/api/v1/nope')).toBeNull();
    // the document itself is no path of its own, yet its route answers GET only: a POST is the JSON 405 with Allow
    expect(allowedMethods('/api/v1/openapi.json')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(allowedMethods('/api/v1/openapiXjson')).toBeNull();
  });

  it('every query parameter naming an object by id refuses a job key and garbage with a 400 naming it (README "REST")', async () => {
    // found from the OpenAPI document (built from the routes' query schemas), so a new id filter is checked too
    const root = path.resolve(__dirname, '../../app/api/v1');
    const doc = buildOpenApiDocument().paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    const checked: string[] = [];
    for (const [template, ops] of Object.entries(doc)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? []) {
          if (p.in !== 'query' || !/Id$/.test(p.name)) continue;
          const mod = (await import(path.join(root, template.replace(/\{([^}]+)\}/g, '[$1]'), 'route.ts'))) as Record<string, RouteHandler>;
          for (const value of ['t.sql1', 'garbage', '5b4c3f6e-0000-4000-8000']) {
            const qs = `${p.name}=${encodeURIComponent(value)}`;
            const r = await call(mod[method.toUpperCase()]!, method.toUpperCase(), `/api/v1${template}?${qs}`, { token: viewer, params: { id: '5b4c3f6e-0000-4000-8000-000000000000' } });
            expectField(r, p.name, `${method} ${template}?${qs}`);
            expect(r.json.error.fields[p.name], qs).toBe('Must be a job id (uuid)');
          }
          checked.push(`${template}?${p.name}`);
        }
      }
    }
    expect(checked.sort()).toEqual(['/alarms?jobId', '/logs/search?jobId', '/runs?jobId', '/schedule/preview?jobId', '/stats/series?jobId']);
  });

  it('an id in a body follows the same rule: a token owner that is not a uuid is a 400 at ownerId, no token made', async () => {
    const before = await t.db.apiToken.count();
    for (const value of ['alice@example.com', 'garbage', '5b4c3f6e-0000-4000-8000']) {
      const r = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { name: 'owned', scope: 'read', ownerId: value } });
      expectField(r, 'ownerId', value);
      expect(r.json.error.fields.ownerId).toBe('Must be a user id (uuid)');
    }
    expect(await t.db.apiToken.count()).toBe(before);
  });

  describe('POST /jobs: one bad value per field -> 400 naming it, nothing written', () => {
    it.each(BAD_FIELDS.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
      const before = await counts();
      const base = c.dag ? dagJob(uniq('bad.create')) : cronJob(uniq('bad.create'));
      const body = { ...base, ...c.patch };
      const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body, headers: { 'idempotency-key': uniq('bad-create') } });
      expectField(r, c.field, c.label);
      expect(await counts()).toEqual(before);
    });

    it('a body that is not JSON, not an object, or empty is a 400', async () => {
      const before = await counts();
      expectField(await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody: '{"key": ' }), '_body');
      expectField(await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: [] }), '_root');
      expectField(await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: 'job' }), '_root');
      const empty = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator });
      expect(empty.status).toBe(400);
      expect(Object.keys(empty.json.error.fields)).toEqual(expect.arrayContaining(['key', 'name', 'schedule']));
      expect(await counts()).toEqual(before);
    });

    it('a body that is not UTF-8 is a 400 at _body, not stored with U+FFFD in place of its bytes', async () => {
      const before = await counts();
      const text = JSON.stringify(cronJob(uniq('utf8'))).replace('"name":"', '"name":"\u0000');
      const at = Buffer.from(text).indexOf(0);
      const bytes = Buffer.concat([Buffer.from(text).subarray(0, at), Buffer.from([0xff, 0xfe]), Buffer.from(text).subarray(at + 1)]);
      const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody: bytes, headers: { 'content-type': 'application/json' } });
      expectField(r, '_body');
      expect(r.json.error.message).toBe('Request body is not valid UTF-8');
      expect(await counts()).toEqual(before);
    });

    it('a compressed body (Content-Encoding: gzip) is a 415 saying so, not a 400 calling its bytes bad UTF-8; nothing written', async () => {
      const before = await counts();
      const gz = new Uint8Array(gzipSync(JSON.stringify(cronJob(uniq('gzip')))));
      const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody: gz, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
      expect([r.status, r.json.error.code, r.json.error.fields]).toEqual([415, 'unsupported_content_encoding', { _body: 'Content-Encoding must be identity (none)' }]);
      expect(r.json.error.message).toBe('Content-Encoding gzip is not accepted: send the body uncompressed');
      expect(r.headers.get('accept-encoding')).toBe('identity');
      // identity is no coding at all
      const plain = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob(uniq('identity')), headers: { 'content-encoding': 'identity' } });
      expect(plain.status).toBe(201);
      expect((await counts()).jobs).toBe(before.jobs + 1);
    });

    it('a key written twice in one object is a 400 naming its path (not silently the last value), nothing written', async () => {
      const j = await create(cronJob(uniq('dup.trigger')));
      const before = await counts();
      const raw = (rawBody: string) => call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody, headers: { 'content-type': 'application/json' } });
      const r = await raw('{"key":"dup.a","key":"dup.b","name":"d","name":"e","schedule":{"kind":"manual"},"handler":"builtin.echo"}');
      expectField(r, 'key');
      expect(r.json.error.fields).toEqual({ key: 'Duplicate key', name: 'Duplicate key' });
      const nested = JSON.stringify(cronJob(uniq('dup.nested'))).replace('"payload":{"x":1}', '"payload":{"x":1,"x":2}');
      expect((await raw(nested)).json.error.fields).toEqual({ 'payload.x': 'Duplicate key' });
      // on a route whose body has a schema, the body's other bad fields come in the same 400
      const both = await call(rollback.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, rawBody: '{"version":1,"version":1,"stauts":1}', headers: { 'content-type': 'application/json' } });
      expect(both.json.error.fields).toEqual({ version: 'Duplicate key', stauts: 'Unknown field' });
      const runs = JSON.stringify({ runs: Array.from({ length: 1000 }, (_, i) => ({ payload: { i } })) }).replace('{"payload":{"i":999}}', '{"payload":{"i":999},"payload":{"i":0}}');
      const tr = await call(trigger.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, rawBody: runs, headers: { 'content-type': 'application/json' } });
      expect(tr.json.error.fields).toEqual({ 'runs.999.payload': 'Duplicate key' });
      expect(await counts()).toEqual(before);
    });

    it('a key used by a live job is a 409 naming key, writing nothing', async () => {
      const j = await create(cronJob(uniq('taken')));
      const before = await counts();
      const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: cronJob(j.key) });
      expect(r.status).toBe(409);
      expect(r.json.error.fields.key).toBeTruthy();
      expect(await counts()).toEqual(before);
    });
  });

  describe('PATCH /jobs/:id: one bad value per field -> 400 naming it, job unchanged', () => {
    let cronTarget: { id: string; version: number };
    let dagTarget: { id: string; version: number };
    beforeAll(async () => {
      cronTarget = await create(cronJob(uniq('patch.cron')));
      dagTarget = await create(dagJob(uniq('patch.dag')));
    });
    const updatable = BAD_FIELDS.filter((c) => !c.createOnly && c.label !== 'handler and steps both');
    it.each(updatable.map((c) => [c.label, c] as const))('%s', async (_label, c) => {
      const target = c.dag ? dagTarget : cronTarget;
      const before = await counts();
      const row = await t.db.job.findUniqueOrThrow({ where: { id: target.id } });
      const r = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${target.id}`, {
        token: operator,
        params: { id: target.id },
        body: { expectedVersion: target.version, ...c.patch },
        headers: { 'idempotency-key': uniq('bad-patch') },
      });
      expectField(r, c.field, c.label);
      expect(await counts()).toEqual(before);
      expect(await t.db.job.findUniqueOrThrow({ where: { id: target.id } })).toEqual(row);
    });

    it('expectedVersion missing or not a positive integer, reason too long, handler with steps', async () => {
      const { id, version: v } = cronTarget;
      const before = await counts();
      for (const [body, field] of [
        [{ name: 'x' }, 'expectedVersion'],
        [{ expectedVersion: 0, name: 'x' }, 'expectedVersion'],
        [{ expectedVersion: '1', name: 'x' }, 'expectedVersion'],
        [{ expectedVersion: v, reason: 'r'.repeat(1001) }, 'reason'],
        [{ expectedVersion: v, handler: 'builtin.noop', steps: [{ key: 'a', handler: 'builtin.noop' }] }, 'handler'],
      ] as const) {
        expectField(await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params: { id }, body }), field, JSON.stringify(body).slice(0, 60));
      }
      expect(await counts()).toEqual(before);
    });

    it('a window made inverted by a partial PATCH (endAt before the stored startAt) is a 400 at endAt', async () => {
      const j = await create({ ...cronJob(uniq('window')), startAt: '2030-01-10T00:00:00Z' });
      const before = await counts();
      const r = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${j.id}`, { token: operator, params: { id: j.id }, body: { expectedVersion: 1, endAt: '2030-01-01T00:00:00Z' } });
      expectField(r, 'endAt');
      expect(await counts()).toEqual(before);
    });

    it('a key taken by another live job is a 409 at key; a stale version is a 409 with the changed fields', async () => {
      const other = await create(cronJob(uniq('patch.other')));
      const j = await create(cronJob(uniq('patch.mine')));
      const r = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${j.id}`, { token: operator, params: { id: j.id }, body: { expectedVersion: 1, key: other.key } });
      expect(r.status).toBe(409);
      expect(r.json.error.fields.key).toBeTruthy();
      await call(job.PATCH, 'PATCH', `/api/v1/jobs/${j.id}`, { token: operator, params: { id: j.id }, body: { expectedVersion: 1, description: 'new' } });
      const stale = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${j.id}`, { token: operator, params: { id: j.id }, body: { expectedVersion: 1, name: 'late' } });
      expect(stale.status).toBe(409);
      expect(stale.json.error.detail).toMatchObject({ currentVersion: 2, changedFields: ['description'] });
      expect((await t.db.job.findUniqueOrThrow({ where: { id: j.id } })).name).toBe(`Job ${j.key}`);
    });
  });

  it('unknown and malformed ids answer 404 (never 500) on every :id route, with a good body or a bad one, writing nothing', async () => {
    const before = await counts();
    const routes: [string, RouteHandler, string, (id: string) => Record<string, string>, unknown][] = [
      ['GET /jobs/:id', job.GET, 'GET', (id) => ({ id }), undefined],
      ['PATCH /jobs/:id', job.PATCH, 'PATCH', (id) => ({ id }), { expectedVersion: 1, name: 'x' }],
      ['DELETE /jobs/:id', job.DELETE, 'DELETE', (id) => ({ id }), undefined],
      ['POST /jobs/:id/restore', restore.POST, 'POST', (id) => ({ id }), undefined],
      ['DELETE /jobs/:id/purge', purge.DELETE, 'DELETE', (id) => ({ id }), undefined],
      ['POST /jobs/:id/purge', purge.POST, 'POST', (id) => ({ id }), undefined],
      ['POST /jobs/:id/pause', pause.POST, 'POST', (id) => ({ id }), undefined],
      ['POST /jobs/:id/resume', resume.POST, 'POST', (id) => ({ id }), undefined],
      ['POST /jobs/:id/trigger', trigger.POST, 'POST', (id) => ({ id }), {}],
      ['GET /jobs/:id/versions', versions.GET, 'GET', (id) => ({ id }), undefined],
      ['GET /jobs/:id/versions/:v', version.GET, 'GET', (id) => ({ id, version: '1' }), undefined],
      ['GET /jobs/:id/diff', diff.GET, 'GET', (id) => ({ id }), undefined],
      ['POST /jobs/:id/rollback', rollback.POST, 'POST', (id) => ({ id }), { version: 1 }],
      ['PUT /jobs/:id/dag', dag.PUT, 'PUT', (id) => ({ id }), { steps: [{ key: 'a', handler: 'builtin.noop' }], expectedVersion: 1 }],
      ['GET /runs/:id', run.GET, 'GET', (id) => ({ id }), undefined],
      ['POST /runs/:id/cancel', cancelRun.POST, 'POST', (id) => ({ id }), undefined],
      ['POST /runs/:id/retry', retryRun.POST, 'POST', (id) => ({ id }), undefined],
      ['POST /tasks/:id/retry', retryTask.POST, 'POST', (id) => ({ id }), undefined],
      ['POST /tasks/:id/mark-success', markSuccess.POST, 'POST', (id) => ({ id }), { reason: 'checked by hand' }],
      ['POST /tasks/:id/clear', clearTaskRoute.POST, 'POST', (id) => ({ id }), {}],
      ['POST /jobs/:id/backfill', backfill.POST, 'POST', (id) => ({ id }), { from: '2026-01-01T00:00:00Z', to: '2026-01-01T01:00:00Z' }],
      ['POST /jobs/:id/backfill/preview', backfillPreview.POST, 'POST', (id) => ({ id }), { from: '2026-01-01T00:00:00Z', to: '2026-01-01T01:00:00Z' }],
      ['GET /jobs/:id/audit', audit.GET, 'GET', (id) => ({ id }), undefined],
      ['GET /jobs/:id/grid', grid.GET, 'GET', (id) => ({ id }), undefined],
      ['GET /jobs/:id/calendar', calendar.GET, 'GET', (id) => ({ id }), undefined],
      ['POST /workers/:id/drain', drain.POST, 'POST', (id) => ({ id }), undefined],
      ['POST /workers/:id/resume', resumeWorker.POST, 'POST', (id) => ({ id }), undefined],
      ['PATCH /users/:id', user.PATCH, 'PATCH', (id) => ({ id }), { role: 'viewer' }],
      ['DELETE /users/:id', user.DELETE, 'DELETE', (id) => ({ id }), undefined],
      ['DELETE /tokens/:id', token.DELETE, 'DELETE', (id) => ({ id }), undefined],
    ];
    for (const [label, h, method, params, body] of routes) {
      for (const id of [UNKNOWN, 'not-a-uuid', '12345', "x'; DROP TABLE jobs; --", 'ünïcødé', '00000000-0000-0000-0000-000000000000']) {
        const url = label.includes('/diff') ? `/api/v1/x?from=1&to=2` : '/api/v1/x';
        const r = await call(h, method, url, { token: admin, params: params(id), body, headers: method === 'GET' ? {} : { 'idempotency-key': uniq('404') } });
        expect(r.status, `${label} ${id}: ${JSON.stringify(r.json)}`).toBe(404);
        expect(r.json.error.code).toBe('not_found');
      }
      // a body that would be refused does not hide that the resource is not there: still a 404
      if (body !== undefined) {
        for (const id of [UNKNOWN, 'not-a-uuid']) {
          const r = await call(h, method, '/api/v1/x', { token: admin, params: params(id), body: { unknownField: true }, headers: { 'idempotency-key': uniq('404b') } });
          expect(r.status, `${label} ${id} with a bad body: ${JSON.stringify(r.json)}`).toBe(404);
        }
      }
    }
    expect(await counts()).toEqual(before);
  });

  describe('every route: a happy path and a bad input naming the field', () => {
    it('GET /health (public) and GET /openapi.json (public); a bad bearer token is a 401 even there', async () => {
      expect((await call(health.GET, 'GET', '/api/v1/health')).json).toMatchObject({ status: 'ok', database: 'ok' });
      const doc = await call(openapi.GET, 'GET', '/api/v1/openapi.json');
      expect(doc.status).toBe(200);
      expect(Object.keys(doc.json.paths)).toContain('/jobs/import');
      for (const h of [health.GET, openapi.GET]) {
        const r = await call(h, 'GET', '/api/v1/x', { token: 'garbage' });
        expect(r.status).toBe(401);
        expect(r.json.error.code).toBe('unauthorized');
      }
    });

    it('GET /schedule/preview', async () => {
      const r = await call(preview.GET, 'GET', '/api/v1/schedule/preview?cron=*/15%20*%20*%20*%20*&from=2026-01-01T00:00:00Z&count=2', { token: viewer });
      expect(r.json.fireTimes).toEqual(['2026-01-01T00:15:00.000Z', '2026-01-01T00:30:00.000Z']);
      expectField(await call(preview.GET, 'GET', '/api/v1/schedule/preview?cron=0%20*%20*%20*%20*&tz=Nowhere', { token: viewer }), 'tz');
    });

    it('GET /jobs and GET /recycle-bin', async () => {
      const j = await create(cronJob(uniq('list')));
      const l = await call(jobs.GET, 'GET', `/api/v1/jobs?q=${j.key}&status=active&scheduleKind=cron&sort=created_at&dir=desc&limit=5`, { token: viewer });
      expect(l.json.items.map((x: { id: string }) => x.id)).toEqual([j.id]);
      for (const [qs, field] of [
        ['status=sleeping', 'status.0'],
        ['scheduleKind=daily', 'scheduleKind.0'],
        ['sort=bogus', 'sort'],
        ['dir=up', 'dir'],
        ['limit=0', 'limit'],
        ['limit=201', 'limit'],
        ['cursor=not-a-cursor', 'cursor'],
      ]) {
        expectField(await call(jobs.GET, 'GET', `/api/v1/jobs?${qs}`, { token: viewer }), field, qs);
      }
      await call(job.DELETE, 'DELETE', `/api/v1/jobs/${j.id}`, { token: operator, params: { id: j.id } });
      const b = await call(bin.GET, 'GET', `/api/v1/recycle-bin?q=${j.key}`, { token: viewer });
      expect(b.json.items).toEqual([expect.objectContaining({ id: j.id, deletedBy: byToken('ops') })]);
      expectField(await call(bin.GET, 'GET', '/api/v1/recycle-bin?limit=abc', { token: viewer }), 'limit');
      expectField(await call(bin.GET, 'GET', '/api/v1/recycle-bin?cursor=zzz', { token: viewer }), 'cursor');
    });

    it('POST /jobs/bulk', async () => {
      const a = await create(cronJob(uniq('bulk')));
      const b = await create(cronJob(uniq('bulk')));
      const r = await call(bulk.POST, 'POST', '/api/v1/jobs/bulk', { token: operator, body: { action: 'pause', ids: [a.id, b.id] } });
      expect(r.status).toBe(200);
      expect(r.json.items.map((x: { status: string }) => x.status)).toEqual(['paused', 'paused']);
      const before = await counts();
      expectField(await call(bulk.POST, 'POST', '/api/v1/jobs/bulk', { token: operator, body: { action: 'explode', ids: [a.id] } }), 'action');
      expectField(await call(bulk.POST, 'POST', '/api/v1/jobs/bulk', { token: operator, body: { action: 'resume', ids: [] } }), 'ids');
      expectField(await call(bulk.POST, 'POST', '/api/v1/jobs/bulk', { token: operator, body: { action: 'resume', ids: [a.id, 'nope'] } }), 'ids.1');
      // a job named twice (in any case: ids are read in lower case) is refused at its second place, not merged
      const twice = await call(bulk.POST, 'POST', '/api/v1/jobs/bulk', { token: operator, body: { action: 'resume', ids: [a.id, b.id, a.id.toUpperCase()] } });
      expectField(twice, 'ids.2');
      expect(twice.json.error.fields['ids.2']).toContain('Listed twice');
      // a bad or missing action comes in one 400 with the body's other bad fields, not alone
      const all = await call(bulk.POST, 'POST', '/api/v1/jobs/bulk', { token: operator, body: { ids: [a.id, 'nope'], reasn: 'typo' } });
      expect(Object.keys(all.json.error.fields).sort()).toEqual(['action', 'ids.1', 'reasn']);
      expect(await counts()).toEqual(before);
      // an unknown id fails the whole batch (one transaction): nothing resumed
      const miss = await call(bulk.POST, 'POST', '/api/v1/jobs/bulk', { token: operator, body: { action: 'resume', ids: [a.id, UNKNOWN] } });
      expect(miss.status).toBe(404);
      expect((await t.db.job.findUniqueOrThrow({ where: { id: a.id } })).status).toBe('paused');
    });

    it('POST /jobs/import', async () => {
      // imported entries run `shell`: admin only (lib/jobs/handler-permissions.ts)
      const before0 = await counts();
      const op = await call(importRoute.POST, 'POST', '/api/v1/jobs/import', { token: operator, body: { text: '0 5 * * * /bin/true', timezone: 'UTC', keyPrefix: 'contract' } });
      expect(op.status).toBe(403);
      expect(await counts()).toEqual(before0);
      const r = await call(importRoute.POST, 'POST', '/api/v1/jobs/import', { token: admin, body: { text: '0 5 * * * /bin/true', timezone: 'UTC', keyPrefix: 'contract' } });
      expect(r.status).toBe(201);
      expect(r.json.created).toEqual([expect.objectContaining({ key: 'contract.l1.true', status: 'paused' })]);
      const before = await counts();
      expectField(await call(importRoute.POST, 'POST', '/api/v1/jobs/import', { token: admin, body: { text: '0 5 * * * /bin/true', timezone: 'Atlantis/Capital' } }), 'timezone');
      expectField(await call(importRoute.POST, 'POST', '/api/v1/jobs/import', { token: admin, body: { timezone: 'UTC' } }), 'text');
      expect(await counts()).toEqual(before);
    });

    it('GET, DELETE /jobs/:id with a reason; pause, resume, restore, purge', async () => {
      const j = await create(cronJob(uniq('life')));
      const g = await call(job.GET, 'GET', `/api/v1/jobs/${j.id}`, { token: viewer, params: { id: j.id } });
      expect(g.json).toMatchObject({ id: j.id, key: j.key, version: 1 });
      const before = await counts();
      for (const [h, m] of [
        [pause.POST, 'POST'],
        [resume.POST, 'POST'],
        [job.DELETE, 'DELETE'],
        [restore.POST, 'POST'],
      ] as const) {
        expectField(await call(h, m, '/api/v1/x', { token: operator, params: { id: j.id }, body: { reason: 'r'.repeat(1001) } }), 'reason', m);
      }
      expect(await counts()).toEqual(before);
      expect((await call(pause.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { reason: 'maintenance' } })).json.status).toBe('paused');
      expect((await call(resume.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id } })).json.status).toBe('active');
      const d = await call(job.DELETE, 'DELETE', '/api/v1/x', { token: operator, params: { id: j.id }, body: { reason: 'obsolete' } });
      expect(d.json).toMatchObject({ deletedBy: byToken('ops') });
      // purge refuses a live job; restore refuses a live job
      const live = await create(cronJob(uniq('live')));
      expect((await call(purge.DELETE, 'DELETE', '/api/v1/x', { token: operator, params: { id: live.id } })).status).toBe(409);
      expect((await call(restore.POST, 'POST', '/api/v1/x', { token: operator, params: { id: live.id } })).status).toBe(409);
      const rs = await call(restore.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { reason: 'needed after all' } });
      expect(rs.json.deletedAt).toBeNull();
      await call(job.DELETE, 'DELETE', '/api/v1/x', { token: operator, params: { id: j.id } });
      const pu = await call(purge.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id } });
      expect(pu.json).toMatchObject({ purged: true, id: j.id });
    });

    it('POST /jobs/:id/trigger', async () => {
      const j = await create({ ...cronJob(uniq('trig')), schedule: { kind: 'manual' } });
      const r = await call(trigger.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { payload: { override: true } } });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ jobId: j.id, trigger: 'api', outcome: 'started' });
      const before = await counts();
      expectField(await call(trigger.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { payload: [1] } }), 'payload');
      expectField(await call(trigger.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { payload: big(66_000) } }), 'payload');
      expect(await counts()).toEqual(before);
    });

    it('GET /jobs/:id/versions, /versions/:v, /diff; POST /rollback; PUT /dag', async () => {
      const j = await create(dagJob(uniq('ver')));
      await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 1, name: 'Second' } });
      const v = await call(versions.GET, 'GET', '/api/v1/x?limit=1', { token: viewer, params: { id: j.id } });
      expect(v.json.items).toEqual([expect.objectContaining({ version: 2, changeType: 'update' })]);
      expectField(await call(versions.GET, 'GET', '/api/v1/x?limit=0', { token: viewer, params: { id: j.id } }), 'limit');
      expect((await call(version.GET, 'GET', '/api/v1/x', { token: viewer, params: { id: j.id, version: '2' } })).json.snapshot.name).toBe('Second');
      expectField(await call(version.GET, 'GET', '/api/v1/x', { token: viewer, params: { id: j.id, version: 'abc' } }), 'version');
      expect((await call(version.GET, 'GET', '/api/v1/x', { token: viewer, params: { id: j.id, version: '99' } })).status).toBe(404);
      const d = await call(diff.GET, 'GET', '/api/v1/x?from=1&to=2', { token: viewer, params: { id: j.id } });
      expect(d.json.diff.fields).toEqual([{ path: 'name', from: `DAG ${j.key}`, to: 'Second' }]);
      expectField(await call(diff.GET, 'GET', '/api/v1/x?from=0&to=2', { token: viewer, params: { id: j.id } }), 'from');
      expectField(await call(diff.GET, 'GET', '/api/v1/x?from=1&to=x', { token: viewer, params: { id: j.id } }), 'to');
      expect((await call(diff.GET, 'GET', '/api/v1/x?from=1&to=50', { token: viewer, params: { id: j.id } })).status).toBe(404);

      const before = await counts();
      expectField(await call(rollback.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: {} }), 'version');
      expectField(await call(rollback.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { version: 1.5 } }), 'version');
      expectField(await call(dag.PUT, 'PUT', '/api/v1/x', { token: operator, params: { id: j.id }, body: { steps: [], expectedVersion: 1 } }), 'steps');
      expectField(
        await call(dag.PUT, 'PUT', '/api/v1/x', { token: operator, params: { id: j.id }, body: { steps: [{ key: 'a', handler: 'h' }, { key: 'b', handler: 'h' }], edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'a' }], expectedVersion: 1 } }),
        'edges',
      );
      expectField(await call(dag.PUT, 'PUT', '/api/v1/x', { token: operator, params: { id: j.id }, body: { steps: [{ key: 'a', handler: 'h', position: { x: 'left', y: 0 } }], expectedVersion: 1 } }), 'steps.0.position.x');
      expect(await counts()).toEqual(before);
      const stale = await call(dag.PUT, 'PUT', '/api/v1/x', { token: operator, params: { id: j.id }, body: { steps: [{ key: 'a', handler: 'h' }], expectedVersion: 1 } });
      expect(stale.status).toBe(409);

      const rb = await call(rollback.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { version: 1, reason: 'undo' } });
      expect(rb.json).toMatchObject({ version: 3, name: `DAG ${j.key}` });
      const dg = await call(dag.PUT, 'PUT', '/api/v1/x', {
        token: operator,
        params: { id: j.id },
        body: { steps: [{ key: 'a', handler: 'builtin.noop', position: { x: 1, y: 2 } }, { key: 'c', handler: 'builtin.echo' }], edges: [{ from: 'a', to: 'c', type: 'soft' }], expectedVersion: 3 },
      });
      expect(dg.status).toBe(200);
      expect(dg.json.edges).toEqual([expect.objectContaining({ from: 'a', to: 'c', type: 'soft' })]);
      expect(dg.json.version).toBe(4);
    });

    it('GET /runs, GET /runs/:id, POST cancel, retry; POST /tasks/:id/retry', async () => {
      const j = await create({ ...dagJob(uniq('runs')) });
      const tr = await call(trigger.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id } });
      const runId = tr.json.id;
      const l = await call(runs.GET, 'GET', `/api/v1/runs?jobId=${j.id}&status=pending,running&trigger=api&from=2000-01-01T00:00:00Z&limit=10`, { token: viewer });
      expect(l.json.items.map((r: { id: string }) => r.id)).toEqual([runId]);
      for (const [qs, field] of [
        ['jobId=demo.manual-report', 'jobId'],
        ['status=exploded', 'status.0'],
        ['trigger=cosmic', 'trigger.0'],
        ['from=yesterday', 'from'],
        ['to=2026-13-01', 'to'],
        ['limit=-1', 'limit'],
        ['cursor=@@', 'cursor'],
      ]) {
        expectField(await call(runs.GET, 'GET', `/api/v1/runs?${qs}`, { token: viewer }), field, qs);
      }
      const g = await call(run.GET, 'GET', '/api/v1/x', { token: viewer, params: { id: runId } });
      expect(g.json.tasks.map((x: { stepKey: string }) => x.stepKey).sort()).toEqual(['a', 'b']);
      // retrying a task that has not failed is refused (4xx), not a 500
      const ta = g.json.tasks.find((x: { stepKey: string }) => x.stepKey === 'a');
      const early = await call(retryTask.POST, 'POST', '/api/v1/x', { token: operator, params: { id: ta.id } });
      expect(early.status).toBe(409);
      expect(early.json.error).toMatchObject({ code: 'conflict', detail: { status: 'pending' } });
      expect((await t.db.task.findUniqueOrThrow({ where: { id: ta.id } })).attempt).toBe(ta.attempt);
      // these actions take no fields: an unknown one is refused by name and changes nothing
      const refused = await call(cancelRun.POST, 'POST', '/api/v1/x', { token: operator, params: { id: runId }, body: { force: true } });
      expectField(refused, 'force');
      expect(refused.json.error.fields.force).toBe('Unknown field');
      expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).not.toBe('cancelled');
      expectField(await call(retryRun.POST, 'POST', '/api/v1/x', { token: operator, params: { id: runId }, body: { bogus: 1 } }), 'bogus');
      expectField(await call(retryTask.POST, 'POST', '/api/v1/x', { token: operator, params: { id: ta.id }, body: { bogus: 1 } }), 'bogus');
      const cx = await call(cancelRun.POST, 'POST', '/api/v1/x', { token: operator, params: { id: runId }, body: {} });
      expect(cx.json.status).toBe('cancelled');
      const again = await call(cancelRun.POST, 'POST', '/api/v1/x', { token: operator, params: { id: runId } });
      expect(again.status).toBe(409);
      expect(again.json.error).toMatchObject({ code: 'conflict', detail: { status: 'cancelled' } });
      const rr = await call(retryRun.POST, 'POST', '/api/v1/x', { token: operator, params: { id: runId } });
      expect(rr.status).toBe(201);
      expect(rr.json).toMatchObject({ trigger: 'retry', parentRunId: runId });
      // a task of the cancelled run is not re-opened while its retry run is active (one run of a
      // job at a time: docs/recovery.md); once that run has ended, it can be (it re-opens)
      const busy = await call(retryTask.POST, 'POST', '/api/v1/x', { token: operator, params: { id: ta.id } });
      expect(busy.status).toBe(409);
      expect(busy.json.error).toMatchObject({ code: 'conflict', detail: { activeRunId: rr.json.id } });
      expect((await call(cancelRun.POST, 'POST', '/api/v1/x', { token: operator, params: { id: rr.json.id } })).json.status).toBe('cancelled');
      const rt = await call(retryTask.POST, 'POST', '/api/v1/x', { token: operator, params: { id: ta.id } });
      expect(rt.status).toBe(200);
      expect(rt.json.tasks.find((x: { stepKey: string }) => x.stepKey === 'a')).toMatchObject({ status: 'pending' });
      expect((await t.db.task.findUniqueOrThrow({ where: { id: ta.id } })).status).toBe('pending');
    });

    it('GET /workers, POST /workers/:id/drain', async () => {
      await t.pool.query(`INSERT INTO worker_nodes (node_id, name, host, pid) VALUES ('contract-node', 'w', 'h', 1)`);
      const w = await call(workers.GET, 'GET', '/api/v1/workers', { token: viewer });
      expect(w.json.items).toEqual(expect.arrayContaining([expect.objectContaining({ nodeId: 'contract-node', status: 'online' })]));
      const d = await call(drain.POST, 'POST', '/api/v1/x', { token: operator, params: { id: 'contract-node' }, body: { confirmLastWorker: true } });
      expect(d.json.status).toBe('draining');
      expectField(await call(drain.POST, 'POST', '/api/v1/x', { token: operator, params: { id: 'contract-node' }, body: { confirmLastWorker: 'yes' } }), 'confirmLastWorker');
      expect((await call(resumeWorker.POST, 'POST', '/api/v1/x', { token: operator, params: { id: 'contract-node' } })).json.status).toBe('online');
      // a node id no worker can have (over 200 characters) names no worker: a 404, as a malformed job id is
      const long = await call(drain.POST, 'POST', '/api/v1/x', { token: operator, params: { id: 'n'.repeat(201) } });
      expect(long.status).toBe(404);
      expect(long.json.error.message).toBe('Worker not found');
    });

    it('GET /workers lists every live node but only the newest ended ones, saying how many it left out', async () => {
      await t.pool.query(
        `INSERT INTO worker_nodes (node_id, name, host, pid, status, last_heartbeat_at)
         SELECT 'gone-' || g, 'w', 'h', g, CASE WHEN g % 2 = 0 THEN 'stopped' ELSE 'offline' END::node_status, now() - g * interval '1 minute'
           FROM generate_series(1, $1::int + 30) g`,
        [ENDED_WORKERS_LISTED],
      );
      await t.pool.query(`INSERT INTO worker_nodes (node_id, name, host, pid, last_heartbeat_at) VALUES ('live-late', 'w', 'h', 1, now() - interval '1 day')`);
      const ended = Number((await t.pool.query(`SELECT count(*) FROM worker_nodes WHERE status IN ('offline', 'stopped')`)).rows[0].count);
      const w = await call(workers.GET, 'GET', '/api/v1/workers', { token: viewer });
      const items = w.json.items as { nodeId: string; status: string }[];
      expect(items.filter((x) => x.status === 'offline' || x.status === 'stopped')).toHaveLength(ENDED_WORKERS_LISTED);
      expect(w.json.endedNotListed).toBe(ended - ENDED_WORKERS_LISTED);
      expect(items.map((x) => x.nodeId)).toContain('live-late');
      expect(items.map((x) => x.nodeId)).toContain('gone-1');
      expect(items.map((x) => x.nodeId)).not.toContain(`gone-${ENDED_WORKERS_LISTED + 30}`);
      // online and draining first, then offline, then stopped
      const order = ['online', 'draining', 'offline', 'stopped'];
      const ranks = items.map((x) => order.indexOf(x.status));
      expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
      await t.pool.query(`DELETE FROM worker_nodes WHERE node_id LIKE 'gone-%' OR node_id = 'live-late'`);
    });

    it('GET /handlers lists built-ins and advertised handlers with their input schema; needs credentials', async () => {
      await t.pool.query(
        `INSERT INTO worker_nodes (node_id, name, host, pid, handlers, handler_specs) VALUES ('contract-h', 'w', 'h', 1, '{report.build}', $1)`,
        [JSON.stringify({ 'report.build': { description: 'Builds a report', inputSchema: { type: 'object', properties: { day: { type: 'string' } } } } })],
      );
      const h = await call(handlersRoute.GET, 'GET', '/api/v1/handlers', { token: viewer });
      expect(h.status).toBe(200);
      expect(h.json.items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'grpc', builtin: true }),
          expect.objectContaining({ name: 'report.build', builtin: false, description: 'Builds a report', available: true, inputSchema: { type: 'object', properties: { day: { type: 'string' } } } }),
        ]),
      );
      expect((await call(handlersRoute.GET, 'GET', '/api/v1/handlers')).status).toBe(401);
    });

    it('GET /jobs/:id/grid, GET /jobs/:id/calendar, GET /stats/series', async () => {
      const job = await create(dagJob(uniq('views')));
      const g = await call(grid.GET, 'GET', '/api/v1/x?limit=10', { token: viewer, params: { id: job.id } });
      expect(g.status).toBe(200);
      expect(g.json).toMatchObject({ jobId: job.id, runs: [], steps: ['a', 'b'], nextCursor: null });
      expectField(await call(grid.GET, 'GET', '/api/v1/x?limit=0', { token: viewer, params: { id: job.id } }), 'limit');
      const c = await call(calendar.GET, 'GET', '/api/v1/x?tz=Asia/Tokyo&to=2026-03-02', { token: viewer, params: { id: job.id } });
      expect(c.status).toBe(200);
      expect(c.json).toMatchObject({ timeZone: 'Asia/Tokyo', from: '2025-03-02', to: '2026-03-02', days: [] });
      expectField(await call(calendar.GET, 'GET', '/api/v1/x?tz=Nowhere/City', { token: viewer, params: { id: job.id } }), 'tz');
      expectField(await call(calendar.GET, 'GET', '/api/v1/x?to=2026-13-01', { token: viewer, params: { id: job.id } }), 'to');
      const sh = await call(series.GET, 'GET', `/api/v1/stats/series?granularity=hour&jobId=${job.id}`, { token: viewer });
      expect(sh.status).toBe(200);
      expect(sh.json).toMatchObject({ granularity: 'hour', jobId: job.id });
      expect(sh.json.daily).toHaveLength(48);
      const sd = await call(series.GET, 'GET', '/api/v1/stats/series?from=2026-01-01&to=2026-01-07', { token: viewer });
      expect(sd.status).toBe(200);
      expect(sd.json.daily).toHaveLength(7);
      expectField(await call(series.GET, 'GET', '/api/v1/stats/series?granularity=week', { token: viewer }), 'granularity');
      expectField(await call(series.GET, 'GET', '/api/v1/stats/series?granularity=hour&hours=169', { token: viewer }), 'hours');
      expectField(await call(series.GET, 'GET', '/api/v1/stats/series?granularity=hour&from=2026-01-01', { token: viewer }), 'from');
      expectField(await call(series.GET, 'GET', '/api/v1/stats/series?from=2026-01-08&to=2026-01-07', { token: viewer }), 'to');
      expectField(await call(series.GET, 'GET', '/api/v1/stats/series?jobId=x&from=2026-01-01&to=2026-01-07', { token: viewer }), 'jobId');
      // a filter naming no job matches nothing, as on every list (README "REST")
      const none = await call(series.GET, 'GET', `/api/v1/stats/series?jobId=${UNKNOWN}&from=2026-01-01&to=2026-01-07`, { token: viewer });
      expect([none.status, none.json.jobId, none.json.daily.length]).toEqual([200, UNKNOWN, 7]);
    });

    it('GET /stats/daily, GET /stats/overview, GET /alarms, POST /alarms/test', async () => {
      const s = await call(daily.GET, 'GET', '/api/v1/stats/daily?from=2026-01-01&to=2026-01-07', { token: viewer });
      expect(s.status).toBe(200);
      expect(s.json).toMatchObject({ from: '2026-01-01', to: '2026-01-07', days: [], handlers: [] });
      expectField(await call(daily.GET, 'GET', '/api/v1/stats/daily?from=2026-02-30&to=2026-03-01', { token: viewer }), 'from');
      expectField(await call(daily.GET, 'GET', '/api/v1/stats/daily?from=2026-03-02&to=2026-03-01', { token: viewer }), 'to');
      const ancient = await call(daily.GET, 'GET', '/api/v1/stats/daily?from=0001-01-01&to=0001-01-02', { token: viewer });
      expectField(ancient, 'from');
      expect(ancient.json.error.fields.from).toBe('Must be a date YYYY-MM-DD from 1970-01-01 to 2999-12-31');
      const o = await call(overview.GET, 'GET', '/api/v1/stats/overview', { token: viewer });
      expect(o.status).toBe(200);
      // overview takes no input: credentials are what it checks
      expect((await call(overview.GET, 'GET', '/api/v1/stats/overview')).status).toBe(401);
      const ta = await call(testAlarm.POST, 'POST', '/api/v1/alarms/test', { token: operator, body: { channel: { type: 'log', target: '' } } });
      expect(ta.status).toBe(201);
      const before = await t.db.alarm.count();
      expectField(await call(testAlarm.POST, 'POST', '/api/v1/alarms/test', { token: operator, body: { channel: { type: 'webhook', target: 'ftp://x' } } }), 'channel.target');
      expectField(await call(testAlarm.POST, 'POST', '/api/v1/alarms/test', { token: operator, body: { channel: { type: 'pager' } } }), 'channel.type');
      expect(await t.db.alarm.count()).toBe(before);
      const a = await call(alarms.GET, 'GET', '/api/v1/alarms?limit=5', { token: viewer });
      expect(a.json.items.length).toBeGreaterThanOrEqual(1);
      for (const [qs, field] of [
        ['type=bogus', 'type.0'],
        ['status=bogus', 'status.0'],
        ['limit=0', 'limit'],
        ['before=yesterday', 'before'],
      ]) {
        expectField(await call(alarms.GET, 'GET', `/api/v1/alarms?${qs}`, { token: viewer }), field, qs);
      }
    });

    it('GET, POST /users; PATCH, DELETE /users/:id; GET, POST /tokens; DELETE /tokens/:id', async () => {
      const u = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { email: 'contract@example.com', password: 'longenough', role: 'viewer', name: 'C' } });
      expect(u.status).toBe(201);
      expect((await call(users.GET, 'GET', '/api/v1/users', { token: admin })).json.items.map((x: { email: string }) => x.email)).toContain('contract@example.com');
      const usersBefore = await t.db.user.count();
      for (const [body, field] of [
        [{ email: 'x', password: 'longenough', role: 'viewer' }, 'email'],
        [{ email: 'a@b.io', password: 'short', role: 'viewer' }, 'password'],
        [{ email: 'a@b.io', password: 'longenough', role: 'root' }, 'role'],
        [{ email: 'a@b.io', password: 'longenough', role: 'viewer', name: 'n'.repeat(201) }, 'name'],
      ] as const) {
        expectField(await call(users.POST, 'POST', '/api/v1/users', { token: admin, body }), field);
      }
      const dup = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { email: 'CONTRACT@example.com', password: 'longenough', role: 'viewer' } });
      expect(dup.status).toBe(409);
      expect(await t.db.user.count()).toBe(usersBefore);
      const id = u.json.id;
      expect((await call(user.PATCH, 'PATCH', '/api/v1/x', { token: admin, params: { id }, body: { role: 'operator', disabled: true } })).json).toMatchObject({ role: 'operator' });
      for (const [body, field] of [
        [{ role: 'god' }, 'role'],
        [{ disabled: 'yes' }, 'disabled'],
        [{ password: 'short' }, 'password'],
      ] as const) {
        expectField(await call(user.PATCH, 'PATCH', '/api/v1/x', { token: admin, params: { id }, body }), field);
      }
      expect((await t.db.user.findUniqueOrThrow({ where: { id } })).role).toBe('operator');
      expect((await call(user.DELETE, 'DELETE', '/api/v1/x', { token: admin, params: { id } })).json).toMatchObject({ deleted: true });

      const tk = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { name: 'contract', scope: 'operate', expiresAt: '2099-01-01T00:00:00Z' } });
      expect(tk.status).toBe(201);
      expect((await call(tokens.GET, 'GET', '/api/v1/tokens', { token: admin })).json.items.map((x: { name: string }) => x.name)).toContain('contract');
      const tokensBefore = await t.db.apiToken.count();
      for (const [body, field] of [
        [{ name: '', scope: 'read' }, 'name'],
        [{ name: 'x', scope: 'superuser' }, 'scope'],
        [{ name: 'x', scope: 'read', expiresAt: 'next week' }, 'expiresAt'],
        [{ name: 'x', scope: 'read', role: 'viewer' }, 'role'],
      ] as const) {
        expectField(await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body }), field);
      }
      expect(await t.db.apiToken.count()).toBe(tokensBefore);
      expect((await call(token.DELETE, 'DELETE', '/api/v1/x', { token: admin, params: { id: tk.json.id } })).json.revokedAt).toBeTruthy();
    });
  });

  describe('hostile input: NUL, depth, int4, unknown fields, no-op updates, never-firing schedules, CSRF', () => {
    const NUL = '\u0000';
    const post = (body: unknown, headers: Record<string, string> = {}) => call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body, headers });

    it.each([
      ['name', { name: `a${NUL}b` }, 'name'],
      ['description', { description: `d${NUL}` }, 'description'],
      ['payload value', { payload: { a: `x${NUL}y` } }, 'payload.a'],
      ['payload nested in an array', { payload: { a: [{ b: NUL }] } }, 'payload.a.0.b'],
      ['payload key', { payload: { [`k${NUL}`]: 1 } }, `payload.k${NUL}`],
      ['schedule.cron', { schedule: { kind: 'cron', cron: `0 2 * * *${NUL}`, timezone: 'UTC' } }, 'schedule.cron'],
      ['routing.labels value', { routing: { labels: { zone: `eu${NUL}` } } }, 'routing.labels.zone'],
    ] as const)('M1 POST /jobs with NUL in %s -> 400 at the exact path, nothing written', async (_l, patch, field) => {
      const before = await counts();
      const r = await post({ ...cronJob(uniq('nul')), ...patch });
      expectField(r, field);
      expect(r.json.error.fields[field]).toMatch(/must not contain the NUL character \(\\u0000\)$/i);
      expect(await counts()).toEqual(before);
    });

    it('M1 NUL in a step payload, a trigger payload, and list queries -> 400 (never 500)', async () => {
      const before = await counts();
      expectField(await post({ ...dagJob(uniq('nul.dag')), steps: [{ key: 'a', handler: 'h', config: { c: NUL } }, { key: 'b', handler: 'h' }] }), 'steps.0.config.c');
      expect(await counts()).toEqual(before);
      const j = await create(cronJob(uniq('nul.trigger')));
      const runsBefore = await t.db.run.count();
      expectField(await call(trigger.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { payload: { a: NUL } } }), 'payload.a');
      expect(await t.db.run.count()).toBe(runsBefore);
      expectField(await call(jobs.GET, 'GET', '/api/v1/jobs?q=%00', { token: viewer }), 'q');
      expectField(await call(bin.GET, 'GET', '/api/v1/recycle-bin?q=%00', { token: viewer }), 'q');
      expectField(await call(runs.GET, 'GET', '/api/v1/runs?jobId=%00', { token: viewer }), 'jobId');
      expectField(await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 1, reason: NUL } }), 'reason');
    });

    it('M2 a payload nested 5000 levels -> 400 at payload naming the limit; 64 levels is fine', async () => {
      // built as text: JSON.stringify itself overflows the stack on such a value
      const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
      const before = await counts();
      const r = await call(jobs.POST, 'POST', '/api/v1/jobs', {
        token: operator,
        rawBody: JSON.stringify(cronJob(uniq('deep'))).replace('"payload":{"x":1}', `"payload":${deep}`),
        headers: { 'content-type': 'application/json' },
      });
      expectField(r, 'payload');
      expect(r.json.error.fields.payload).toMatch(/64 levels/);
      expect(await counts()).toEqual(before);
      let ok: unknown = 1;
      for (let i = 0; i < 63; i++) ok = { a: ok };
      expect((await post({ ...cronJob(uniq('deep.ok')), payload: ok })).status).toBe(201);
    });

    it('a lone UTF-16 surrogate or a number beyond ±1.8e308 anywhere -> 400 at the exact path (PostgreSQL refuses the first, the second would be stored as null)', async () => {
      const j = await create(cronJob(uniq('sur.trigger')));
      const before = await counts();
      // raw JSON text: the \\udfff escape is what a client sends; JSON.parse turns it into a lone surrogate
      const raw = (payload: string) => call(jobs.POST, 'POST', '/api/v1/jobs', {
        token: operator,
        rawBody: JSON.stringify(cronJob(uniq('sur'))).replace('"payload":{"x":1}', `"payload":${payload}`),
        headers: { 'content-type': 'application/json' },
      });
      for (const [payload, field, message] of [
        ['{"x":"\\udfff"}', 'payload.x', /unpaired UTF-16 surrogate/],
        // The key is named escaped (`\uD800` as six characters): the error itself must be valid Unicode.
        ['{"\\ud800":1}', 'payload.\\uD800', /Field name must not contain an unpaired UTF-16 surrogate/],
        ['{"a":[1,{"b":"ok \\ud83d"}]}', 'payload.a.1.b', /unpaired UTF-16 surrogate/],
        ['{"x":1e400}', 'payload.x', /finite number/],
        ['{"__proto__":{"polluted":1},"y":2}', 'payload.__proto__', /__proto__ is not allowed/],
      ] as const) {
        const r = await raw(payload);
        expectField(r, field, payload);
        expect(r.json.error.fields[field], payload).toMatch(message);
      }
      expectField(await post({ ...cronJob(uniq('sur.name')), name: 'n \udfff' }), 'name');
      expectField(await call(trigger.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { payload: { a: '\ud800' } } }), 'payload.a');
      expect(await counts()).toEqual(before);
      // a well-formed pair (an emoji) is fine
      expect((await post({ ...cronJob(uniq('sur.ok')), payload: { e: '\ud83d\ude00' } })).status).toBe(201);
    });

    it('a payload nested 100,000 levels is refused at payload like 5,000 levels (the scan is linear, not quadratic)', async () => {
      const deep = '['.repeat(100_000) + ']'.repeat(100_000);
      const r = await call(jobs.POST, 'POST', '/api/v1/jobs', {
        token: operator,
        rawBody: JSON.stringify(cronJob(uniq('deeper'))).replace('"payload":{"x":1}', `"payload":{"a":${deep}}`),
        headers: { 'content-type': 'application/json' },
      });
      expectField(r, 'payload');
      expect(r.json.error.fields.payload).toMatch(/64 levels/);
    });

    it('M2 path and query integers are 1..2147483647 ("must be a positive integer"), never a 500', async () => {
      const j = await create(cronJob(uniq('int4')));
      for (const v of ['2147483648', 'abc', '0', '-1', '1.5']) {
        const r = await call(version.GET, 'GET', '/api/v1/x', { token: viewer, params: { id: j.id, version: v } });
        expectField(r, 'version', v);
        expect(r.json.error.fields.version, v).toMatch(/positive integer|at most 2147483647/);
      }
      expect((await call(version.GET, 'GET', '/api/v1/x', { token: viewer, params: { id: j.id, version: '2147483647' } })).status).toBe(404);
      // too large is what a number past int4 (or past 2^53, no safe integer either) is
      for (const v of ['2147483648', '9007199254740993', '99999999999999999999']) {
        const r = await call(version.GET, 'GET', '/api/v1/x', { token: viewer, params: { id: j.id, version: v } });
        expect(r.json.error.fields?.version, v).toBe('Must be at most 2147483647');
      }
      // a job that does not exist is a 404 whatever the version says (lib/api/missing-resource.ts)
      for (const id of ['abc', '7c1e0d7e-1111-4222-8333-444455556666']) {
        expect((await call(version.GET, 'GET', '/api/v1/x', { token: viewer, params: { id, version: '0' } })).status, id).toBe(404);
      }
      expectField(await call(diff.GET, 'GET', `/api/v1/jobs/${j.id}/diff?from=1&to=2147483648`, { token: viewer, params: { id: j.id } }), 'to');
      expectField(await call(diff.GET, 'GET', `/api/v1/jobs/${j.id}/diff?from=x&to=1`, { token: viewer, params: { id: j.id } }), 'from');
      expectField(await call(rollback.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { version: 2147483648 } }), 'version');
      expectField(await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 2147483648, name: 'x' } }), 'expectedVersion');
      expectField(await call(jobs.GET, 'GET', '/api/v1/jobs?limit=99999999999', { token: viewer }), 'limit');
    });

    it('M4 unknown fields are a 400 naming them ("Unknown field"); free-form payload/config/labels keep any key', async () => {
      const before = await counts();
      const r = await post({ ...dagJob(uniq('strict')), edges: [{ from: 'a', to: 'b', kind: 'soft' }] });
      expectField(r, 'edges.0.kind');
      expect(r.json.error.fields['edges.0.kind']).toBe('Unknown field');
      expectField(await post({ ...cronJob(uniq('strict')), scheduel: {} }), 'scheduel');
      expectField(await post({ ...cronJob(uniq('strict')), schedule: { kind: 'cron', cron: '* * * * *', tz: 'UTC' } }), 'schedule.tz');
      expectField(await post({ ...cronJob(uniq('strict')), policy: { retries: 3 } }), 'policy.retries');
      expect(await counts()).toEqual(before);
      const free = await post({ ...cronJob(uniq('strict.free')), payload: { anything: { goes: true } }, routing: { labels: { any: 'label' } } });
      expect(free.status).toBe(201);

      const j = await create(cronJob(uniq('strict.patch')));
      const p = await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 1, status: 'dead_letter' } });
      expectField(p, 'status');
      expect((await t.db.job.findUniqueOrThrow({ where: { id: j.id } })).status).toBe('active');
      expectField(await call(pause.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { reasn: 'typo' } }), 'reasn');
      expectField(await call(trigger.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id }, body: { paylod: {} } }), 'paylod');
      expectField(await call(bulk.POST, 'POST', '/api/v1/jobs/bulk', { token: operator, body: { action: 'pause', ids: [j.id], force: true } }), 'force');

      const u = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { email: 'strict@example.com', password: 'longenough', role: 'viewer' } });
      const up = await call(user.PATCH, 'PATCH', '/api/v1/x', { token: admin, params: { id: u.json.id }, body: { email: 'bad' } });
      expectField(up, 'email');
      expectField(await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { name: 'x', scope: 'all' } }), 'scope');
    });

    it('M4 the routes that take no body refuse any field (purge, user delete, token revoke, unsilence) and change nothing', async () => {
      // a `reason` or a typo sent to them was silently dropped while the action went through
      const j = await create(cronJob(uniq('nobody.purge')));
      expect((await call(job.DELETE, 'DELETE', '/api/v1/x', { token: operator, params: { id: j.id } })).status).toBe(200);
      const u = await call(users.POST, 'POST', '/api/v1/users', { token: admin, body: { email: `${uniq('nobody')}@example.com`, password: 'longenough', role: 'viewer' } });
      const tk = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { name: 'nobody', scope: 'read', ownerId: u.json.id } });
      const si = await call(silencesRoute.POST, 'POST', '/api/v1/alarms/silences', { token: operator, body: { type: 'failure', durationMinutes: 60 } });
      expect([u.status, tk.status, si.status]).toEqual([201, 201, 201]);
      const cases: [string, RouteHandler, string, string][] = [
        ['DELETE /jobs/:id/purge', purge.DELETE, 'DELETE', j.id],
        ['POST /jobs/:id/purge', purge.POST, 'POST', j.id],
        ['DELETE /tokens/:id', token.DELETE, 'DELETE', tk.json.id],
        ['DELETE /alarms/silences/:id', silence.DELETE, 'DELETE', si.json.id],
        // last: deleting the user deletes its tokens
        ['DELETE /users/:id', user.DELETE, 'DELETE', u.json.id],
      ];
      for (const [label, handler, method, id] of cases) {
        const r = await call(handler, method, '/api/v1/x', { token: admin, params: { id }, body: { reason: 'cleanup' } });
        expectField(r, 'reason', label);
        expect(r.json.error.fields.reason, label).toBe('Unknown field');
      }
      expect((await t.db.job.findUnique({ where: { id: j.id } }))?.deletedAt).toBeTruthy();
      expect(await t.db.user.findUnique({ where: { id: u.json.id } })).not.toBeNull();
      expect((await t.db.apiToken.findUniqueOrThrow({ where: { id: tk.json.id } })).revokedAt).toBeNull();
      expect((await t.db.alarmSilence.findUniqueOrThrow({ where: { id: si.json.id } })).endedAt).toBeNull();
      // without a body, or with `{}`, each still does its work
      for (const [label, handler, method, id] of cases.filter(([l]) => l !== 'POST /jobs/:id/purge')) {
        const r = await call(handler, method, '/api/v1/x', { token: admin, params: { id }, ...(label.includes('tokens') ? { body: {} } : {}) });
        expect(r.status, `${label}: ${JSON.stringify(r.json)}`).toBe(200);
      }
    });

    it('M4 a token, silence or worker that does not exist is a 404 whatever the body holds, as a job, run or user is', async () => {
      const missing = '5b4c3f6e-0000-4000-8000-000000000000';
      for (const [label, handler, method, id] of [
        ['DELETE /tokens/:id', token.DELETE, 'DELETE', missing],
        ['DELETE /alarms/silences/:id', silence.DELETE, 'DELETE', missing],
        ['POST /workers/:id/drain', drain.POST, 'POST', 'no-such-node'],
        ['POST /workers/:id/resume', resumeWorker.POST, 'POST', 'no-such-node'],
      ] as [string, RouteHandler, string, string][]) {
        const r = await call(handler, method, '/api/v1/x', { token: admin, params: { id }, body: { bogus: 1 } });
        expect(r.status, `${label}: ${JSON.stringify(r.json)}`).toBe(404);
        expect(r.json.error.code, label).toBe('not_found');
      }
      // a node id no worker can have is not echoed (a lone surrogate would make the answer invalid Unicode)
      for (const id of ['\uD800', 'n'.repeat(201)]) {
        const r = await call(drain.POST, 'POST', '/api/v1/x', { token: admin, params: { id }, body: { bogus: 1 } });
        expect([r.status, r.json.error.message]).toEqual([404, 'Worker not found']);
      }
      // an existing worker with the same body: the field is named
      await t.pool.query(`INSERT INTO worker_nodes (node_id, name, host, pid) VALUES ('body-node', 'w', 'h', 1) ON CONFLICT DO NOTHING`);
      expectField(await call(resumeWorker.POST, 'POST', '/api/v1/x', { token: admin, params: { id: 'body-node' }, body: { bogus: 1 } }), 'bogus');
    });

    it('M4 an update that changes nothing creates no version: 200 with the unchanged job', async () => {
      const j = await create(cronJob(uniq('noop')));
      const versionsOf = () => t.db.jobVersion.count({ where: { jobId: j.id } });
      const empty = await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 1 } });
      expect(empty.status).toBe(200);
      expect(empty.json).toMatchObject({ id: j.id, version: 1 });
      const same = await call(job.PATCH, 'PATCH', '/api/v1/x', {
        token: operator,
        params: { id: j.id },
        body: { expectedVersion: 1, name: `Job ${j.key}`, schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'Asia/Shanghai' }, handler: 'builtin.echo', payload: { x: 1 }, policy: { maxRetries: 0 } },
      });
      expect(same.status).toBe(200);
      expect(same.json.version).toBe(1);
      expect(await versionsOf()).toBe(1);
      expect((await t.db.job.findUniqueOrThrow({ where: { id: j.id } })).version).toBe(1);
      const changed = await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 1, name: 'Renamed' } });
      expect(changed.json.version).toBe(2);
      expect(await versionsOf()).toBe(2);
      // saving the same DAG again is a no-op too
      const d = await create(dagJob(uniq('noop.dag')));
      const g = (await call(job.GET, 'GET', '/api/v1/x', { token: viewer, params: { id: d.id } })).json;
      const again = await call(dag.PUT, 'PUT', '/api/v1/x', { token: operator, params: { id: d.id }, body: { steps: g.steps, edges: g.edges, expectedVersion: 1 } });
      expect(again.status).toBe(200);
      expect(again.json.version).toBe(1);
    });

    it('M5 schedules that can never fire are refused on create and on schedule/window updates', async () => {
      const before = await counts();
      const past = { schedule: { kind: 'once', runAt: '2001-01-01T00:00:00Z' } };
      const r1 = await post({ ...cronJob(uniq('never')), ...past });
      expectField(r1, 'schedule.runAt');
      expect(r1.json.error.fields['schedule.runAt']).toMatch(/in the past/);
      const r2 = await post({ ...cronJob(uniq('never')), schedule: { kind: 'cron', cron: '0 0 0 1 1 * 2001', timezone: 'UTC' } });
      expectField(r2, 'schedule.cron');
      expect(r2.json.error.fields['schedule.cron']).toMatch(/no fire time after now/i);
      const r3 = await post({ ...cronJob(uniq('never')), endAt: '2001-01-01T00:00:00Z' });
      expectField(r3, 'endAt');
      expect(r3.json.error.fields.endAt).toMatch(/in the past/i);
      // (future years far off: once the window's end is past, the refusal is "in the past" instead)
      const r4 = await post({ ...cronJob(uniq('never')), schedule: { kind: 'once', runAt: '2091-06-01T00:00:00Z' }, startAt: '2090-01-01T00:00:00Z', endAt: '2090-02-01T00:00:00Z' });
      expectField(r4, 'endAt');
      expect(r4.json.error.fields.endAt).toMatch(/startAt\.\.endAt/);
      const r5 = await post({ ...cronJob(uniq('never')), schedule: { kind: 'cron', cron: '0 0 0 1 1 * 2090', timezone: 'UTC' }, endAt: '2089-01-01T00:00:00Z' });
      expectField(r5, 'endAt');
      expect(await counts()).toEqual(before);
      // manual jobs never "fire" and are fine; a future once is fine
      expect((await post({ ...cronJob(uniq('manual')), schedule: { kind: 'manual' } })).status).toBe(201);
      expect((await post({ ...cronJob(uniq('future')), schedule: { kind: 'once', runAt: '2099-01-01T00:00:00Z' } })).status).toBe(201);
      // a once job keeps the zone its run-at was written in (for showing it), in its canonical spelling; the instant is as given
      const zoned = await post({ ...cronJob(uniq('future.zoned')), schedule: { kind: 'once', runAt: '2099-01-01T00:00:00+09:00', timezone: 'asia/tokyo' } });
      expect(zoned.status).toBe(201);
      expect(zoned.json.schedule).toEqual({ kind: 'once', runAt: '2098-12-31T15:00:00.000Z', timezone: 'Asia/Tokyo' });
      expect(zoned.json.timezone).toBe('Asia/Tokyo');
      // the preview still answers (an empty list) for the exhausted year
      const pv = await call(preview.GET, 'GET', `/api/v1/schedule/preview?cron=${encodeURIComponent('0 0 0 1 1 * 2001')}`, { token: viewer });
      expect(pv.status).toBe(200);
      expect(pv.json.fireTimes).toEqual([]);
      // updates: refused when they touch the schedule/window, also for a paused job; other edits still work
      const j = await create(cronJob(uniq('never.patch')));
      const patchBefore = await counts();
      expectField(await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 1, ...past } }), 'schedule.runAt');
      expectField(await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 1, endAt: '2001-01-01T00:00:00Z' } }), 'endAt');
      await call(pause.POST, 'POST', '/api/v1/x', { token: operator, params: { id: j.id } });
      const v = (await t.db.job.findUniqueOrThrow({ where: { id: j.id } })).version;
      const afterPause = await counts();
      expectField(await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: v, ...past } }), 'schedule.runAt');
      expect(await counts()).toEqual(afterPause);
      expect(afterPause.jobs).toBe(patchBefore.jobs);
      expect((await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: v, name: 'still editable' } })).status).toBe(200);
    });

    it('M6 PUT /jobs/:id/dag requires expectedVersion', async () => {
      const j = await create(dagJob(uniq('dag.lock')));
      const before = await counts();
      const r = await call(dag.PUT, 'PUT', '/api/v1/x', { token: operator, params: { id: j.id }, body: { steps: [{ key: 'a', handler: 'builtin.noop' }] } });
      expectField(r, 'expectedVersion');
      expect(r.json.error.fields.expectedVersion).toMatch(/required/);
      expect(await counts()).toEqual(before);
    });

    it('M7 cookie-authenticated writes must be same-origin JSON; bearer tokens are unaffected', async () => {
      const { createUser } = await import('../../lib/auth/users.ts');
      const { createSession } = await import('../../lib/auth/sessions.ts');
      const u = await createUser(t.db, { email: 'csrf@example.com', password: 'longenough', role: 'operator' }, SYSTEM_ACTOR);
      const s = await createSession(t.db, u.id);
      const cookie = `tickflow_session=${s.id}`;
      const body = JSON.stringify(cronJob(uniq('csrf')));
      const send = (headers: Record<string, string>) => jobs.POST(new Request('http://localhost/api/v1/jobs', { method: 'POST', body, headers: { cookie, ...headers } }));
      const before = await counts();
      for (const headers of <Record<string, string>[]>[
        { origin: 'https://evil.example', 'content-type': 'text/plain' },
        { origin: 'https://evil.example', 'content-type': 'application/json' },
        { 'content-type': 'text/plain' },
        { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
        { origin: 'http://localhost.evil.example', 'content-type': 'application/json' },
      ]) {
        const r = await send(headers);
        expect(r.status, JSON.stringify(headers)).toBe(403);
        expect(await r.json()).toEqual({ error: { code: 'forbidden', message: 'cross-origin request refused' } });
      }
      expect(await counts()).toEqual(before);
      // same origin (Origin = own host, or via X-Forwarded-Host/Proto behind a proxy, or Sec-Fetch-Site same-origin): accepted
      expect((await send({ origin: 'http://localhost', 'content-type': 'application/json' })).status).toBe(201);
      // X-Forwarded-Host / -Proto count only from a trusted proxy's address (lib/auth/client-address.ts)
      const viaProxy = (key: string, peer: string) =>
        jobs.POST(
          new Request('http://localhost/api/v1/jobs', {
            method: 'POST',
            body: JSON.stringify(cronJob(uniq(key))),
            headers: { cookie, [PEER_ADDRESS_HEADER]: peer, origin: 'https://tickflow.example', 'x-forwarded-host': 'tickflow.example', 'x-forwarded-proto': 'https', 'content-type': 'application/json; charset=utf-8' },
          }),
        );
      const hook = globalThis as { __tickflowPeerAddressHook?: boolean };
      const saved = { hook: hook.__tickflowPeerAddressHook, proxies: process.env.TICKFLOW_TRUSTED_PROXIES };
      try {
        hook.__tickflowPeerAddressHook = true;
        process.env.TICKFLOW_TRUSTED_PROXIES = '10.0.0.0/8';
        expect((await viaProxy('csrf.proxy', '10.1.2.3')).status).toBe(201);
        const spoofed = await viaProxy('csrf.spoof', '203.0.113.9');
        expect(spoofed.status).toBe(403);
      } finally {
        hook.__tickflowPeerAddressHook = saved.hook;
        if (saved.proxies === undefined) delete process.env.TICKFLOW_TRUSTED_PROXIES;
        else process.env.TICKFLOW_TRUSTED_PROXIES = saved.proxies;
      }
      const sfs = await jobs.POST(new Request('http://localhost/api/v1/jobs', { method: 'POST', body: JSON.stringify(cronJob(uniq('csrf.sfs'))), headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' } }));
      expect(sfs.status).toBe(201);
      // reads with the cookie are not affected; a bearer token from anywhere is not affected
      expect((await jobs.GET(new Request('http://localhost/api/v1/jobs', { headers: { cookie, origin: 'https://evil.example' } }))).status).toBe(200);
      const bearer = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody: JSON.stringify(cronJob(uniq('csrf.bearer'))), headers: { origin: 'https://evil.example', 'content-type': 'text/plain' } });
      expect(bearer.status).toBe(201);
    });

    it('low: clear messages (positive integer, ranges, ISO strings, no doubled "Invalid input"), past token expiry, canonical zones', async () => {
      const j = await create(cronJob(uniq('msgs')));
      for (const ev of [0, '2']) {
        const r = await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: ev, name: 'x' } });
        expect(r.json.error.fields.expectedVersion).toBe('Must be a positive integer');
      }
      const big = await post({ ...cronJob(uniq('msgs')), schedule: { kind: 'interval', intervalSeconds: 1e300 } });
      expect(big.json.error.fields['schedule.intervalSeconds']).toBe('Must be a whole number from 1 to 315360000');
      const num = await post({ ...cronJob(uniq('msgs')), schedule: { kind: 'once', runAt: 1893456000000 } });
      expect(num.json.error.fields['schedule.runAt']).toMatch(/ISO-8601 date-time string/);
      const arr = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: [] });
      expect(arr.json.error.message).not.toMatch(/Invalid input: Invalid input/);
      const tk = await call(tokens.POST, 'POST', '/api/v1/tokens', { token: admin, body: { name: 'old', scope: 'read', expiresAt: '2001-01-01T00:00:00Z' } });
      expectField(tk, 'expiresAt');
      const tz = await post({ ...cronJob(uniq('tz')), schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'asia/shanghai' } });
      expect(tz.status).toBe(201);
      expect(tz.json.schedule.timezone).toBe('Asia/Shanghai');
      expect(tz.json.timezone).toBe('Asia/Shanghai');
    });

    it('low: a body over 1 MB is a 413; an unknown /api/v1 path is a JSON 404 for every method', async () => {
      const before = await counts();
      const huge = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, rawBody: JSON.stringify({ ...cronJob(uniq('huge')), description: 'x'.repeat(1_100_000) }), headers: { 'content-type': 'application/json' } });
      expect(huge.status).toBe(413);
      expect(huge.json.error.code).toBe('payload_too_large');
      expect(await counts()).toEqual(before);
      const catchAll = await import('../../app/api/v1/[[...path]]/route.ts');
      for (const [m, h] of [['GET', catchAll.GET], ['POST', catchAll.POST], ['PUT', catchAll.PUT], ['PATCH', catchAll.PATCH], ['DELETE', catchAll.DELETE]] as const) {
        const r = await call(h as RouteHandler, m, '/api/v1/nope/deeper');
        expect(r.status, m).toBe(404);
        expect(r.headers.get('content-type')).toMatch(/application\/json/);
        expect(r.json.error.code).toBe('not_found');
      }
      const doc = (await call(openapi.GET, 'GET', '/api/v1/openapi.json')).json;
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/stats/daily', '/stats/overview', '/alarms', '/alarms/test']));
    });
  });

  describe('Idempotency-Key on PATCH and DELETE, and expiry after 24 h', () => {
    it('PATCH: replay returns the first answer without a new version; another body with the key is 422 and changes nothing', async () => {
      const j = await create(cronJob(uniq('idem.patch')));
      const headers = { 'idempotency-key': uniq('idem-patch') };
      const p1 = await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 1, name: 'Once' }, headers });
      expect(p1.status).toBe(200);
      const p2 = await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 1, name: 'Once' }, headers });
      expect(p2.status).toBe(200);
      expect(p2.headers.get('idempotent-replayed')).toBe('true');
      expect(p2.json).toEqual(p1.json);
      const mismatch = await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 2, name: 'Twice' }, headers });
      expect(mismatch.status).toBe(422);
      expect(mismatch.json.error).toMatchObject({ code: 'idempotency_mismatch', fields: { 'Idempotency-Key': expect.any(String) } });
      const row = await t.db.job.findUniqueOrThrow({ where: { id: j.id } });
      expect([row.name, row.version]).toEqual(['Once', 2]);
      expect(await t.db.jobVersion.count({ where: { jobId: j.id } })).toBe(2);
      // a too-long key is a 400 naming the header
      expectField(await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 2, name: 'x' }, headers: { 'idempotency-key': 'k'.repeat(256) } }), 'Idempotency-Key');
      // a header sent twice arrives joined by ", ": refused, not taken for a third key (and nothing is written)
      const twice = new Headers();
      twice.append('idempotency-key', 'k1');
      twice.append('idempotency-key', 'k2');
      expect(twice.get('idempotency-key')).toBe('k1, k2');
      expectField(await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: j.id }, body: { expectedVersion: 2, name: 'x' }, headers: { 'idempotency-key': twice.get('idempotency-key')! } }), 'Idempotency-Key');
      expect((await t.db.job.findUniqueOrThrow({ where: { id: j.id } })).name).toBe('Once');
    });

    it('DELETE: a replay answers the first 200 (not a 404 for the already-deleted job); the key on another job is 422', async () => {
      const j = await create(cronJob(uniq('idem.del')));
      const other = await create(cronJob(uniq('idem.del.other')));
      const headers = { 'idempotency-key': uniq('idem-del') };
      const d1 = await call(job.DELETE, 'DELETE', `/api/v1/jobs/${j.id}`, { token: operator, params: { id: j.id }, headers });
      expect(d1.status).toBe(200);
      const d2 = await call(job.DELETE, 'DELETE', `/api/v1/jobs/${j.id}`, { token: operator, params: { id: j.id }, headers });
      expect(d2.status).toBe(200);
      expect(d2.headers.get('idempotent-replayed')).toBe('true');
      expect(d2.json).toEqual(d1.json);
      const elsewhere = await call(job.DELETE, 'DELETE', `/api/v1/jobs/${other.id}`, { token: operator, params: { id: other.id }, headers });
      expect(elsewhere.status).toBe(422);
      expect((await t.db.job.findUniqueOrThrow({ where: { id: other.id } })).deletedAt).toBeNull();
      // without a key, a second DELETE of the deleted job is a 404
      expect((await call(job.DELETE, 'DELETE', `/api/v1/jobs/${j.id}`, { token: operator, params: { id: j.id } })).status).toBe(404);
      // purge with a key replays too
      const ph = { 'idempotency-key': uniq('idem-purge') };
      const pu1 = await call(purge.DELETE, 'DELETE', `/api/v1/jobs/${j.id}/purge`, { token: operator, params: { id: j.id }, headers: ph });
      const pu2 = await call(purge.DELETE, 'DELETE', `/api/v1/jobs/${j.id}/purge`, { token: operator, params: { id: j.id }, headers: ph });
      expect([pu1.status, pu2.status]).toEqual([200, 200]);
      expect(pu2.json).toEqual(pu1.json);
    });

    it('a key older than 24 h is not replayed: the request runs again (and may reuse the key for another body)', async () => {
      const key = uniq('idem-expire');
      const body = cronJob(uniq('idem.expire'));
      const a = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body, headers: { 'idempotency-key': key } });
      expect(a.status).toBe(201);
      // 23 h later: still replayed
      await t.pool.query(`UPDATE idempotency_keys SET created_at = now() - interval '23 hours' WHERE key = $1`, [key]);
      const b = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body, headers: { 'idempotency-key': key } });
      expect(b.headers.get('idempotent-replayed')).toBe('true');
      expect(b.json.id).toBe(a.json.id);
      // 25 h later: expired, so the same body executes again (the key is now taken: 409) ...
      await t.pool.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, [key]);
      const c = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body, headers: { 'idempotency-key': key } });
      expect(c.status).toBe(409);
      expect(c.headers.get('idempotent-replayed')).toBeNull();
      // ... and another body is accepted with the expired key instead of a 422, overwriting it
      const other = cronJob(uniq('idem.expire.other'));
      const d = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: other, headers: { 'idempotency-key': key } });
      expect(d.status).toBe(201);
      const row = await t.db.idempotencyKey.findFirstOrThrow({ where: { key } });
      expect(row.resourceId).toBe(d.json.id);
      expect(Date.now() - row.createdAt.getTime()).toBeLessThan(60_000);
      // and the system cleanup deletes keys only once they are 24 h old
      const { cleanupIdempotencyKeys } = await import('../../lib/api/idempotency.ts');
      await t.pool.query(`UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 minute' WHERE key = $1`, [key]);
      const fresh = uniq('idem-fresh');
      await call(job.PATCH, 'PATCH', '/api/v1/x', { token: operator, params: { id: d.json.id }, body: { expectedVersion: 1, name: 'n' }, headers: { 'idempotency-key': fresh } });
      expect(await cleanupIdempotencyKeys(t.db)).toBeGreaterThanOrEqual(1);
      expect(await t.db.idempotencyKey.count({ where: { key } })).toBe(0);
      expect(await t.db.idempotencyKey.count({ where: { key: fresh } })).toBe(1);
    });
  });
});
