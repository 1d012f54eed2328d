/**
 * OpenAPI 3.1 document for /api/v1: paths listed by hand, request schemas
 * generated from the zod schemas (zod 4 `z.toJSONSchema`, input side).
 */
import { z } from 'zod';
import * as S from './schemas.ts';
import { DailyStatsQuery } from '../stats/get-daily-stats.ts';
import { operationMinRole, type Operation } from '../auth/permissions.ts';
import { DOMAIN_ERROR_CODES } from '../errors.ts';
import { SCOPE_OF_ROLE } from '../auth/scopes.ts';
import { SendTestAlarmInput } from '../alarms/send-test-alarm.ts';
import { AcknowledgeAlarmInput, CreateSilenceInput, ListSilencesQuery } from '../alarms/silences.ts';
import { ListAlarmsQuery } from '../alarms/list-alarms.ts';
import { SearchTaskLogLinesQuery, TaskLogLinesQuery } from '../task-logs/queries.ts';
import * as R from './recovery-schemas.ts';
import { JobCalendarQuery, JobGridQuery, StatsSeriesQuery } from './view-schemas.ts';
import { BODY_TOO_LARGE_MESSAGE } from './body-limit.ts';
import { HEARTBEAT_STALE_SECONDS, NODE_STATUSES } from '../workers/node-status.ts';

function schema(s: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(s, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const retryAfter = { 'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer' } } };
/** What every operation may answer while the database cannot serve it (app/_lib/rest.ts). */
const UNAVAILABLE = {
  description: 'database_unavailable (unreachable or restarting), busy (another request held the same rows) or transaction_timeout: nothing was changed; try again after Retry-After when given',
  headers: retryAfter,
  content: { 'application/json': { schema: ref('Error') } },
};
/** GET /health's body, 200 and 503 alike (app/api/v1/health/route.ts). */
const HEALTH = {
  type: 'object',
  required: ['status', 'database', 'workers'],
  properties: { status: { enum: ['ok', 'error'] }, database: { enum: ['ok', 'error'] }, workers: { type: 'integer', minimum: 0, description: 'online workers' } },
};
/**
 * What every operation but a GET may answer (lib/api/body-limit.ts): rest() reads the body of every
 * other method before the route sees it, whether or not the operation takes fields.
 */
const TOO_LARGE = { description: `payload_too_large: ${BODY_TOO_LARGE_MESSAGE}`, content: { 'application/json': { schema: ref('Error') } } };
/** What every operation but a GET answers for a compressed body (app/_lib/rest.ts EncodedBody), as TOO_LARGE. */
const ENCODED = {
  description: 'unsupported_content_encoding: the body was sent with a Content-Encoding (gzip, …); send it uncompressed',
  headers: { 'Accept-Encoding': { description: 'identity', schema: { type: 'string' } } },
  content: { 'application/json': { schema: ref('Error') } },
};
const json = (s: unknown, description = 'OK') => ({ description, content: { 'application/json': { schema: s } } });
const anyObj = { type: 'object' };
/** A keyset-paged list's answer (lib/api/cursor.ts Page): `nextCursor` is the next page's `cursor`, null at the end. */
const page = (item: unknown) => ({ type: 'object', required: ['items', 'nextCursor'], properties: { items: { type: 'array', items: item }, nextCursor: { type: ['string', 'null'] } } });
/** Bodies whose every field is optional: the body itself may be left out. */
const OPTIONAL_BODIES = new Set(['ReasonInput', 'TriggerJobInput', 'DrainWorkerInput', 'ClearTaskInput', 'AcknowledgeAlarmInput', 'ResetPasswordInput', 'UpdateUserInput']);
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const idemHeader = { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } };

function queryParams(s: z.ZodObject): unknown[] {
  const js = schema(s) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, p]) => ({ name, in: 'query', required: js.required?.includes(name) ?? false, schema: p }));
}

