import type { JobScheduleColumns } from './job-view.ts';
import { canFireProblem } from './job-input.ts';

/**
 * How far ahead a job found able to fire is checked: its verdict is then kept for that long. A day:
 * a job evaluated once a day, however often the overview is loaded.
 */
const CAN_FIRE_AHEAD_MS = 86_400_000;

/** What is known of one job's schedule, for the schedule it had (`key`). */
interface Verdict {
  key: string;
  /** the schedule has no fire left after this instant (ms), so none after any later one */
  endedFrom?: number;
  /** the schedule still fires after this instant (ms), so after any earlier one */
  firesAfter?: number;
}

/** Verdicts of the jobs counted last, by job id; replaced whole on every count (only the jobs passed in stay). */
let verdicts = new Map<string, Verdict>();

const scheduleKey = (j: JobScheduleColumns) =>
  `${j.scheduleKind}\u0000${j.cronExpression}\u0000${j.timezone}\u0000${j.intervalSeconds}\u0000${j.runAt?.getTime()}\u0000${j.startAt?.getTime()}\u0000${j.endAt?.getTime()}\u0000${j.staggerSeconds}\u0000${j.createdAt.getTime()}`;

/**
 * How many of `jobs` have a schedule that can never fire again after `now` (lib/jobs/job-input.ts
 * canFireProblem, the rule of the jobs list's "schedule ended" mark and of Resume's refusal), for the
 * overview's count of paused jobs.
 *
 * The answer is exactly canFireProblem's, but most jobs are not walked on each call: walking a
 * schedule costs tens of microseconds (a cron expression in its zone, twice: the nominal and the
 * due fire), which over a few thousand paused jobs was most of the overview's time. Both halves of
 * the rule are monotone in time: a schedule with a fire after an instant has one after every earlier
 * instant, and one with none after an instant has none after any later one. So a job is checked a day
 * ahead of `now` (CAN_FIRE_AHEAD_MS): if it can fire then, it can until then, and that verdict is kept;
 * otherwise it is checked at `now`, and an ended verdict is kept for good. A verdict belongs to the
 * schedule columns it was found for: an edited job is checked again.
 */
export function countScheduleEnded(jobs: readonly JobScheduleColumns[], now: Date): number {
  const t = now.getTime();
  const next = new Map<string, Verdict>();
  let ended = 0;
  for (const job of jobs) {
    const key = scheduleKey(job);
    let v = verdicts.get(job.id);
    if (!v || v.key !== key || !((v.endedFrom !== undefined && t >= v.endedFrom) || (v.firesAfter !== undefined && t <= v.firesAfter))) {
      const ahead = t + CAN_FIRE_AHEAD_MS;
      if (canFireProblem(job, new Date(ahead)) === null) v = { key, firesAfter: ahead };
      else v = canFireProblem(job, now) === null ? { key, firesAfter: t } : { key, endedFrom: t };
    }
    next.set(job.id, v);
    if (v.endedFrom !== undefined) ended++;
  }
  verdicts = next;
  return ended;
}
