import type { Db } from '../db.ts';
import { isDomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { TriggerJobInput } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { triggerRun, triggerRuns, type TriggerAuthorize } from '../engine/index.ts';
import { toRunSummary, type RunSummary } from '../runs/run-view.ts';
import { findJob, loadGraph } from './store.ts';
import { assertMayChangeCommand, type CommandStep } from './handler-permissions.ts';
import { stepView } from './job-view.ts';
import { assertRunPayloadsFit } from '../handlers/check-payloads.ts';
import { loadInputSchemas } from '../handlers/catalogue.ts';

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
  // the run gets (handler-permissions.ts JobCommand.runPayload), each refusal named at its run.
  // It must also leave every step settings it can run with (lib/handlers/check-payloads.ts): an
  // empty override too, since the merge it completes is then known whole.
  const named = [
    { payload: input.payload, field: 'payload' },
    ...(input.runs ?? []).map((r, i) => ({ payload: r.payload, field: `runs.${i}.payload` })),
  ].filter((o): o is { payload: Record<string, unknown>; field: string } => o.payload !== undefined);
  let schemas: Awaited<ReturnType<typeof loadInputSchemas>> = new Map();
  const judge = (steps: CommandStep[], base: unknown) => {
    for (const { payload, field } of named) {
      assertMayChangeCommand(actor, { steps, jobPayload: base }, { steps, jobPayload: base, runPayload: payload }, {
        fieldOf: () => field,
        what: 'override the payload of',
      });
    }
    assertRunPayloadsFit(steps, base, named, schemas);
  };
  let authorize: TriggerAuthorize | undefined;
  if (named.length) {
    // a refusal before the engine is asked (the job's words for an unknown or deleted job)...
    const job = await findJob(db, jobId);
    const steps = (await loadGraph(db, job)).steps.map(stepView);
    // what handler modules advertise is the workers' (not under the job's lock): read once, here
    schemas = await loadInputSchemas(db, steps.map((s) => s.handler));
    judge(steps, job.payload ?? {});
    // ...and the decision, again under the job row lock the run is inserted under: an admin's edit
    // committed in between (a harmless step made shell) is what the run would get, so it is judged.
    authorize = async (tx) => {
      const rows = await tx.$queryRawUnsafe<{ jobPayload: unknown; key: string | null; handler: string | null; payload: unknown; config: unknown }[]>(
        `SELECT j.payload AS "jobPayload", s.key, s.handler, s.payload, s.config
           FROM jobs j LEFT JOIN job_steps s ON s.job_id = j.id
          WHERE j.id = $1::uuid`,
        jobId,
      );
      const steps = rows.filter((r) => r.handler !== null).map((r) => ({ key: r.key ?? '', handler: r.handler!, payload: r.payload, config: r.config }));
      judge(steps, rows[0]?.jobPayload ?? {});
    };
  }
  try {
    if (input.runs) {
      // Bulk enqueue: one transaction, the block strategy applied in order (lib/engine triggerRuns).
      const made = await triggerRuns(
        db,
        { jobId, trigger: opts.trigger ?? 'manual', triggeredBy: actor.name, scheduledFor: now, runs: input.runs },
        now,
        { authorize },
      );
      // runs just created by their job: it exists (jobPurged false)
      return { runs: made.map((m) => ({ ...toRunSummary(m.run, false), outcome: m.outcome })) };
    }
    const { run, outcome } = await triggerRun(
      db,
      { jobId, trigger: opts.trigger ?? 'manual', triggeredBy: actor.name, scheduledFor: now, payload: input.payload },
      now,
      { authorize },
    );
    return { run: toRunSummary(run, false), outcome };
  } catch (e) {
    // The engine finds the job in its own statement (a trigger costs no read before it); when it finds none,
    // findJob says why in the words every job route uses (unknown, or in the recycle bin).
    if (isDomainError(e) && e.code === 'not_found') await findJob(db, jobId);
    throw e;
  }
}