/**
 * The codes an error answer's `code` takes, exactly: every DomainError's (lib/errors.ts) and those the
 * REST door and the request guards answer themselves (app/_lib/rest.ts: 413, 415, 503 and 500; proxy.ts and
 * lib/infra/http-guard.ts: 405).
 */
export const ERROR_CODES = [
  ...DOMAIN_ERROR_CODES,
  'payload_too_large', 'unsupported_content_encoding', 'database_unavailable', 'busy', 'transaction_timeout', 'method_not_allowed', 'internal',
] as const;

const err = (description: string) => ({ description, content: { 'application/json': { schema: ref('Error') } } });

/**
 * What one operation may answer besides its success, derived from what rest() (app/_lib/rest.ts) does for
 * every route and what the operation declares of its own: the one table of an operation's responses.
 * - 400 every operation: a query parameter it does not take is refused by name (and its path, query and body fields);
 * - 401 every operation: a bearer header that does not authenticate, even on a public route;
 * - 403 an operation that needs a role (and a write sent with the session cookie from another origin);
 * - 404 an operation on a path `{id}`: the resource is not there (lib/api/missing-resource.ts); also one that declares
 *   `notFound`, whose body names an object by id (the field is named);
 * - 409 an operation that declares `conflict`, or whose answer is not kept for a replay (`notReplayable`);
 * - 413, 415 and 422 `idempotency_mismatch` every write (it reads a body and takes Idempotency-Key), 422 also an
 *   operation that declares `unprocessable`;
 * - 429 an operation that declares `tooMany`; 503 every operation.
 */
export function errorResponses(o: {
  role: ReturnType<typeof operationMinRole>;
  pathId: boolean;
  write?: boolean;
  notFound?: string;
  conflict?: string;
  notReplayable?: boolean;
  unprocessable?: string;
  tooMany?: string;
  unavailable?: unknown;
}): Record<string, unknown> {
  const conflicts = [o.conflict && `conflict: ${o.conflict}`, o.notReplayable && 'idempotency_not_replayable: the key already did this request, whose answer held a secret that is not kept'].filter(Boolean);
  const unprocessable = [o.write && 'idempotency_mismatch: the Idempotency-Key was used for another request', o.unprocessable && `unprocessable: ${o.unprocessable}`].filter(Boolean);
  return {
    400: err('validation: a field named in `fields` (a query parameter the operation does not take, given twice or not UTF-8 included)'),
    401: err(o.role === 'public' ? 'unauthorized: an Authorization header that does not authenticate (none is needed)' : 'unauthorized: no credentials, or credentials that do not authenticate'),
    ...(o.role === 'public' ? {} : { 403: err(`forbidden: the caller's role is below ${o.role}${o.write ? ', or a request with the session cookie came from another origin' : ''}`) }),
    ...(o.pathId || o.notFound
      ? { 404: err([o.pathId && 'not_found: the resource the path names does not exist (also when the request has other faults)', o.notFound && `not_found: ${o.notFound}`].filter(Boolean).join('; ')) }
      : {}),
    ...(conflicts.length ? { 409: err(conflicts.join('; ')) } : {}),
    ...(o.write ? { 413: TOO_LARGE, 415: ENCODED } : {}),
    ...(unprocessable.length ? { 422: err(unprocessable.join('; ')) } : {}),
    ...(o.tooMany ? { 429: { description: o.tooMany, headers: retryAfter, content: { 'application/json': { schema: ref('Error') } } } } : {}),
    503: o.unavailable ? { ...UNAVAILABLE, content: { 'application/json': { schema: o.unavailable } } } : UNAVAILABLE,
  };
}

/**
 * One operation of the document. `operation` (lib/auth/permissions.ts) is its
 * operationId and decides the role in its description; the route file passes the
 * same name to rest() (tests/integration/role-matrix.test.ts checks both). Its error
 * responses are errorResponses' (tests/integration/openapi-responses.test.ts checks a sample against the routes).
 */
