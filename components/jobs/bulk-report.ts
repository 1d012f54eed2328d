// What the jobs list says after a bulk Pause, Resume or Delete (jobs-table.tsx): the console acts on each job in its
// own transaction (lib/jobs/bulk-jobs.ts bulkJobsEach), so the answer is one outcome per job, reported per job.

export type BulkAction = 'pause' | 'resume' | 'delete';
/** One job's outcome, as bulkJobsAction answers it: done, or refused with the action's message (which names the job). */
export type BulkOutcome = { id: string; ok: true } | { id: string; ok: false; message: string };
export type BulkReport = {
  kind: 'success' | 'error';
  title: string;
  /** the refusals, one a line (at most MAX_LISTED, then how many more) */
  description?: string;
  /** the ids refused: they stay ticked, so the operator sees which and can act on them again */
  refused: string[];
};

/** Refusals listed by name in the report; the rest are counted. */
export const MAX_LISTED = 5;

const DONE: Record<BulkAction, string> = { pause: 'paused', resume: 'resumed', delete: 'moved to the recycle bin' };
const jobs = (n: number) => `${n} job${n === 1 ? '' : 's'}`;

/** The report of a bulk `action` whose outcomes are `outcomes` (one per job ticked). */
export function bulkReport(action: BulkAction, outcomes: BulkOutcome[]): BulkReport {
  const refusals = outcomes.filter((o): o is Extract<BulkOutcome, { ok: false }> => !o.ok);
  const done = outcomes.length - refusals.length;
  if (refusals.length === 0) return { kind: 'success', title: `${jobs(done)} ${DONE[action]}`, refused: [] };
  const lines = refusals.slice(0, MAX_LISTED).map((r) => r.message);
  if (refusals.length > MAX_LISTED) lines.push(`…and ${refusals.length - MAX_LISTED} more refused`);
  const title = done === 0 ? `None of ${jobs(outcomes.length)} ${DONE[action]}: ${refusals.length === 1 ? 'refused' : 'each refused'}` : `${done} of ${jobs(outcomes.length)} ${DONE[action]}; ${refusals.length} refused`;
  return { kind: 'error', title, description: lines.join('\n'), refused: refusals.map((r) => r.id) };
}
