import { randomUUID } from 'node:crypto';
import { inTransaction, Prisma, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { CreateJobInput } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { neverFiresFields } from '../api/never-fires-fields.ts';
import { alarmConfig, assertCanFire, computeNextRunAt, graphRows, policyColumns, routingColumns, scheduleColumns, stepsOf } from './job-input.ts';
import type { JobView } from './job-view.ts';
import { assertKnownHandlers } from './known-handlers.ts';
import { assertPayloadsFit } from '../handlers/check-payloads.ts';
import { assertMayChangeCommand } from './handler-permissions.ts';
import { insertGraph, mapDbError, recordVersion } from './store.ts';

/**
 * Creates a job with its steps and edges, version 1 (change_type `create`),
 * next_run_at computed from `now`. Accepts raw input (parsed with
 * CreateJobInput here too, so callers may pass unparsed JSON).
 * A non-manual schedule with no fire time after `now` (past `once`, exhausted
 * cron year, past `endAt`, empty window) is refused (assertCanFire); when other fields are wrong
 * too, that error comes in the same 400 as theirs (judged at the same `now`).
 * A privileged handler needs the role lib/jobs/handler-permissions.ts names.
 * @throws DomainError validation (400, fields), conflict (409, live key taken at `key`), forbidden.
 */
export async function createJob(db: Db, rawInput: unknown, actor: Actor, now = new Date()): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  const input = parseOrThrow(CreateJobInput, rawInput, () => neverFiresFields(rawInput, now));
  const { steps, jobPayload } = stepsOf(input);
  assertMayChangeCommand(actor, null, { steps: steps ?? [], jobPayload }, { fieldOf: (i) => (input.steps ? `steps.${i}.handler` : 'handler'), what: 'create' });
  const rows = graphRows(steps ?? [], input.edges ?? []);
  const id = randomUUID();
  try {
    return await inTransaction(db, async (tx) => {
      await assertKnownHandlers(tx, steps ?? [], (i) => (input.steps ? `steps.${i}.handler` : 'handler'));
      await assertPayloadsFit(tx, steps ?? [], jobPayload, (i) => (input.steps ? `steps.${i}.payload` : 'payload'));
      const data = {
        id,
        key: input.key,
        name: input.name,
        description: input.description ?? '',
        ...scheduleColumns(input.schedule),
        startAt: input.startAt ?? null,
        endAt: input.endAt ?? null,
        staggerSeconds: input.staggerSeconds ?? 0,
        ...policyColumns(input.policy),
        ...routingColumns(input.routing),
        payload: (jobPayload ?? {}) as Prisma.InputJsonValue,
        alarmConfig: alarmConfig(input.alarms) as unknown as Prisma.InputJsonValue,
        status: 'active' as const,
        version: 1,
        createdBy: actor.name,
        updatedBy: actor.name,
        createdAt: now,
        updatedAt: now,
      };
      let job = await tx.job.create({ data: { ...data, routingLabels: data.routingLabels as Prisma.InputJsonValue } });
      assertCanFire(job, now); // 400 (rolls the insert back) for a schedule that can never fire
      const nextRunAt = computeNextRunAt(job, now);
      if (nextRunAt) job = await tx.job.update({ where: { id }, data: { nextRunAt, updatedAt: now } });
      await insertGraph(tx, id, rows);
      return recordVersion(tx, job, 'create', actor, null, now);
    });
  } catch (e) {
    mapDbError(e, input.key);
  }
}
