import type { Db } from '../db.ts';
import { isDomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { TriggerJobInput } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { triggerRun, triggerRuns } from '../engine/index.ts';
import { toRunSummary, type RunSummary } from '../runs/run-view.ts';
import { findJob, loadGraph } from './store.ts';
import { assertMayChangeCommand } from './handler-permissions.ts';
import { stepView } from './job-view.ts';

export type TriggerOutcome = 'started' | 'queued' | 'skipped' | 'covered';
export type TriggerResult = { run: RunSummary; outcome: TriggerOutcome };
export type BulkTriggerResult = { runs: (RunSummary & { outcome: TriggerOutcome })[] };

/**
 * "Run now" / POST /jobs/:id/trigger: creates a run through ENGINE's
 * triggerRun (block strategy applies; scheduled_for = now; triggered_by =
 * actor.name). `payload` (optional, <= 64 KB) is merged over each step's payload.
 * A payload override on a job running a privileged handler needs the role
 * lib/jobs/handler-permissions.ts names.
 * A body with `runs` creates them all in one transaction (lib/engine triggerRuns).
 * @throws DomainError not_found (unknown/deleted job), validation, forbidden.
 */
export async function triggerJob(
  db: Db,
  jobId: string,
  rawInput: unknown,
  actor: Actor,
  opts: { trigger?: 'manual' | 'api' } = {},
  now = new Date(),
): Promise<TriggerResult | BulkTriggerResult> {
  requireCan(actor, 'runs.write');
  const input = parseOrThrow(TriggerJobInput, rawInput ?? {});
  // A payload override changes what a run does (merged over the job and step payloads, last),
  // so it needs the same permission as changing the job's command, judged in the merge order
  // the run gets (handler-permissions.ts JobCommand.runPayload).
  const overrides = [input.payload, ...(input.runs ?? []).map((r) => r.payload)].filter((p): p is Record<string, unknown> => !!p && Object.keys(p).length > 0);
  if (overrides.length) {
    const job = await findJob(db, jobId);
    const { steps } = await loadGraph(db, job);
    const views = steps.map(stepView);
    const base = (job.payload ?? {}) as Record<string, unknown>;
    for (const payload of overrides) {
      assertMayChangeCommand(actor, { steps: views, jobPayload: base }, { steps: views, jobPayload: base, runPayload: payload }, {
        fieldOf: () => 'payload',
        what: 'override the payload of',
      });
    }
  }
  try {
    if (input.runs) {
      // Bulk enqueue: one transaction, the block strategy applied in order (lib/engine triggerRuns).
      const made = await triggerRuns(
        db,
        { jobId, trigger: opts.trigger ?? 'manual', triggeredBy: actor.name, scheduledFor: now, runs: input.runs },
        now,
      );
      return { runs: made.map((m) => ({ ...toRunSummary(m.run), outcome: m.outcome })) };
    }
    const { run, outcome } = await triggerRun(
      db,
      { jobId, trigger: opts.trigger ?? 'manual', triggeredBy: actor.name, scheduledFor: now, payload: input.payload },
      now,
    );
    return { run: toRunSummary(run), outcome };
  } catch (e) {
    // The engine finds the job in its own statement (a trigger costs no read before it); when it finds none,
    // findJob says why in the words every job route uses (unknown, or in the recycle bin).
    if (isDomainError(e) && e.code === 'not_found') await findJob(db, jobId);
    throw e;
  }
}
