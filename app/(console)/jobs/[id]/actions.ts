'use server';

import { DiffQuery, IdParams, ReasonInput, RollbackInput, TriggerJobInput } from '@/lib/api/schemas';
import { pauseJob } from '@/lib/jobs/pause-job';
import { resumeJob } from '@/lib/jobs/resume-job';
import { deleteJob } from '@/lib/jobs/delete-job';
import { rollbackJob } from '@/lib/jobs/rollback-job';
import { saveDag } from '@/lib/jobs/save-dag';
import { triggerJob } from '@/lib/jobs/trigger-job';
import { diffVersions } from '@/lib/jobs/diff-versions';
import { z } from 'zod';
import { actionArgs, defineAction, IdArg } from '@/app/_actions/define-action';

// Doors for the job detail page (app/_actions/define-action.ts: role from the
// operation, parse, ONE lib/jobs call, typed result, revalidate). Ids are checked by
// the domain (unknown or malformed -> not_found).

const touched = (_: unknown, [id]: readonly unknown[]) => [`/jobs/${String(id)}`, '/jobs'];
const idOf = (id: string) => IdParams.parse({ id }).id;
const idAndReason = actionArgs(['id', IdArg], ['reason', ReasonInput.shape.reason]);

/** Pause: lib/jobs pauseJob (new version, change_type pause). */
export const pauseJobAction = defineAction(
  'jobs.pause',
  'Pause',
  idAndReason,
  async ({ db, actor }, id: string, reason?: string) => {
    const job = await pauseJob(db, idOf(id), actor, { reason });
    return { status: job.status, version: job.version };
  },
  { revalidate: touched },
);

/** Resume (also clears dead letter): lib/jobs resumeJob. */
export const resumeJobAction = defineAction(
  'jobs.resume',
  'Resume',
  idAndReason,
  async ({ db, actor }, id: string, reason?: string) => {
    const job = await resumeJob(db, idOf(id), actor, { reason });
    return { status: job.status, version: job.version };
  },
  { revalidate: touched },
);

/** Delete (soft, to the recycle bin): lib/jobs deleteJob. The client navigates to /jobs. */
export const deleteJobAction = defineAction(
  'jobs.delete',
  'Delete',
  idAndReason,
  async ({ db, actor }, id: string, reason?: string) => {
    const job = await deleteJob(db, idOf(id), actor, { reason });
    return { key: job.key };
  },
  { revalidate: (_, [id]) => [`/jobs/${id}`, '/jobs', '/recycle-bin'] },
);

/**
 * "Run now" with an optional payload override: lib/jobs triggerJob (manual trigger). Returns the new run's id;
 * for `{ runs: [...] }` (a pasted JSON array) the first run's id, how many runs were made, how many of them the
 * block strategy skipped at once and their distinct reasons (runs.reason).
 */
export const triggerJobAction = defineAction(
  'jobs.trigger',
  'Run now',
  actionArgs(['id', IdArg], ['input', TriggerJobInput.optional()]),
  async ({ db, actor }, id: string, input?: unknown): Promise<{ runId: string; outcome: string; runs?: number; skipped?: number; skipReasons?: string[] }> => {
    const r = await triggerJob(db, idOf(id), input ?? {}, actor);
    if ('runs' in r) {
      const skipped = r.runs.filter((x) => x.outcome === 'skipped');
      const skipReasons = [...new Set(skipped.map((x) => x.reason ?? 'skipped'))];
      return { runId: r.runs[0]!.id, outcome: r.runs[0]!.outcome, runs: r.runs.length, skipped: skipped.length, skipReasons };
    }
    return { runId: r.run.id, outcome: r.outcome };
  },
  { revalidate: touched },
);

/** Rollback to a version as a new version: lib/jobs rollbackJob, with the version the page showed as optimistic lock. */
export const rollbackJobAction = defineAction(
  'jobs.rollback',
  'Rollback',
  actionArgs(['id', IdArg], ['input', RollbackInput]),
  async ({ db, actor }, id: string, input: { version: number; expectedVersion?: number; reason?: string }) => {
    const job = await rollbackJob(db, idOf(id), input, actor);
    return { version: job.version };
  },
  { revalidate: touched },
);

/**
 * Saves the DAG from the Graph tab (components/dag JobGraphTab): lib/jobs saveDag with
 * `expectedVersion` (409 on a stale editor). Input: `{ steps, edges, expectedVersion, reason? }`.
 */
export const saveJobDagAction = defineAction(
  'jobs.saveDag',
  'Save graph',
  actionArgs(['id', IdArg], ['input', z.unknown()]), // saveDag parses it with SaveDagInput, as PUT /jobs/:id/dag does
  async ({ db, actor }, id: string, input: unknown) => {
    const job = await saveDag(db, idOf(id), input, actor);
    return { version: job.version };
  },
  { revalidate: touched },
);

/** Read-only: field-level diff of two versions for the Versions tab (lib/jobs diffVersions). */
export const diffVersionsAction = defineAction(
  'jobs.diff',
  'Diff',
  actionArgs(['id', IdArg], ['from', DiffQuery.shape.from], ['to', DiffQuery.shape.to]),
  async ({ db, actor }, id: string, from: number, to: number) => diffVersions(db, idOf(id), from, to, actor),
);
