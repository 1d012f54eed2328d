/**
 * Shared persistence steps of the job operations: lock a job row, load its
 * graph, replace its graph, write a job_versions row, map database errors.
 */
import { Prisma, type Db } from '../db.ts';
import { DomainError, isDomainError } from '../errors.ts';
import type { Job, JobEdge, JobStep } from '../generated/prisma/client.ts';
import type { Actor } from '../auth/actor.ts';
import { isUuid } from '../api/ids.ts';
import { cancelAheadRuns, cancelQueuedRuns } from '../engine/cancel-ahead-runs.ts';
import type { EdgeRow, StepRow } from './job-input.ts';
import { toJobSnapshot, toJobView, type JobView } from './job-view.ts';
import { selectLastRun } from '../engine/sql/last-runs.ts';

export type ChangeType = 'create' | 'update' | 'pause' | 'resume' | 'delete' | 'restore' | 'rollback';
export type JobGraph = { job: Job; steps: JobStep[]; edges: JobEdge[] };

/**
 * Locks the job row (FOR UPDATE) inside `tx` and returns it.
 * @throws DomainError('not_found') for a malformed/unknown id, or a deleted job unless `deleted` is 'allow' / 'only'.
 */
export async function lockJob(tx: Db, id: string, deleted: 'forbid' | 'allow' | 'only' = 'forbid'): Promise<Job> {
  if (!isUuid(id)) throw new DomainError('not_found', `Job ${id} not found`);
  await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${id}::uuid FOR UPDATE`;
  const job = await tx.job.findUnique({ where: { id } });
  return checkDeleted(job, id, deleted);
}

/** Reads a job row without locking (same not_found rules as lockJob). */
export async function findJob(db: Db, id: string, deleted: 'forbid' | 'allow' | 'only' = 'forbid'): Promise<Job> {
  if (!isUuid(id)) throw new DomainError('not_found', `Job ${id} not found`);
  return checkDeleted(await db.job.findUnique({ where: { id } }), id, deleted);
}

function checkDeleted(job: Job | null, id: string, deleted: 'forbid' | 'allow' | 'only'): Job {
  if (!job) throw new DomainError('not_found', `Job ${id} not found`);
  if (deleted === 'forbid' && job.deletedAt) throw new DomainError('not_found', `Job ${job.key} is in the recycle bin`);
  if (deleted === 'only' && !job.deletedAt) throw new DomainError('conflict', `Job ${job.key} is not in the recycle bin`);
  return job;
}

export async function loadGraph(db: Db, job: Job): Promise<JobGraph> {
  const [steps, edges] = await Promise.all([
    db.jobStep.findMany({ where: { jobId: job.id }, orderBy: { key: 'asc' } }),
    db.jobEdge.findMany({ where: { jobId: job.id }, orderBy: [{ fromStep: 'asc' }, { toStep: 'asc' }] }),
  ]);
  return { job, steps, edges };
}

/** Deletes and re-inserts a job's steps and edges (inside the caller's transaction). */
export async function replaceGraph(tx: Db, jobId: string, rows: { steps: StepRow[]; edges: EdgeRow[] }): Promise<void> {
  await tx.jobEdge.deleteMany({ where: { jobId } });
  await tx.jobStep.deleteMany({ where: { jobId } });
  await insertGraph(tx, jobId, rows);
}

/**
 * Moves a job's steps on the canvas: sets position_x / position_y of the steps named in `steps` (by key; others
 * are left as they are), in one statement, inside the caller's transaction (the job row held: lockJob). A layout
 * change only (layout-rule.ts): no version, no other column. Index: job_steps_job_key_uniq (job_id, key).
 */
export async function moveSteps(tx: Db, jobId: string, steps: { key: string; position: { x: number; y: number } }[]): Promise<void> {
  if (steps.length === 0) return;
  await tx.$executeRawUnsafe(
    `UPDATE job_steps s SET position_x = x.px, position_y = x.py
       FROM unnest($2::text[], $3::float8[], $4::float8[]) AS x(key, px, py)
      WHERE s.job_id = $1::uuid AND s.key = x.key`,
    jobId, steps.map((s) => s.key), steps.map((s) => s.position.x), steps.map((s) => s.position.y),
  );
}

export async function insertGraph(tx: Db, jobId: string, rows: { steps: StepRow[]; edges: EdgeRow[] }): Promise<void> {
  if (rows.steps.length) {
    await tx.jobStep.createMany({
      data: rows.steps.map((s) => ({ ...s, jobId, payload: s.payload as Prisma.InputJsonValue, config: s.config as Prisma.InputJsonValue })),
    });
  }
  if (rows.edges.length) await tx.jobEdge.createMany({ data: rows.edges.map((e) => ({ ...e, jobId })) });
}

/**
 * Writes the job_versions row for the job's current version (after the change) and returns the fresh view; its
 * created_at is `now`, or the previous version's when that is later (versions never go back in time). A pause, edit,
 * rollback or delete first cancels the job's runs created ahead of a future slot (fired again after an edit, unless
 * `opts.rescheduled`: the schedule changed and the caller stored its next fire), and a delete, or a change of what
 * the job runs or where (`opts.commandChanged`), its runs that have not started (lib/engine/cancel-ahead-runs.ts).
 */
export async function recordVersion(
  tx: Db,
  job: Job,
  changeType: ChangeType,
  actor: Actor,
  reason: string | undefined | null,
  now: Date,
  opts: { commandChanged?: boolean; rescheduled?: boolean } = {},
): Promise<JobView> {
  if (changeType !== 'create' && changeType !== 'resume' && changeType !== 'restore') {
    // Runs created ahead of a future slot carry the old configuration: cancel them; an
    // edited job fires those slots again (lib/engine/cancel-ahead-runs.ts).
    const ahead = await cancelAheadRuns(tx, {
      jobId: job.id,
      actor: actor.name,
      reason: `job ${changeType === 'pause' ? 'paused' : changeType === 'delete' ? 'deleted' : 'edited'} by ${actor.name}`,
      // the caller stored the new schedule's next fire (update-job.ts): the cancelled slots are not moved back to
      rescheduled: opts.rescheduled,
    }, now);
    if (ahead.nextRunAt) job = { ...job, nextRunAt: ahead.nextRunAt };
    // A job in the recycle bin starts nothing more: its queued runs go too (runs going finish). A run
    // not started keeps, in its tasks, the command it was created with (insert-runs.ts): after an edit
    // of what the job runs or where, it goes rather than run what was changed (after the runs created
    // ahead, whose slots fire again with the new command).
    if (changeType === 'delete') await cancelQueuedRuns(tx, { jobId: job.id, actor: actor.name, reason: `job deleted by ${actor.name}` }, now);
    else if (opts.commandChanged) {
      await cancelQueuedRuns(tx, { jobId: job.id, actor: actor.name, reason: `the job's command or routing was changed by ${actor.name} (version ${job.version})` }, now);
    }
  }
  const g = await loadGraph(tx, job);
  // `now` is the request's clock, read before it waited for the job row: a change that waited behind
  // another (which then wrote version N at a later clock) must not show version N+1 as older than N.
  const previous = job.version > 1
    ? await tx.jobVersion.findUnique({ where: { jobId_version: { jobId: job.id, version: job.version - 1 } }, select: { createdAt: true } })
    : null;
  const createdAt = previous && previous.createdAt > now ? previous.createdAt : now;
  await tx.jobVersion.create({
    data: {
      jobId: job.id,
      version: job.version,
      changeType,
      snapshot: toJobSnapshot(g.job, g.steps, g.edges) as unknown as Prisma.InputJsonValue,
      reason: reason || null,
      createdBy: actor.name,
      createdAt,
    },
  });
  return jobAnswer(tx, g);
}

