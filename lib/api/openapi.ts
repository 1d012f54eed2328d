/**
 * OpenAPI 3.1 document for /api/v1: paths listed by hand, request schemas
 * generated from the zod schemas (zod 4 `z.toJSONSchema`, input side).
 */
import { z } from 'zod';
import * as S from './schemas.ts';
import { DailyStatsQuery } from '../stats/get-daily-stats.ts';
import { AlarmChannelInput } from './schemas.ts';
import * as R from './recovery-schemas.ts';

function schema(s: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(s, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ERR = { description: 'Error', content: { 'application/json': { schema: ref('Error') } } };
const json = (s: unknown, description = 'OK') => ({ description, content: { 'application/json': { schema: s } } });
const anyObj = { type: 'object' };
/** Bodies whose every field is optional: the body itself may be left out. */
const OPTIONAL_BODIES = new Set(['ReasonInput', 'TriggerJobInput', 'ClearTaskInput']);
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const idemHeader = { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } };

function queryParams(s: z.ZodObject): unknown[] {
  const js = schema(s) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, p]) => ({ name, in: 'query', required: js.required?.includes(name) ?? false, schema: p }));
}

function op(summary: string, opts: { role?: string; body?: string; params?: unknown[]; ok?: unknown; status?: number; write?: boolean } = {}) {
  const o: Record<string, unknown> = {
    summary,
    description: opts.role ? `Role: ${opts.role}` : undefined,
    parameters: [...(opts.params ?? []), ...(opts.write ? [idemHeader] : [])],
    responses: {
      [String(opts.status ?? 200)]: json(opts.ok ?? anyObj),
      400: ERR,
      401: ERR,
      403: ERR,
      404: ERR,
      409: ERR,
      422: ERR,
    },
  };
  if (opts.body) o.requestBody = { required: !OPTIONAL_BODIES.has(opts.body), content: { 'application/json': { schema: ref(opts.body) } } };
  if (opts.role === 'public') o.security = [];
  return o;
}

let cached: Record<string, unknown> | undefined;

