import { getDb, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { TriggerJobInput } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { triggerRun } from '../engine/index.ts';
import { toRunSummary, type RunSummary } from '../runs/run-view.ts';
import { findJob, loadGraph } from './store.ts';
import { assertMayChangeCommand } from './handler-permissions.ts';
import { stepView } from './job-view.ts';

export type TriggerResult = { run: RunSummary; outcome: 'started' | 'queued' | 'skipped' | 'covered' };

/**
 * "Run now" / POST /jobs/:id/trigger: creates a run through ENGINE's
 * triggerRun (block strategy applies; scheduled_for = now; triggered_by =
 * actor.name). `payload` (optional, <= 64 KB) is merged over each step's payload.
 * A payload override on a job running a privileged handler needs the role
 * lib/jobs/handler-permissions.ts names.
 * @throws DomainError not_found (unknown/deleted job), validation, forbidden.
 */
export async function triggerJob(
  db: Db = getDb(),
  jobId: string,
  rawInput: unknown,
  actor: Actor,
  opts: { trigger?: 'manual' | 'api' } = {},
  now = new Date(),
): Promise<TriggerResult> {
  requireCan(actor, 'runs.write');
  const input = parseOrThrow(TriggerJobInput, rawInput ?? {});
  const job = await findJob(db, jobId);
  if (input.payload && Object.keys(input.payload).length) {
    // a payload override changes what this run does (merged over the job and step payloads)
    const { steps } = await loadGraph(db, job);
    const views = steps.map(stepView);
    const base = (job.payload ?? {}) as Record<string, unknown>;
    assertMayChangeCommand(actor, { steps: views, jobPayload: base }, { steps: views, jobPayload: { ...base, ...input.payload } }, {
      fieldOf: () => 'payload',
      what: 'override the payload of',
    });
  }
  const { run, outcome } = await triggerRun(
    db,
    { jobId, trigger: opts.trigger ?? 'manual', triggeredBy: actor.name, scheduledFor: now, payload: input.payload },
    now,
  );
  return { run: toRunSummary(run), outcome };
}