/**
 * The live job (not in the recycle bin) other than `exceptId` that holds `key`, or null: a key is unique
 * among live jobs (jobs_key_live_uniq). Restore and rollback ask before they would take a key back, so that
 * their refusal can name the job holding it.
 */
export async function liveKeyHolder(tx: Db, key: string, exceptId: string): Promise<{ id: string; name: string } | null> {
  return tx.job.findFirst({ where: { key, deletedAt: null, id: { not: exceptId } }, select: { id: true, name: true } });
}

/** The 409 of a job key that a live job already uses (jobs_key_live_uniq), at `key`. */
export function keyInUseError(key?: string): DomainError {
  return new DomainError('conflict', `A live job with key ${key ?? ''} already exists`.replace('  ', ' '), { key: 'Already used by another job' });
}

/**
 * True for a unique-index refusal of a job write: the live-key index (jobs_key_live_uniq: another live job
 * took the key between a check and the write) or a step or edge listed twice (mapDbError tells them apart).
 */
export function isUniqueViolation(e: unknown): boolean {
  if (isDomainError(e)) return false;
  const msg = e instanceof Error ? e.message : String(e);
  const meta = JSON.stringify((e as { meta?: unknown })?.meta ?? {});
  return (e as { code?: string })?.code === 'P2002' || /jobs_key_live_uniq|unique constraint/i.test(msg + meta);
}