function op(
  summary: string,
  opts: {
    operation: Operation;
    body?: string;
    params?: unknown[];
    ok?: unknown;
    status?: number;
    /** other success statuses and when they are answered (a 201 operation that created nothing answers 200) */
    also?: Record<number, string>;
    /** the 503 body when it is not an Error (GET /health answers its own shape) */
    unavailable?: unknown;
    /** a POST, PUT, PATCH or DELETE: takes Idempotency-Key and reads a body (app/_lib/rest.ts), fields or none */
    write?: boolean;
    /** when the operation answers 429 `rate_limited` (with Retry-After) */
    tooMany?: string;
    /** when the operation answers 404 for an object its body names (a path `{id}` needs no word) */
    notFound?: string;
    /** when the operation answers 409 `conflict` */
    conflict?: string;
    /** the answer holds a secret and is not stored: a repeat of its key is a 409 (rest() `idempotency: 'no-replay'` or `secretIn`) */
    notReplayable?: boolean;
    /** when the operation answers 422 `unprocessable` */
    unprocessable?: string;
  },
) {
  const role = operationMinRole(opts.operation);
  const pathId = (opts.params ?? []).some((p) => (p as { in?: string }).in === 'path');
  const o: Record<string, unknown> = {
    summary,
    operationId: opts.operation,
    description: `Role: ${role === 'public' ? 'public (no credentials)' : `${role} (token scope ${SCOPE_OF_ROLE[role]})`}`,
    parameters: [...(opts.params ?? []), ...(opts.write ? [idemHeader] : [])],
    responses: {
      [String(opts.status ?? 200)]: json(opts.ok ?? anyObj),
      ...Object.fromEntries(Object.entries(opts.also ?? {}).map(([status, when]) => [status, json(opts.ok ?? anyObj, when)])),
      ...errorResponses({ role, pathId, ...opts }),
    },
  };
  if (opts.body) o.requestBody = { required: !OPTIONAL_BODIES.has(opts.body), content: { 'application/json': { schema: ref(opts.body) } } };
  if (role === 'public') o.security = [];
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
    DrainWorkerInput: schema(S.DrainWorkerInput),
    SendTestAlarmInput: schema(SendTestAlarmInput),
    AcknowledgeAlarmInput: schema(AcknowledgeAlarmInput),
    CreateSilenceInput: schema(CreateSilenceInput),
    ResetPasswordInput: schema(S.ResetPasswordInput),
    WorkerNode: {
      type: 'object',
      description: 'One worker process (lib/workers WorkerView; docs/operations.md "Stopped or offline")',
      required: ['nodeId', 'name', 'host', 'pid', 'group', 'labels', 'handlers', 'secretNames', 'status', 'effectiveStatus', 'lastHeartbeatAt', 'heartbeatAgeSeconds', 'runningTasks', 'cpuPercent', 'memoryMb', 'load1', 'version', 'startedAt', 'stoppedAt', 'stopSignal'],
      properties: {
        nodeId: { type: 'string' },
        name: { type: 'string' },
        host: { type: 'string' },
        pid: { type: 'integer' },
        group: { type: 'string' },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        handlers: { type: 'array', items: { type: 'string' } },
        secretNames: { type: 'array', items: { type: 'string' }, description: 'names of the secrets the worker holds for task settings (never their values)' },
        status: {
          type: 'string',
          enum: [...NODE_STATUSES],
          description: 'offline: its heartbeat was lost and the reaper marked it (a crash, kill -9, a machine gone); stopped: it drained and exited cleanly (SIGTERM/SIGINT)',
        },
        effectiveStatus: { type: 'string', enum: [...NODE_STATUSES, 'stale'], description: `status, except an online or draining node whose heartbeat is older than ${HEARTBEAT_STALE_SECONDS} s is \`stale\`` },
        lastHeartbeatAt: { type: 'string', format: 'date-time', description: 'for a stopped node, the stop' },
        heartbeatAgeSeconds: { type: 'integer', minimum: 0 },
        runningTasks: { type: 'integer', minimum: 0, description: 'attempts running as of the last heartbeat; 0 for a stopped or offline node, whose process is gone' },
        cpuPercent: { type: ['number', 'null'], description: 'as of the last heartbeat (memoryMb and load1 too); null for a stopped or offline node' },
        memoryMb: { type: ['number', 'null'] },
        load1: { type: ['number', 'null'] },
        version: { type: 'string' },
        startedAt: { type: 'string', format: 'date-time' },
        stoppedAt: { type: ['string', 'null'], format: 'date-time', description: 'when it stopped cleanly (status stopped); null otherwise' },
        stopSignal: { type: ['string', 'null'], description: 'the signal that asked for the clean stop (SIGTERM, SIGINT); null when not stopped or stopped in-process' },
      },
    },
    Job: {
      type: 'object',
      description: 'A job (lib/jobs JobView; docs/design.md §5). Only its two "next" instants and its last run are described here; the other fields mirror the job\'s input (CreateJobInput) and counters.',
      properties: {
        nextRunAt: {
          type: ['string', 'null'],
          format: 'date-time',
          description: 'The tick\'s cursor (jobs.next_run_at): the due instant of the first slot the tick has not fired yet. Once the tick has created a slot\'s run ahead of it (docs/on-time.md "Look-ahead firing"), this already names the slot after; a paused job keeps it. null for a deleted job. Not the next fire: see nextFireAt.',
        },
        nextFireAt: {
          type: ['string', 'null'],
          format: 'date-time',
          description: 'The next fire (docs/on-time.md "Next fire"), what the console shows: the due instant of a run created ahead of a slot still to come (not started), else nextRunAt of an active job; null when nothing is coming (paused, dead letter, deleted, schedule ended).',
        },
        lastRunId: {
          type: ['string', 'null'],
          format: 'uuid',
          description: 'The job\'s last run: the run created last (a skipped record is none; docs/console.md "Last run"). lastRunStatus and lastRunAt are that run\'s. null when the job never ran or the run is gone (retention).',
        },
        lastRunStatus: {
          type: ['string', 'null'],
          enum: ['pending', 'running', 'success', 'failed', 'timeout', 'cancelled', 'skipped', null],
          description: 'The status of the run lastRunId names, as it is now (pending or running while it is; never another run\'s outcome). null when lastRunId is.',
        },
        lastRunAt: {
          type: ['string', 'null'],
          format: 'date-time',
          description: 'When the run lastRunId names was created; kept when that run is gone (retention), without a status. null when the job never ran.',
        },
      },
    },
    TaskLogLine: {
      type: 'object',
      required: ['seq', 'time', 'level', 'stream', 'text'],
      properties: {
        seq: { type: 'integer', minimum: 1, description: 'position in the attempt, from 1' },
        time: { type: 'string', format: 'date-time' },
        level: { type: 'string', enum: ['debug', 'info', 'warn', 'error'] },
        stream: { type: 'string', enum: ['log', 'stdout', 'stderr', 'progress', 'system'] },
        text: { type: 'string' },
        fields: { description: 'structured context the handler attached (JSON)' },
      },
    },
    TaskLogLinesPage: {
      type: 'object',
      required: ['taskId', 'runId', 'jobId', 'stepKey', 'attempt', 'attempts', 'taskStatus', 'final', 'leaseReclaimed', 'progress', 'lines', 'nextAfterSeq', 'more'],
      properties: {
        taskId: { type: 'string' },
        runId: { type: 'string' },
        jobId: { type: 'string' },
        stepKey: { type: 'string' },
        attempt: { type: 'integer' },
        attempts: { type: 'integer', description: "the task's current attempt" },
        taskStatus: { type: 'string', description: "the task's current status" },
        final: { type: 'boolean', description: 'the attempt is over' },
        leaseReclaimed: { type: 'boolean', description: 'the lease was reclaimed: lines of the last flush interval (≤ 1 s) may be missing' },
        progress: {
          type: ['object', 'null'],
          properties: { done: { type: ['number', 'null'] }, total: { type: ['number', 'null'] }, text: { type: 'string' }, time: { type: 'string', format: 'date-time' } },
        },
        lines: { type: 'array', items: ref('TaskLogLine') },
        nextAfterSeq: { type: 'integer', description: 'pass as afterSeq to read on' },
        more: { type: 'boolean', description: 'more lines are stored after this page' },
      },
    },
    TaskLogSearchResult: {
      type: 'object',
      required: ['lines', 'more', 'nextCursor'],
      properties: {
        lines: {
          type: 'array',
          items: {
            allOf: [
              ref('TaskLogLine'),
              {
                type: 'object',
                required: ['taskId', 'attempt', 'runId', 'jobId'],
                properties: {
                  taskId: { type: 'string' },
                  attempt: { type: 'integer' },
                  stepKey: { type: ['string', 'null'] },
                  runId: { type: 'string' },
                  jobId: { type: 'string' },
                  jobKey: { type: ['string', 'null'] },
                },
              },
            ],
          },
        },
        more: { type: 'boolean', description: 'the limit cut the answer' },
        nextCursor: { type: ['string', 'null'], description: 'the `cursor` of the next (older) page; null on the last page' },
      },
    },
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
            code: { type: 'string', enum: [...ERROR_CODES] },
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
    '/health': {
      get: op('Health: database and online workers', {
        operation: 'health',
        ok: HEALTH,
        unavailable: HEALTH,
      }),
    },
    '/schedule/preview': { get: op('Next fire times of a cron expression', { operation: 'schedule.preview', params: queryParams(S.SchedulePreviewQuery as unknown as z.ZodObject) }) },
    '/jobs': {
      get: op('List jobs (keyset pagination; sort=next_run_at orders by nextFireAt within each status)', {
        operation: 'jobs.list',
        params: queryParams(S.ListJobsQuery),
        ok: { type: 'object', required: ['items', 'nextCursor'], properties: { items: { type: 'array', items: ref('Job') }, nextCursor: { type: ['string', 'null'] } } },
      }),
      post: op('Create a job', { operation: 'jobs.create', body: 'CreateJobInput', status: 201, conflict: 'a live job already has the key (field `key`)', ...W }),
    },
    '/jobs/bulk': { post: op('Bulk pause/resume/delete (one transaction)', { operation: 'jobs.bulk', body: 'BulkJobsInput', notFound: 'an id names no job (at `ids.N`); nothing is changed', ...W }) },
    '/jobs/import': { post: op('Import a crontab / cron.d text as paused shell jobs (one transaction; unconvertible lines reported)', { operation: 'jobs.import', body: 'ImportCrontabInput', status: 201, also: { 200: 'a dry run, or nothing to import: no job was created' }, ...W }) },
    '/jobs/{id}': {
      get: op('Get a job', { operation: 'jobs.get', params: [idParam], ok: ref('Job') }),
      patch: op('Update a job (optimistic lock: expectedVersion; 409 on conflict, also for a version greater than the current one, which does not exist). A change that leaves the configuration identical (empty or same values) creates no version and answers 200 with the unchanged job', { operation: 'jobs.update', params: [idParam], body: 'UpdateJobInput', conflict: '`expectedVersion` is not the current version (what changed and by whom; a version the job never had says so, with detail.currentVersion), or a live job already has the key', ...W }),
      delete: op('Soft-delete a job (recycle bin); an optional `reason` is recorded with the version', { operation: 'jobs.delete', params: [idParam], body: 'ReasonInput', ...W }),
    },
    '/jobs/{id}/restore': { post: op('Restore from the recycle bin (409 if the key is taken); an optional `reason` is recorded with the version', { operation: 'jobs.restore', params: [idParam], body: 'ReasonInput', conflict: 'the job is not in the recycle bin, or a live job has its key now', ...W }) },
    '/jobs/{id}/purge': {
      delete: op('Purge a deleted job for good (runs stay)', { operation: 'jobs.purge', params: [idParam], conflict: 'the job is not in the recycle bin', ...W }),
      post: op('Purge (POST alias)', { operation: 'jobs.purge', params: [idParam], conflict: 'the job is not in the recycle bin', ...W }),
    },
    '/jobs/{id}/pause': { post: op('Pause', { operation: 'jobs.pause', params: [idParam], body: 'ReasonInput', ...W }) },
    '/jobs/{id}/resume': { post: op('Resume (clears dead letter)', { operation: 'jobs.resume', params: [idParam], body: 'ReasonInput', ...W }) },
    '/jobs/{id}/trigger': { post: op('Trigger a run now; with { runs: [...] } (at most 1000) many runs in one transaction, answered as { runs: [...] } in the same order', { operation: 'jobs.trigger', params: [idParam], body: 'TriggerJobInput', status: 201, ...W }) },
    '/jobs/{id}/versions': {
      get: op('Version history, newest first: keyset on version desc, `cursor` is the `nextCursor` of the previous page (null once v1 is listed); `limit` 1..500, default 200', {
        operation: 'jobs.versions',
        params: [idParam, ...queryParams(S.ListVersionsQuery)],
        ok: page(anyObj),
      }),
    },
    '/jobs/{id}/backfill/preview': { post: op('Slots a backfill of a past range would create or skip (writes nothing; at most 1000 slots; docs/recovery.md)', { operation: 'jobs.backfillPreview', params: [idParam], body: 'BackfillInput', ...W }) },
    '/jobs/{id}/backfill': { post: op('Backfill a past range: one run (trigger backfill) per free slot, queued one after the other (docs/recovery.md)', { operation: 'jobs.backfill', params: [idParam], body: 'BackfillInput', status: 201, also: { 200: 'every slot of the range already had its run: none was created (runIds empty)' }, ...W }) },
    '/jobs/{id}/grid': { get: op('Run grid: the latest runs (oldest first) by step (DAG order), one cell per task; `cursor` pages to older runs', { operation: 'jobs.grid', params: [idParam, ...queryParams(JobGridQuery)] }) },
    '/jobs/{id}/calendar': { get: op('Runs per calendar day in `tz` over the 366 days ending `to`, by outcome (days without runs left out)', { operation: 'jobs.calendar', params: [idParam, ...queryParams(JobCalendarQuery)] }) },
    '/jobs/{id}/audit': {
      get: op('Recovery history: backfill, mark_success, clear, newest first: keyset on (createdAt desc, id desc), `cursor` is the `nextCursor` of the previous page (null at the oldest); `limit` 1..500, default 100', {
        operation: 'jobs.audit',
        params: [idParam, ...queryParams(S.ListJobAuditQuery)],
        ok: page(anyObj),
      }),
    },
    '/jobs/{id}/versions/{version}': {
      get: op('One version with snapshot', { operation: 'jobs.version', params: [idParam, { name: 'version', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: S.INT4_MAX } }] }),
    },
    '/jobs/{id}/diff': { get: op('Diff two versions', { operation: 'jobs.diff', params: [idParam, ...queryParams(S.DiffQuery)] }) },
    '/jobs/{id}/rollback': { post: op('Roll back to a version (as a new version). A version whose configuration is already the current one (one that only records a pause or resume after the last edit) restores nothing: 422 naming `version`', { operation: 'jobs.rollback', params: [idParam], body: 'RollbackInput', conflict: '`expectedVersion` is not the current version', unprocessable: 'the version restores nothing, can no longer fire, or holds a key another live job uses (field `version`)', ...W }) },
    '/jobs/{id}/dag': { put: op('Save the DAG (steps, edges, positions)', { operation: 'jobs.saveDag', params: [idParam], body: 'SaveDagInput', conflict: '`expectedVersion` is not the current version', ...W }) },
    '/recycle-bin': { get: op('Deleted jobs', { operation: 'recycleBin.list', params: queryParams(S.ListRecycleBinQuery) }) },
    '/runs': { get: op('List runs (keyset on scheduledFor desc, id desc)', { operation: 'runs.list', params: queryParams(S.ListRunsQuery) }) },
    '/runs/{id}': { get: op('Run with tasks and task logs', { operation: 'runs.get', params: [idParam] }) },
    '/runs/{id}/cancel': { post: op('Cancel a run', { operation: 'runs.cancel', params: [idParam], conflict: 'the run had already ended (the status it ended in is named, detail.status)', ...W }) },
    '/runs/{id}/retry': { post: op('Retry a run as a new run', { operation: 'runs.retry', params: [idParam], status: 201, conflict: 'the run is not failed, timed out or cancelled, or it was already retried, or its slot has a run of its own (the run to retry instead is named)', ...W }) },
    '/tasks/{id}/retry': { post: op('Retry a task', { operation: 'tasks.retry', params: [idParam], conflict: 'the task is not dead, cancelled or failure-skipped, a parent would skip it again, or another run of its job is active (detail.activeRunId)', ...W }) },
    '/tasks/{id}/mark-success': { post: op('Mark a dead task success (reason required); downstream released, run re-evaluated (docs/recovery.md)', { operation: 'tasks.markSuccess', params: [idParam], body: 'MarkSuccessInput', conflict: 'the task is not dead, or another run of its job is active (detail.activeRunId)', ...W }) },
    '/tasks/{id}/clear': { post: op('Clear a finished task and everything downstream: they run again in the same run (docs/recovery.md)', { operation: 'tasks.clear', params: [idParam], body: 'ClearTaskInput', conflict: 'the task has not finished, a task downstream is running, a parent would skip it again, or another run of its job is active (detail.activeRunId)', ...W }) },
    '/tasks/{id}/logs': {
      get: op('Log lines of one attempt of a task, in write order (keyset: afterSeq exclusive; attempt defaults to the current one)', {
        operation: 'tasks.logs',
        params: [idParam, ...queryParams(TaskLogLinesQuery)],
        ok: ref('TaskLogLinesPage'),
      }),
    },
    '/logs/search': {
      get: op('Search log lines (case-insensitive substring, at least 3 characters with a word the index can look up) of one job or all jobs in a time range, newest first; `cursor` pages on (keyset)', {
        operation: 'logs.search',
        params: queryParams(SearchTaskLogLinesQuery as unknown as z.ZodObject),
        ok: ref('TaskLogSearchResult'),
        unprocessable: 'the search took longer than it may: narrow it with jobId, from/to or a longer text',
        tooMany: 'rate_limited: the console runs as many searches at once as it allows (4, 2 per user or token); try again after Retry-After',
      }),
    },
    '/workers': {
      get: op('Worker nodes: online, then draining, then offline (heartbeat lost), then stopped (clean stop)', {
        operation: 'workers.list',
        ok: { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ref('WorkerNode') } } },
      }),
    },
    '/handlers': { get: op('Handlers a step may name, with what workers advertise: description, input JSON Schema, availability (docs/handlers.md)', { operation: 'handlers.list' }) },
    '/workers/{id}/drain': {
      post: op('Drain a worker node (stops claiming and ticking; 409 detail.lastWorker for the last online worker unless confirmLastWorker is true; 409 detail.status for an offline or stopped node)', { operation: 'workers.drain', params: [idParam], body: 'DrainWorkerInput', conflict: 'the last online worker without confirmLastWorker (detail.lastWorker), or an offline or stopped node (detail.status)', ok: ref('WorkerNode'), ...W }),
    },
    '/workers/{id}/resume': { post: op('Undo a drain: the worker claims and ticks again (409 detail.status for an offline or stopped node)', { operation: 'workers.resume', params: [idParam], conflict: 'an offline or stopped node (detail.status)', ok: ref('WorkerNode'), ...W }) },
    '/users': {
      get: op('Users', { operation: 'users.list' }),
      post: op('Create a user', { operation: 'users.create', body: 'CreateUserInput', status: 201, conflict: 'a user has the email (field `email`)', ...W }),
    },
    '/users/{id}': {
      patch: op('Update a user', { operation: 'users.update', params: [idParam], body: 'UpdateUserInput', conflict: 'the last active admin would be demoted (field `role`) or disabled (field `disabled`)', ...W }),
      delete: op('Delete a user (never yourself or the last active admin); their sessions and API tokens stop working at once', { operation: 'users.delete', params: [idParam], conflict: 'yourself, or the last active admin', ...W }),
    },
    '/users/{id}/password': {
      post: op("Reset a user's password: the given one, or a generated one returned once as `password`; the user's sessions end", { operation: 'users.resetPassword', params: [idParam], body: 'ResetPasswordInput', notReplayable: true, ...W }),
    },
    '/tokens': {
      get: op('API tokens', { operation: 'tokens.list' }),
      post: op('Create an API token (shown once)', { operation: 'tokens.create', body: 'CreateTokenInput', status: 201, notReplayable: true, ...W }),
    },
    '/tokens/{id}': { delete: op('Revoke an API token', { operation: 'tokens.revoke', params: [idParam], ...W }) },
    '/stats/daily': { get: op('Per-handler daily statistics (from..to inclusive, at most 366 days)', { operation: 'stats.daily', params: queryParams(DailyStatsQuery as unknown as z.ZodObject) }) },
    '/stats/series': { get: op('Stats per day (from..to) or per hour (last `hours`), of every job or one (`jobId`), from the task logs with the daily counting rule', { operation: 'stats.series', params: queryParams(StatsSeriesQuery as unknown as z.ZodObject) }) },
    '/stats/overview': { get: op('Dashboard overview counters', { operation: 'stats.overview' }) },
    '/alarms': {
      get: op('Alarms, newest first: keyset on (createdAt desc, id desc), `cursor` is the `nextCursor` of the previous page (null at the end); `before` (an instant) only bounds the list to alarms created strictly before it', {
        operation: 'alarms.list',
        params: queryParams(ListAlarmsQuery),
      }),
    },
    '/alarms/{id}/acknowledge': {
      post: op('Acknowledge an alarm (who and when are recorded, with an optional note); 409 when already acknowledged', { operation: 'alarms.acknowledge', params: [idParam], body: 'AcknowledgeAlarmInput', conflict: 'the alarm is already acknowledged', ...W }),
    },
    '/alarms/silences': {
      get: op('Alarm silences, newest first: those in force (active=true, the default) or all; keyset on (createdAt desc, id desc), `cursor` is the `nextCursor` of the previous page (null at the oldest); `limit` 1..500, default 200', {
        operation: 'alarms.silences',
        params: queryParams(ListSilencesQuery),
        ok: page(anyObj),
      }),
      post: op('Silence alarms of a job, an alarm type, or both (an alarm rule) for durationMinutes or until an instant: matching alarms are recorded as silenced and not sent', { operation: 'alarms.silence', body: 'CreateSilenceInput', status: 201, notFound: '`jobId` names no job', ...W }),
    },
    '/alarms/silences/{id}': {
      delete: op('Unsilence: end a silence now (alarms already silenced stay recorded as such)', { operation: 'alarms.unsilence', params: [idParam], ...W }),
    },
    '/alarms/test': {
      post: op('Send a test alarm on one channel', {
        operation: 'alarms.test',
        body: 'SendTestAlarmInput',
        status: 201,
        tooMany: 'rate_limited: at most 5 test alarms per user or token, and 5 to one target, in 10 minutes (lib/alarms/test-alarm-limit.ts); try again after Retry-After',
        ...W,
      }),
    },
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