export function buildOpenApiDocument(): Record<string, unknown> {
  if (cached) return cached;
  const components = {
    CreateJobInput: schema(S.CreateJobInput),
    UpdateJobInput: schema(S.UpdateJobInput),
    SaveDagInput: schema(S.SaveDagInput),
    TriggerJobInput: schema(S.TriggerJobInput),
    ReasonInput: schema(S.ReasonInput),
    RollbackInput: schema(S.RollbackInput),
    BulkJobsInput: schema(S.BulkJobsInput.extend({ action: z.enum(['pause', 'resume', 'delete']) })),
    ImportCrontabInput: schema(S.ImportCrontabInput),
    CreateUserInput: schema(S.CreateUserInput),
    UpdateUserInput: schema(S.UpdateUserInput),
    CreateTokenInput: schema(S.CreateTokenInput),
    SendTestAlarmInput: schema(z.strictObject({ channel: AlarmChannelInput })),
    BackfillInput: schema(R.BackfillInput),
    MarkSuccessInput: schema(R.MarkSuccessInput),
    ClearTaskInput: schema(R.ClearTaskInput),
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', enum: ['validation', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'idempotency_mismatch', 'unprocessable', 'rate_limited', 'payload_too_large', 'internal'] },
            message: { type: 'string' },
            fields: { type: 'object', additionalProperties: { type: 'string' }, description: 'dot path -> message' },
            detail: { type: 'object' },
          },
        },
      },
    },
  };
  const W = { write: true };
  const paths: Record<string, Record<string, unknown>> = {
    '/health': { get: op('Health: database and online workers', { role: 'public' }) },
    '/schedule/preview': { get: op('Next fire times of a cron expression', { role: 'public', params: queryParams(S.SchedulePreviewQuery as unknown as z.ZodObject) }) },
    '/jobs': {
      get: op('List jobs (keyset pagination)', { role: 'viewer', params: queryParams(S.ListJobsQuery) }),
      post: op('Create a job', { role: 'operator', body: 'CreateJobInput', status: 201, ...W }),
    },
    '/jobs/bulk': { post: op('Bulk pause/resume/delete (one transaction)', { role: 'operator', body: 'BulkJobsInput', ...W }) },
    '/jobs/import': { post: op('Import a crontab / cron.d text as paused shell jobs (one transaction; unconvertible lines reported)', { role: 'operator', body: 'ImportCrontabInput', status: 201, ...W }) },
    '/jobs/{id}': {
      get: op('Get a job', { role: 'viewer', params: [idParam] }),
      patch: op('Update a job (optimistic lock: expectedVersion; 409 on conflict). A change that leaves the configuration identical (empty or same values) creates no version and answers 200 with the unchanged job', { role: 'operator', params: [idParam], body: 'UpdateJobInput', ...W }),
      delete: op('Soft-delete a job (recycle bin)', { role: 'operator', params: [idParam], ...W }),
    },
    '/jobs/{id}/restore': { post: op('Restore from the recycle bin (409 if the key is taken)', { role: 'operator', params: [idParam], ...W }) },
    '/jobs/{id}/purge': {
      delete: op('Purge a deleted job for good (runs stay)', { role: 'operator', params: [idParam], ...W }),
      post: op('Purge (POST alias)', { role: 'operator', params: [idParam], ...W }),
    },
    '/jobs/{id}/pause': { post: op('Pause', { role: 'operator', params: [idParam], body: 'ReasonInput', ...W }) },
    '/jobs/{id}/resume': { post: op('Resume (clears dead letter)', { role: 'operator', params: [idParam], body: 'ReasonInput', ...W }) },
    '/jobs/{id}/trigger': { post: op('Trigger a run now', { role: 'operator', params: [idParam], body: 'TriggerJobInput', status: 201, ...W }) },
    '/jobs/{id}/versions': { get: op('Version history', { role: 'viewer', params: [idParam] }) },
    '/jobs/{id}/backfill/preview': { post: op('Slots a backfill of a past range would create or skip (writes nothing; at most 1000 slots; docs/recovery.md)', { role: 'operator', params: [idParam], body: 'BackfillInput' }) },
    '/jobs/{id}/backfill': { post: op('Backfill a past range: one run (trigger backfill) per free slot, queued one after the other (docs/recovery.md)', { role: 'operator', params: [idParam], body: 'BackfillInput', status: 201, ...W }) },
    '/jobs/{id}/audit': { get: op('Recovery history: backfill, mark_success, clear (newest first)', { role: 'viewer', params: [idParam] }) },
    '/jobs/{id}/versions/{version}': {
      get: op('One version with snapshot', { role: 'viewer', params: [idParam, { name: 'version', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: S.INT4_MAX } }] }),
    },
    '/jobs/{id}/diff': { get: op('Diff two versions', { role: 'viewer', params: [idParam, ...queryParams(S.DiffQuery)] }) },
    '/jobs/{id}/rollback': { post: op('Roll back to a version (as a new version)', { role: 'operator', params: [idParam], body: 'RollbackInput', ...W }) },
    '/jobs/{id}/dag': { put: op('Save the DAG (steps, edges, positions)', { role: 'operator', params: [idParam], body: 'SaveDagInput', ...W }) },
    '/recycle-bin': { get: op('Deleted jobs', { role: 'viewer', params: queryParams(S.ListRecycleBinQuery) }) },
    '/runs': { get: op('List runs (keyset on scheduledFor desc, id desc)', { role: 'viewer', params: queryParams(S.ListRunsQuery) }) },
    '/runs/{id}': { get: op('Run with tasks and task logs', { role: 'viewer', params: [idParam] }) },
    '/runs/{id}/cancel': { post: op('Cancel a run', { role: 'operator', params: [idParam], ...W }) },
    '/runs/{id}/retry': { post: op('Retry a run as a new run', { role: 'operator', params: [idParam], status: 201, ...W }) },
    '/tasks/{id}/retry': { post: op('Retry a task', { role: 'operator', params: [idParam], ...W }) },
    '/tasks/{id}/mark-success': { post: op('Mark a dead task success (reason required); downstream released, run re-evaluated (docs/recovery.md)', { role: 'operator', params: [idParam], body: 'MarkSuccessInput', ...W }) },
    '/tasks/{id}/clear': { post: op('Clear a finished task and everything downstream: they run again in the same run (docs/recovery.md)', { role: 'operator', params: [idParam], body: 'ClearTaskInput', ...W }) },
    '/workers': { get: op('Worker nodes', { role: 'viewer' }) },
    '/handlers': { get: op('Handlers a step may name, with what workers advertise: description, input JSON Schema, availability (docs/handlers.md)', { role: 'viewer' }) },
    '/workers/{id}/drain': { post: op('Drain a worker node', { role: 'operator', params: [idParam], ...W }) },
    '/users': {
      get: op('Users', { role: 'admin' }),
      post: op('Create a user', { role: 'admin', body: 'CreateUserInput', status: 201, ...W }),
    },
    '/users/{id}': {
      patch: op('Update a user', { role: 'admin', params: [idParam], body: 'UpdateUserInput', ...W }),
      delete: op('Delete a user', { role: 'admin', params: [idParam], ...W }),
    },
    '/tokens': {
      get: op('API tokens', { role: 'admin' }),
      post: op('Create an API token (shown once)', { role: 'admin', body: 'CreateTokenInput', status: 201 }),
    },
    '/tokens/{id}': { delete: op('Revoke an API token', { role: 'admin', params: [idParam], ...W }) },
    '/stats/daily': { get: op('Per-handler daily statistics (from..to inclusive, at most 366 days)', { role: 'viewer', params: queryParams(DailyStatsQuery as unknown as z.ZodObject) }) },
    '/stats/overview': { get: op('Dashboard overview counters', { role: 'viewer' }) },
    '/alarms': {
      get: op('Alarms, newest first (keyset on `before`)', {
        role: 'viewer',
        params: [
          { name: 'type', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'status', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'jobId', in: 'query', required: false, schema: { type: 'string' } },
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 200 } },
          { name: 'before', in: 'query', required: false, schema: { type: 'string', format: 'date-time' } },
        ],
      }),
    },
    '/alarms/test': { post: op('Send a test alarm on one channel', { role: 'operator', body: 'SendTestAlarmInput', status: 201, ...W }) },
  };
  cached = {
    openapi: '3.1.0',
    info: { title: 'Tickflow API', version: '1', description: 'Jobs, runs, workers. Errors: { "error": { "code", "message", "fields"? } }.' },
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }],
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  };
  return cached;
}
