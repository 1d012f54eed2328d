import type { Db } from '../db.ts';
import { selectAheadSlots, selectAllAheadSlots } from '../engine/sql/ahead-runs.ts';

/**
 * For the next fire of a page of jobs (docs/on-time.md "Next fire"; the rule is nextFireOf in job-view.ts): the
 * due instant of each job's run created ahead of a slot still to come at `now`, for the jobs that have one. One
 * statement for the whole page, never one per job (the jobs list stays within its 300 ms at 10 million runs,
 * bench/history.ts). Look a job up with aheadSlotOf (ids in any case).
 */
export async function loadAheadSlots(db: Db, jobIds: string[], now: Date): Promise<Map<string, Date>> {
  return selectAheadSlots(db, jobIds, now);
}

/**
 * Every job that has a run created ahead of a slot still to come at `now`, with that slot's due instant
 * (docs/on-time.md "Next fire"): for the overview's Next 24 hours, which must list a job whose next fire is such
 * a slot even when its next_run_at has moved past the horizon, and for the jobs list sorted by next fire. One
 * statement over the open runs whose slot is later than `now` minus the largest stagger (the newest partitions).
 */
export async function loadAllAheadSlots(db: Db, now: Date): Promise<Map<string, Date>> {
  return selectAllAheadSlots(db, now);
}

/** The slot loadAheadSlots found for `jobId`, or null. */
export function aheadSlotOf(slots: Map<string, Date>, jobId: string): Date | null {
  return slots.get(jobId.toLowerCase()) ?? null;
}
