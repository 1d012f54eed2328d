/**
 * Layout is not configuration: where a step's box sits on the DAG editor's canvas (its `position`) changes
 * nothing a run does, so moving boxes never makes a job version (docs/console.md "Versions and layout"). The one
 * definition of "the same configuration but for the layout", shared by the save (update-job.ts
 * applyJobChanges: a layout-only change stores the positions without a version), the diff of two versions
 * (diff-versions.ts) and the rollback rule (rollback-rule.ts).
 * Pure: no database here, so the Versions tab imports it too.
 */
import type { JobSnapshot, StepView } from './job-view.ts';

/** A step without its layout (its `position`). */
export function stepWithoutLayout<T extends Partial<Pick<StepView, 'position'>>>(step: T): Omit<T, 'position'> {
  const { position: _position, ...rest } = step;
  return rest;
}

/**
 * A snapshot (job_versions.snapshot, or toJobSnapshot of the live job) without its layout: every step's
 * `position` left out. Two snapshots equal but for this differ only in where boxes sit.
 */
export function withoutLayout(snapshot: JobSnapshot | Record<string, unknown>): Record<string, unknown> {
  const s = snapshot as Record<string, unknown>;
  if (!Array.isArray(s.steps)) return s;
  return { ...s, steps: (s.steps as Record<string, unknown>[]).map((st) => stepWithoutLayout(st)) };
}
