import { assertKnownHandlers } from './known-handlers.ts';
import { assertPayloadsFit } from '../handlers/check-payloads.ts';
import { assertMayChangeCommand, assertMayUseIdentity, commandOf, type JobCommand } from './handler-permissions.ts';
import { inTransaction, LONG_TRANSACTION_TIMEOUT_MS, Prisma, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import type { Job, JobEdge, JobStep } from '../generated/prisma/client.ts';
import { jsonEqual } from '../api/json-guard.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { UpdateJobInput, type EdgeInput, type StepInput } from '../api/schemas.ts';
import { parseFields, validationError, withFieldErrors } from '../api/validation.ts';
import { neverFiresFields } from '../api/never-fires-fields.ts';
import { validateDag } from '../dag/index.ts';
import { diffSnapshots } from './diff-versions.ts';
import {
  alarmConfig,
  assertCanFire,
  computeNextRunAt,
  graphRows,
  policyColumns,
  routingColumns,
  scheduleChanged,
  scheduleColumns,
  stepsOf,
  withPositions,
} from './job-input.ts';
import { alarmsView, edgeView, policyView, routingView, scheduleSpecOf, stepView, toJobSnapshot, type JobSnapshot, type JobView } from './job-view.ts';
import { findJob, jobAnswer, loadGraph, lockJob, mapDbError, moveSteps, recordVersion, replaceGraph, type ChangeType } from './store.ts';
import { withoutLayout } from './layout-rule.ts';

export type JobChanges = Omit<UpdateJobInput, 'expectedVersion' | 'reason'>;

/**
 * Applies `changes` to the locked job `job` inside `tx`: bumps version, sets
 * updated_by, replaces the graph when steps/edges change, recomputes
 * next_run_at when the schedule changes, writes the version row.
 * A change that leaves the configuration identical (empty PATCH, same values)
 * writes nothing and returns the unchanged job (same version, 200). A change of
 * step positions only (boxes moved in the DAG editor) stores them without a new
 * version: layout is not configuration (layout-rule.ts; docs/console.md
 * "Versions and layout").
 * A schedule/window change that can never fire is a 400 (assertCanFire).
 * A change of what runs is checked by assertMayChangeCommand (403), a change of key or name by
 * assertMayUseIdentity (403 at `key` / `name`: a system job's are the system's, `system.` keys are reserved).
 * Shared by update-job, save-dag and rollback-job.
 */
export async function applyJobChanges(
  tx: Db,
  job: Job,
  changes: JobChanges,
  actor: Actor,
  now: Date,
  changeType: ChangeType,
  reason?: string | null,
): Promise<JobView> {
  const current = await loadGraph(tx, job);
  const { steps: newSteps, jobPayload } = stepsOf(changes, { steps: current.steps.map(stepView), edgeCount: current.edges.length });

  // Graph: new steps (edges given, or current edges whose endpoints survive), or new edges on current steps.
  let graph: { steps: StepInput[]; edges: EdgeInput[] } | null = null;
  if (newSteps || changes.edges) {
    const steps: StepInput[] = newSteps ?? current.steps.map((s) => stepView(s));
    let edges: EdgeInput[];
    if (changes.edges) edges = changes.edges;
    else {
      const keys = new Set(steps.map((s) => s.key));
      edges = current.edges.map(edgeView).filter((e) => keys.has(e.from) && keys.has(e.to));
    }
    // Only handlers this change names: a payload-only change keeps a handler that may no longer be offered.
    if (newSteps && (changes.steps || changes.handler !== undefined)) {
      await assertKnownHandlers(tx, newSteps, (i) => (changes.steps ? `steps.${i}.handler` : 'handler'));
    }
    // Every changed step's payload must fit its handler's advertised input schema (payload-only changes too).
    if (newSteps) {
      const jobPayloadAfter = (jobPayload ?? (job.payload as Record<string, unknown> | null)) ?? {};
      await assertPayloadsFit(tx, newSteps, jobPayloadAfter, (i) => (changes.steps ? `steps.${i}.payload` : 'payload'));
    }
    const r = validateDag({ steps, edges: edges.map((e) => ({ from: e.from, to: e.to, type: e.type ?? 'hard' })) });
    if (!r.ok) {
      const fields = Object.fromEntries(r.errors.map((e) => [e.path, e.message]));
      throw new DomainError('validation', r.errors.map((e) => e.message).join('; '), fields);
    }
    graph = { steps, edges };
  }

  const startAt = changes.startAt !== undefined ? changes.startAt : job.startAt;
  const endAt = changes.endAt !== undefined ? changes.endAt : job.endAt;
  if (startAt && endAt && startAt.getTime() >= endAt.getTime()) {
    throw new DomainError('validation', 'endAt must be after startAt', { endAt: 'endAt must be after startAt' });
  }

  // The configuration after the change, computed in memory first: an update
  // that changes nothing writes nothing (no new version), and a schedule/window
  // change that leaves the job unable to fire is refused before any write.
  const fields: Partial<Job> = stripUndefined({
    key: changes.key,
    name: changes.name,
    description: changes.description,
    ...(changes.schedule ? scheduleColumns(changes.schedule) : {}),
    startAt,
    endAt,
    staggerSeconds: changes.staggerSeconds,
    ...(changes.policy ? policyColumns(changes.policy, policyView(job)) : {}),
    ...(jobPayload !== undefined ? { payload: jobPayload as Prisma.JsonValue } : {}),
    ...(changes.alarms ? { alarmConfig: alarmConfig(changes.alarms, alarmsView(job)) as unknown as Prisma.JsonValue } : {}),
    ...(changes.routing ? (routingColumns(changes.routing, routingView(job)) as Partial<Job>) : {}),
  });
  // What runs may change only as lib/jobs/handler-permissions.ts allows (schedule, policy… stay open).
  // A refusal names the field this change set what runs with: its steps, the shorthand's handler, or
  // a payload alone (the one step's, or the job-level payload of a DAG).
  // The edges are part of what runs: a rewiring alone is refused at `edges`.
  // Where it runs is part of it: re-routing a job an admin made with `shell` is refused at `routing`.
  const next: Job = { ...job, ...fields };
  const commandBefore: JobCommand = { steps: current.steps.map(stepView), edges: current.edges.map(edgeView), jobPayload: job.payload, routing: routingView(job) };
  const commandAfter: JobCommand = {
    steps: graph ? graph.steps : commandBefore.steps,
    edges: graph ? graph.edges : commandBefore.edges,
    jobPayload: jobPayload !== undefined ? jobPayload : job.payload,
    routing: routingView(next),
  };
  const same = (a: JobCommand, b: JobCommand) => jsonEqual(commandOf(a), commandOf(b));
  const routedOnly = same({ ...commandBefore, routing: undefined }, { ...commandAfter, routing: undefined });
  const rewiredOnly = same({ ...commandBefore, edges: [], routing: undefined }, { ...commandAfter, edges: [], routing: undefined });
  assertMayChangeCommand(actor, commandBefore, commandAfter, {
    fieldOf: (i) => (routedOnly ? 'routing' : rewiredOnly ? 'edges' : changes.steps ? `steps.${i}.handler` : changes.handler !== undefined ? 'handler' : 'payload'),
  });
  // A system job's key and name are the system's, and the `system.` key prefix is reserved (403 at `key` / `name`).
  assertMayUseIdentity(actor, { key: job.key, name: job.name, command: commandBefore }, { key: next.key, name: next.name, command: commandAfter });
  const nextRows = graph ? graphRows(graph.steps, graph.edges) : null;
  const nextSteps = nextRows ? nextRows.steps.map((r) => ({ ...r, id: '', jobId: job.id }) as unknown as JobStep) : current.steps;
  const nextEdges = nextRows ? nextRows.edges.map((r) => ({ ...r, id: '', jobId: job.id }) as unknown as JobEdge) : current.edges;
  const before = toJobSnapshot(job, current.steps, current.edges);
  const after = toJobSnapshot(next, nextSteps, nextEdges);
  if (jsonEqual(before, after)) return jobAnswer(tx, current);
  // Only boxes moved: layout, not configuration (layout-rule.ts). The positions are stored, the version stays.
  if (jsonEqual(withoutLayout(before), withoutLayout(after))) {
    await moveSteps(tx, job.id, after.steps);
    return jobAnswer(tx, await loadGraph(tx, job));
  }
  const rescheduled = scheduleChanged(job, next);
  if (rescheduled) assertCanFire(next, now);

  const data: Prisma.JobUncheckedUpdateInput = {
    ...(fields as Prisma.JobUncheckedUpdateInput),
    version: { increment: 1 },
    updatedBy: actor.name,
    updatedAt: now,
  };
  if (fields.routingLabels !== undefined) data.routingLabels = fields.routingLabels as Prisma.InputJsonValue;
  if (fields.payload !== undefined) data.payload = fields.payload as Prisma.InputJsonValue;
  if (fields.alarmConfig !== undefined) data.alarmConfig = fields.alarmConfig as Prisma.InputJsonValue;
  let updated = await tx.job.update({ where: { id: job.id }, data });
  if (rescheduled) {
    updated = await tx.job.update({ where: { id: job.id }, data: { nextRunAt: computeNextRunAt(updated, now) } });
  }
  if (nextRows) await replaceGraph(tx, job.id, nextRows);
  return recordVersion(tx, updated, changeType, actor, reason, now, { commandChanged: !same(commandBefore, commandAfter), rescheduled });
}

/**
 * The one optimistic-lock rule of every change to a job's configuration (update, DAG save, rollback):
 * `expectedVersion` (the version the editor started from; undefined: no lock asked for) must be the
 * job's current version. Both refusals are 409 `conflict` naming `expectedVersion` with
 * detail.currentVersion, so a client reloads the same way after either:
 * - an older version: someone changed the job since (versionConflict: what changed, by whom);
 * - a version the job never had (greater than the current one): nobody changed anything, so the
 *   answer says that version does not exist instead of reporting a change.
 * @throws DomainError('conflict')
 */
export async function assertExpectedVersion(tx: Db, job: Job, expectedVersion: number | undefined): Promise<void> {
  if (expectedVersion === undefined || expectedVersion === job.version) return;
  if (expectedVersion > job.version) {
    throw new DomainError(
      'conflict',
      `Job ${job.key} has no version ${expectedVersion}: its current version is ${job.version} (reload it and edit that one)`,
      { expectedVersion: `Version ${expectedVersion} does not exist; the current version is ${job.version}` },
      { currentVersion: job.version, expectedVersion },
    );
  }
  throw await versionConflict(tx, job, expectedVersion);
}

/**
 * Builds the 409 of an optimistic-lock failure: what changed between the
 * version the editor started from and the current one (never a silent overwrite).
 */
export async function versionConflict(tx: Db, job: Job, expectedVersion: number): Promise<DomainError> {
  const g = await loadGraph(tx, job);
  const current = toJobSnapshot(g.job, g.steps, g.edges);
  const base = await tx.jobVersion.findUnique({ where: { jobId_version: { jobId: job.id, version: expectedVersion } } });
  const diff = base ? diffSnapshots(base.snapshot as unknown as JobSnapshot, current) : null;
  const latest = await tx.jobVersion.findUnique({ where: { jobId_version: { jobId: job.id, version: job.version } } });
  const changedFields = diff?.changedFields ?? [];
  return new DomainError(
    'conflict',
    `Job ${job.key} was changed by ${latest?.createdBy ?? job.updatedBy} (version ${job.version}, you edited version ${expectedVersion})` +
      (changedFields.length ? `: ${changedFields.join(', ')}` : ''),
    { expectedVersion: `Current version is ${job.version}` },
    { currentVersion: job.version, expectedVersion, changedFields, diff, current: { ...current, id: job.id, version: job.version }, changedBy: latest?.createdBy ?? job.updatedBy },
  );
}

/**
 * The "would never fire" error of a refused change, to go out with its schema errors: judged on
 * the job's schedule after the change, at the `now` assertCanFire would use; none for an unknown or
 * deleted job (the 400 names the bad fields, as before the job is looked up).
 */
async function neverFiresOfChange(db: Db, id: string, rawInput: unknown, now: Date): Promise<Record<string, string>> {
  const job = await findJob(db, id).catch(() => null);
  if (!job) return {};
  return neverFiresFields(rawInput, now, { schedule: scheduleSpecOf(job), startAt: job.startAt, endAt: job.endAt, staggerSeconds: job.staggerSeconds, createdAt: job.createdAt });
}

/**
 * Updates a job (PATCH semantics, see UpdateJobInput). Optimistic lock:
 * `expectedVersion` must equal the current version, else DomainError('conflict')
 * with detail { currentVersion, changedFields, diff, current }. A refused input also names a
 * changed schedule that would never fire (neverFiresFields), in the same 400.
 * @throws DomainError validation / not_found (unknown or deleted) / conflict / forbidden.
 */
export async function updateJob(db: Db, id: string, rawInput: unknown, actor: Actor, now = new Date()): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  const parsed = parseFields(UpdateJobInput, rawInput);
  if (!parsed.ok) throw validationError(withFieldErrors(parsed.fields, await neverFiresOfChange(db, id, rawInput, now)));
  const input = parsed.data;
  const { expectedVersion, reason, ...changes } = input;
  // a graph given whole is laid out before the job row is locked (dagre takes seconds on the largest graphs)
  if (changes.steps && changes.edges) changes.steps = withPositions(changes.steps, changes.edges);
  try {
    return await inTransaction(db, async (tx) => {
      const job = await lockJob(tx, id);
      await assertExpectedVersion(tx, job, expectedVersion);
      return applyJobChanges(tx, job, changes, actor, now, 'update', reason);
    }, { timeoutMs: changes.steps || changes.edges ? LONG_TRANSACTION_TIMEOUT_MS : undefined });
  } catch (e) {
    mapDbError(e, input.key);
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