/**
 * Maps expected database refusals to DomainErrors (bad input must never be a
 * 500): the live-key unique index -> 409 at `key`; CHECK constraints -> 400 at
 * the field they guard. Anything else is rethrown.
 */
export function mapDbError(e: unknown, key?: string): never {
  if (isDomainError(e)) throw e;
  const msg = e instanceof Error ? e.message : String(e);
  const meta = JSON.stringify((e as { meta?: unknown })?.meta ?? {});
  if (isUniqueViolation(e)) {
    if (/job_steps|job_edges/.test(msg + meta)) throw new DomainError('validation', 'Duplicate step or edge', { steps: 'Duplicate step key or edge' });
    throw keyInUseError(key);
  }
  const checks: [RegExp, string, string][] = [
    [/jobs_payload_size/, 'payload', 'Payload is too large (64 KB)'],
    [/jobs_key_format/, 'key', 'Invalid key'],
    [/jobs_name_not_blank/, 'name', 'Name is required (at most 200 characters)'],
    [/jobs_window_order/, 'endAt', 'endAt must be after startAt'],
    [/jobs_backoff_sane/, 'policy.backoff', 'Invalid backoff'],
    [/jobs_nonnegative/, 'policy', 'Values must not be negative'],
    [/job_steps_key_format/, 'steps', 'Invalid step key'],
    [/job_edges_no_self|job_edges_(from|to)_fk/, 'edges', 'Invalid edge'],
  ];
  for (const [re, field, message] of checks) {
    if (re.test(msg + meta)) throw new DomainError('validation', message, { [field]: message });
  }
  throw e;
}

/**
 * The view a job operation answers with (a pause, resume, edit, rollback, restore…): the job as `g` holds it, with
 * its last run (lib/engine/sql/last-runs.ts selectLastRun, inside `tx`) and no run created ahead (a pause, edit or
 * delete cancels it first; GET /jobs/:id shows one). docs/design.md §5.
 */
export async function jobAnswer(tx: Db, g: JobGraph): Promise<JobView> {
  return toJobView(g.job, g.steps, g.edges, { aheadSlot: null, lastRun: await selectLastRun(tx, g.job) });
}

/** The tables insertJsonRows writes (the job-definition tables: lib/jobs/create-job.ts insertNewJobs). */
export type JsonRowTable = 'jobs' | 'job_steps' | 'job_edges' | 'job_versions';

/**
 * Inserts many rows into one table in ONE statement, however many: the rows go as one JSON array
 * (a single parameter) that jsonb_populate_recordset turns into the table's own row type, so every
 * value takes its column's type (enums, arrays, jsonb, timestamptz) with no per-row round trip and
 * none of Prisma's per-row work. Keys are the Prisma field names (camelCase), stored in the
 * column of the same name in snake_case (`nextRunAt` -> next_run_at); every row names the same
 * fields, and a column no row names keeps its default.
 * @param opts.skipDuplicates rows a unique index refuses (jobs_key_live_uniq: a live job's key) are left out (ON CONFLICT DO NOTHING)
 * @returns the ids of the rows inserted
 */
export async function insertJsonRows(tx: Db, table: JsonRowTable, rows: readonly Record<string, unknown>[], opts: { skipDuplicates?: boolean } = {}): Promise<string[]> {
  if (rows.length === 0) return [];
  const columns = Object.keys(rows[0]!).map((k) => `"${k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}"`).join(', ');
  const json = JSON.stringify(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]))));
  const inserted = await tx.$queryRawUnsafe<{ id: string }[]>(
    `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)` +
      `${opts.skipDuplicates ? ' ON CONFLICT DO NOTHING' : ''} RETURNING id::text AS id`,
    json,
  );
  return inserted.map((r) => r.id);
}
