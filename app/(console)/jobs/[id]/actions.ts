'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { DiffQuery, IdParams, ReasonInput, RollbackInput, SaveDagInput, TriggerJobInput } from '@/lib/api/schemas';
import { getDb } from '@/lib/db';
import { pauseJob } from '@/lib/jobs/pause-job';
import { resumeJob } from '@/lib/jobs/resume-job';
import { deleteJob } from '@/lib/jobs/delete-job';
import { rollbackJob } from '@/lib/jobs/rollback-job';
import { saveDag } from '@/lib/jobs/save-dag';
import { triggerJob } from '@/lib/jobs/trigger-job';
import { diffVersions, type VersionDiff } from '@/lib/jobs/diff-versions';
import { invalid, toActionError, type ActionResult } from '@/app/_actions/result';

// Thin doors for the job detail page (CONVENTIONS.md §2): actor + role, zod parse, ONE
// lib/jobs (or lib/runs) call, typed result, revalidate. Ids are checked by the domain
// (unknown or malformed -> not_found).

function touched(id: string) {
  revalidatePath(`/jobs/${id}`);
  revalidatePath('/jobs');
}

/** Pause: lib/jobs pauseJob (new version, change_type pause). */
export async function pauseJobAction(id: string, reason?: string): Promise<ActionResult<{ status: string; version: number }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = ReasonInput.safeParse({ reason });
    if (!p.success) return invalid(p.error);
    const job = await pauseJob(getDb(), IdParams.parse({ id }).id, actor, p.data);
    touched(id);
    return { ok: true, data: { status: job.status, version: job.version } };
  } catch (error) {
    return toActionError(error, 'Pause');
  }
}

/** Resume (also clears dead letter): lib/jobs resumeJob. */
export async function resumeJobAction(id: string, reason?: string): Promise<ActionResult<{ status: string; version: number }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = ReasonInput.safeParse({ reason });
    if (!p.success) return invalid(p.error);
    const job = await resumeJob(getDb(), IdParams.parse({ id }).id, actor, p.data);
    touched(id);
    return { ok: true, data: { status: job.status, version: job.version } };
  } catch (error) {
    return toActionError(error, 'Resume');
  }
}

/** Delete (soft, to the recycle bin): lib/jobs deleteJob. The client navigates to /jobs. */
export async function deleteJobAction(id: string, reason?: string): Promise<ActionResult<{ key: string }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = ReasonInput.safeParse({ reason });
    if (!p.success) return invalid(p.error);
    const job = await deleteJob(getDb(), IdParams.parse({ id }).id, actor, p.data);
    touched(id);
    revalidatePath('/recycle-bin');
    return { ok: true, data: { key: job.key } };
  } catch (error) {
    return toActionError(error, 'Delete');
  }
}

/**
 * "Run now" with an optional payload override: lib/jobs triggerJob (manual trigger). Returns the new run's id;
 * for `{ runs: [...] }` (a pasted JSON array) the first run's id and how many runs were created.
 */
export async function triggerJobAction(id: string, input: unknown): Promise<ActionResult<{ runId: string; outcome: string; runs?: number }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = TriggerJobInput.safeParse(input ?? {});
    if (!p.success) return invalid(p.error);
    const r = await triggerJob(getDb(), IdParams.parse({ id }).id, p.data, actor);
    touched(id);
    if ('runs' in r) return { ok: true, data: { runId: r.runs[0]!.id, outcome: r.runs[0]!.outcome, runs: r.runs.length } };
    return { ok: true, data: { runId: r.run.id, outcome: r.outcome } };
  } catch (error) {
    return toActionError(error, 'Run now');
  }
}

/** Rollback to a version as a new version: lib/jobs rollbackJob, with the version the page showed as optimistic lock. */
export async function rollbackJobAction(id: string, input: { version: number; expectedVersion?: number; reason?: string }): Promise<ActionResult<{ version: number }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = RollbackInput.safeParse({ version: input.version, reason: input.reason });
    if (!p.success) return invalid(p.error);
    const job = await rollbackJob(getDb(), IdParams.parse({ id }).id, { ...p.data, expectedVersion: input.expectedVersion }, actor);
    touched(id);
    return { ok: true, data: { version: job.version } };
  } catch (error) {
    return toActionError(error, 'Rollback');
  }
}

/**
 * Saves the DAG from the Graph tab (components/dag JobGraphTab): lib/jobs saveDag with
 * `expectedVersion` (409 on a stale editor). Input: `{ steps, edges, expectedVersion, reason? }`.
 */
export async function saveJobDagAction(id: string, input: unknown): Promise<ActionResult<{ version: number }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = SaveDagInput.safeParse(input);
    if (!p.success) return invalid(p.error);
    const job = await saveDag(getDb(), IdParams.parse({ id }).id, p.data, actor);
    touched(id);
    return { ok: true, data: { version: job.version } };
  } catch (error) {
    return toActionError(error, 'Save graph');
  }
}

/** Read-only: field-level diff of two versions for the Versions tab (lib/jobs diffVersions). */
export async function diffVersionsAction(id: string, from: number, to: number): Promise<ActionResult<VersionDiff>> {
  try {
    const actor = await requireActionActor('viewer');
    const q = DiffQuery.safeParse({ from, to });
    if (!q.success) return invalid(q.error);
    return { ok: true, data: await diffVersions(getDb(), IdParams.parse({ id }).id, q.data.from, q.data.to, actor) };
  } catch (error) {
    return toActionError(error, 'Diff');
  }
}
