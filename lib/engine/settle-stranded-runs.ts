import type { EngineDb } from '../db.ts';
import { withEngineTransaction } from './pg.ts';
import { finishRunIfDone } from './settle.ts';
import { lockJobRow } from './sql/lock-job-row.ts';
import { selectStrandedRuns } from './sql/select-stranded-runs.ts';

/** A run settled by the reaper: its status afterwards (null: still open, e.g. queued behind a serial gate). */
export interface SettledRun {
  runId: string;
  status: string | null;
}

/**
 * The reaper's repair of open runs in which nothing can move (sql/select-stranded-runs.ts):
 * for each, in its own transaction holding the job and run rows (lock-order.ts), finishRunIfDone:
 * the on_failure children of its successes are skipped by design if that was not recorded, then
 * the run ends when nothing is left (success / failed / ..., its job booked; a true deadlock is
 * resolved as such; a serial_execution gate is left alone). Idempotent: a run
 * another process settled first is simply found ended.
 * @param opts.quietSeconds a run must have been unchanged this long (s) before it is touched
 * @param opts.limit runs per call
 */
export async function settleStrandedRuns(db: EngineDb, opts: { quietSeconds: number; limit: number }, now: Date = new Date()): Promise<SettledRun[]> {
  const runs = await selectStrandedRuns(db, opts, now);
  const out: SettledRun[] = [];
  for (const run of runs) {
    const status = await withEngineTransaction(db, async (tx) => {
      await lockJobRow(tx, { runId: run.id });
      const locked = await tx.$queryRawUnsafe<{ status: string }[]>(
        `SELECT status::text AS status FROM runs WHERE id = $1::uuid AND scheduled_for = $2::timestamptz FOR UPDATE`, run.id, run.scheduledFor,
      );
      if (locked[0]?.status !== 'pending' && locked[0]?.status !== 'running') return locked[0]?.status ?? null;
      return finishRunIfDone(tx, run.id, now);
    });
    out.push({ runId: run.id, status });
  }
  return out;
}
