import { randomUUID } from 'node:crypto';
import { inTransaction, Prisma, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { CreateJobInput } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { neverFiresFields } from '../api/never-fires-fields.ts';
import { isDomainError, type DomainError } from '../errors.ts';
import type { Job, JobEdge, JobStep } from '../generated/prisma/client.ts';
import { alarmConfig, assertCanFire, computeNextRunAt, graphRows, policyColumns, routingColumns, scheduleColumns, stepsOf, type EdgeRow, type StepRow } from './job-input.ts';
import { toJobSnapshot, toJobView, type JobView } from './job-view.ts';
import { assertKnownHandlers } from './known-handlers.ts';
import { assertPayloadsFit } from '../handlers/check-payloads.ts';
import { assertMayChangeCommand, assertMayUseIdentity } from './handler-permissions.ts';
import { insertJsonRows, keyInUseError, mapDbError } from './store.ts';

/**
 * A new job checked by prepareNewJob, not stored yet: the jobs row (id, next_run_at and all), its
 * step and edge rows, and what the checks that read the database need (insertNewJobs).
 */
export type NewJob = {
  /** the jobs row as createJob inserts it (status active, version 1) */
  row: Omit<Job, 'lastRunAt' | 'lastRunId' | 'lastRunScheduledFor' | 'lastError' | 'consecutiveFailures' | 'totalRuns' | 'successRuns' | 'failedRuns' | 'deletedAt' | 'deletedBy'>;
  graph: { steps: StepRow[]; edges: EdgeRow[] };
  /** for assertKnownHandlers / assertPayloadsFit */
  steps: { handler: string; payload?: Record<string, unknown> | null; config?: Record<string, unknown> | null }[];
  jobPayload: Record<string, unknown> | undefined;
  /** the field of step i in the input (`steps.i…`, or the one-step shorthand's `handler` / `payload`) */
  shorthand: boolean;
};

/**
 * Everything createJob checks about a new job that needs no database, and the rows it stores
 * (pure: no I/O). Accepts raw input (parsed with CreateJobInput here). A non-manual schedule with
 * no fire time after `now` (past `once`, exhausted cron year, past `endAt`, empty window) is
 * refused; when other fields are wrong too, that error comes in the same 400 as theirs.
 * A privileged handler needs the role lib/jobs/handler-permissions.ts names, and a key starting with
 * `system.` is refused on any job but the system's own (keyRefusal, 403 at `key`).
 * @throws DomainError validation (fields), forbidden.
 */
export function prepareNewJob(rawInput: unknown, actor: Actor, now: Date): NewJob {
  requireCan(actor, 'jobs.write');
  const input = parseOrThrow(CreateJobInput, rawInput, () => neverFiresFields(rawInput, now));
  const { steps, jobPayload } = stepsOf(input);
  const shorthand = !input.steps;
  assertMayChangeCommand(actor, null, { steps: steps ?? [], jobPayload }, { fieldOf: (i) => (shorthand ? 'handler' : `steps.${i}.handler`), what: 'create' });
  // the `system.` key prefix is the system jobs' own (403 at `key`)
  assertMayUseIdentity(actor, null, { key: input.key, name: input.name, command: { steps: steps ?? [] } });
  const row: NewJob['row'] = {
    id: randomUUID(),
    key: input.key,
    name: input.name,
    description: input.description ?? '',
    ...scheduleColumns(input.schedule),
    startAt: input.startAt ?? null,
    endAt: input.endAt ?? null,
    staggerSeconds: input.staggerSeconds ?? 0,
    ...policyColumns(input.policy),
    ...routingColumns(input.routing),
    payload: (jobPayload ?? {}) as Prisma.JsonValue,
    alarmConfig: alarmConfig(input.alarms) as unknown as Prisma.JsonValue,
    status: 'active',
    version: 1,
    nextRunAt: null,
    createdBy: actor.name,
    updatedBy: actor.name,
    createdAt: now,
    updatedAt: now,
  };
  assertCanFire(row, now); // 400 for a schedule that can never fire
  row.nextRunAt = computeNextRunAt(row, now);
  return { row, graph: graphRows(steps ?? [], input.edges ?? []), steps: steps ?? [], jobPayload, shorthand };
}

/** A new job insertNewJobs did not store, and why (its index in the `jobs` it was given). */
export type RefusedNewJob = { index: number; error: DomainError };

/**
 * Stores jobs checked by prepareNewJob, all of them in set-based statements (one per table for
 * the whole batch, however many jobs), inside `db`'s transaction or one of its own: the job rows,
 * their steps and edges, and version 1 (change_type `create`) of each; with `pause`, each job is
 * then paused as lib/jobs/pause-job.ts pauses it (status `paused`, version 2, change_type `pause`
 * with the reason; a job just created has no run to cancel). A job whose handlers no worker
 * offers, whose payload does not fit its handler (the checks createJob makes) or whose key a live
 * job already uses is left out and returned in `refused`; the others are stored.
 * @returns the stored jobs' views, in the order of `jobs`, and the refused ones
 * @throws DomainError validation for a row the database refuses (a CHECK constraint: store.ts mapDbError)
 */
export async function insertNewJobs(
  db: Db,
  jobs: readonly NewJob[],
  actor: Actor,
  now: Date,
  opts: { pause?: { reason: string } } = {},
): Promise<{ created: JobView[]; refused: RefusedNewJob[] }> {
  requireCan(actor, 'jobs.write');
  try {
    return await inTransaction(db, async (tx) => {
      const refused: RefusedNewJob[] = [];
      const accepted: NewJob[] = [];
      for (const [index, job] of jobs.entries()) {
        try {
          const fieldOf = (what: 'handler' | 'payload') => (i: number) => (job.shorthand ? what : `steps.${i}.${what}`);
          await assertKnownHandlers(tx, job.steps, fieldOf('handler'));
          await assertPayloadsFit(tx, job.steps, job.jobPayload, fieldOf('payload'));
          accepted.push(job);
        } catch (e) {
          if (!isDomainError(e)) throw e;
          refused.push({ index, error: e });
        }
      }
      const pause = opts.pause;
      // a key a live job uses (jobs_key_live_uniq) leaves that row out instead of failing the batch
      const ids = new Set(await insertJsonRows(tx, 'jobs', accepted.map((j) => ({ ...j.row, ...(pause ? { status: 'paused', version: 2 } : {}) })), { skipDuplicates: true }));
      const checked = new Set(accepted);
      jobs.forEach((j, index) => {
        if (checked.has(j) && !ids.has(j.row.id)) refused.push({ index, error: keyInUseError(j.row.key) });
      });
      const kept = accepted.filter((j) => ids.has(j.row.id));
      await insertJsonRows(tx, 'job_steps', kept.flatMap((j) => j.graph.steps.map((s) => ({ jobId: j.row.id, ...s }))));
      await insertJsonRows(tx, 'job_edges', kept.flatMap((j) => j.graph.edges.map((e) => ({ jobId: j.row.id, ...e }))));
      // the rows as stored (defaults and all), for the versions' snapshots and the answer
      const idList = [...ids];
      const [stored, steps, edges] = await Promise.all([
        idList.length ? tx.job.findMany({ where: { id: { in: idList } } }) : [],
        idList.length ? tx.jobStep.findMany({ where: { jobId: { in: idList } } }) : [],
        idList.length ? tx.jobEdge.findMany({ where: { jobId: { in: idList } } }) : [],
      ]);
      const byId = new Map(stored.map((j) => [j.id, j]));
      const stepsOf = groupBy(steps, (s) => s.jobId);
      const edgesOf = groupBy(edges, (e) => e.jobId);
      const versions = kept.flatMap((j) => {
        const job = byId.get(j.row.id)!;
        const [s, e] = [stepsOf.get(job.id) ?? [], edgesOf.get(job.id) ?? []];
        const version = (v: Job, changeType: 'create' | 'pause', reason: string | null) => ({
          jobId: job.id, version: v.version, changeType, snapshot: toJobSnapshot(v, s, e), reason, createdBy: actor.name, createdAt: now,
        });
        // version 1 is the job as created (active); a pause is version 2, the row as stored
        return pause ? [version({ ...job, status: 'active', version: 1 }, 'create', null), version(job, 'pause', pause.reason || null)] : [version(job, 'create', null)];
      });
      await insertJsonRows(tx, 'job_versions', versions);
      refused.sort((a, b) => a.index - b.index);
      // a new job has no run yet: no last run, nothing created ahead
      return { created: kept.map((j) => toJobView(byId.get(j.row.id)!, stepsOf.get(j.row.id) ?? [], edgesOf.get(j.row.id) ?? [], { aheadSlot: null, lastRun: null })), refused };
    });
  } catch (e) {
    mapDbError(e, jobs.length === 1 ? jobs[0]!.row.key : undefined);
  }
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/**
 * Creates a job with its steps and edges, version 1 (change_type `create`),
 * next_run_at computed from `now`: prepareNewJob's checks, then insertNewJobs.
 * Accepts raw input (parsed with CreateJobInput here too, so callers may pass unparsed JSON).
 * A non-manual schedule with no fire time after `now` (past `once`, exhausted
 * cron year, past `endAt`, empty window) is refused (assertCanFire); when other fields are wrong
 * too, that error comes in the same 400 as theirs (judged at the same `now`).
 * A privileged handler needs the role lib/jobs/handler-permissions.ts names.
 * @throws DomainError validation (400, fields), conflict (409, live key taken at `key`), forbidden.
 */
export async function createJob(db: Db, rawInput: unknown, actor: Actor, now = new Date()): Promise<JobView> {
  const { created, refused } = await insertNewJobs(db, [prepareNewJob(rawInput, actor, now)], actor, now);
  if (refused[0]) throw refused[0].error;
  return created[0]!;
}
