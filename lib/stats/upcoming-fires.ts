import type { Db } from '../db.ts';
import { toJobSchedule } from '../engine/tick/plan-job-fire.ts';
import { dueTimesAfter } from '../schedule/stagger.ts';
import { JOB_SCHEDULE_SELECT, nextFireOf } from '../jobs/job-view.ts';
import { aheadSlotOf, selectAllAheadSlots } from '../engine/sql/ahead-runs.ts';

/**
 * One active job's fires inside the horizon (instants ISO-8601 UTC, due instants = slot + stagger).
 * With `more`, the job fires more often than `fires` can list: `fires` is then a sample, its next
 * fire and the first fire in each equal part of the horizon, so it spreads as the fires do.
 * `count` is how many fires the horizon holds; with `countIsLowerBound` the counting stopped at the
 * overview's budget (COUNT_BUDGET) and the job fires at least that often. `timezone` is the job's
 * own zone, in which the console writes its next fire (docs/console.md).
 */
export type UpcomingFire = { jobId: string; jobKey: string; jobName: string; timezone: string; fires: string[]; more: boolean; count: number; countIsLowerBound: boolean };

/**
 * Fire times walked to count the fires of all listed jobs together, per call: an exact "1,440 in 24 h"
 * for an every-minute job and 17,280 for an every-5-s one, while a page of every-second jobs (polled
 * every few seconds by each open overview) costs at most some tens of milliseconds of CPU.
 */
export const COUNT_BUDGET = 50_000;

/**
 * What fires in the next `horizonMs` (default 24 h): active jobs whose next due instant falls before the horizon
 * (soonest first, at most `maxJobs`), each with its due instants computed by the tick's own rules
 * (lib/engine/tick toJobSchedule + lib/schedule dueTimesAfter: zone, window, stagger), at most
 * `perJob` per job (`more` when there are others: then a sample over the whole horizon, UpcomingFire), and how
 * many there are (`count`, exact within COUNT_BUDGET).
 * A job's first due instant is its next fire (docs/on-time.md "Next fire", lib/jobs nextFireOf): the slot of a run
 * created ahead of a slot still to come, then the schedule's slots after it. An overdue next_run_at is listed as it
 * is (due now).
 * @param now the clock (ms precision).
 */
export async function getUpcomingFires(db: Db, now: Date, opts: { horizonMs?: number; perJob?: number; maxJobs?: number } = {}): Promise<UpcomingFire[]> {
  const horizon = now.getTime() + (opts.horizonMs ?? 86_400_000);
  const perJob = opts.perJob ?? 96;
  const maxJobs = opts.maxJobs ?? 30;
  const select = { ...JOB_SCHEDULE_SELECT, key: true, name: true, status: true, deletedAt: true, nextRunAt: true } as const;
  // A job's first fire is its next fire (docs/on-time.md "Next fire", nextFireOf): the slot of a run created ahead
  // when it has one. Such a job's next_run_at already names the slot after, which may lie past the horizon (a weekly
  // job) or be gone (a `once` job the tick paused), so those jobs are read by id besides the active ones due in it.
  const ahead = await selectAllAheadSlots(db, now);
  const [due, withAhead] = await Promise.all([
    db.job.findMany({
      where: { deletedAt: null, status: 'active', nextRunAt: { lte: new Date(horizon) } },
      orderBy: [{ nextRunAt: 'asc' }, { id: 'asc' }],
      take: maxJobs,
      select,
    }),
    ahead.size ? db.job.findMany({ where: { deletedAt: null, id: { in: [...ahead.keys()] } }, select }) : Promise.resolve([]),
  ]);
  const firstFire = new Map<string, Date>();
  const byId = new Map<string, (typeof due)[number]>();
  for (const j of [...due, ...withAhead]) {
    const first = nextFireOf(j, aheadSlotOf(ahead, j.id));
    if (!first || first.getTime() > horizon) continue;
    firstFire.set(j.id, first);
    byId.set(j.id, j);
  }
  // Soonest next fire first; the cut at maxJobs is made after the jobs with runs created ahead joined.
  const jobs = [...byId.values()]
    .sort((a, b) => firstFire.get(a.id)!.getTime() - firstFire.get(b.id)!.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, maxJobs);
  const out: UpcomingFire[] = [];
  let budget = COUNT_BUDGET;
  for (const j of jobs) {
    const next = firstFire.get(j.id)!;
    const fires = [next.toISOString()];
    let more = false;
    let count = 1;
    let countIsLowerBound = false;
    // A job that is not active (a dead-letter job, a `once` job the tick paused) fires only the slot it has a run
    // created ahead for: the tick fires nothing after it.
    if (j.status === 'active') {
      try {
        const schedule = toJobSchedule({ ...j, nextRunAt: next, misfirePolicy: 'skip', misfireMaxCatchup: 0 });
        // An overdue next fire (the tick was down) is listed once, as due now; the slots between it and now are
        // the misfire policy's to fire or skip, not upcoming fires, and walking them after a long outage cost
        // the overview seconds of CPU for counts like "2,168 fires in 24 h" of an hourly job.
        for (const t of dueTimesAfter(schedule, new Date(Math.max(next.getTime(), now.getTime())))) {
          const due = t.getTime();
          if (due > horizon) break;
          if (budget <= 0) {
            countIsLowerBound = true;
            break;
          }
          budget--;
          count++;
          if (fires.length < perJob) fires.push(new Date(due).toISOString());
          else more = true;
        }
        if (more) {
          const first = next.getTime();
          fires.splice(1, fires.length - 1, ...sampleFires(schedule, Math.max(first, now.getTime()), horizon, perJob - 1));
        }
      } catch {
        // A schedule the tick cannot evaluate either: show its next fire only (the job page names the error).
      }
    }
    out.push({ jobId: j.id, jobKey: j.key, jobName: j.name, timezone: j.timezone, fires, more, count, countIsLowerBound });
  }
  return out;
}

/**
 * The first due instant in each of `parts` equal parts of (from, horizon] (epoch ms; `from`
 * itself excluded: the caller lists it), as ISO strings, skipping parts without one: the dots
 * of a job that fires more often than it can draw.
 */
function sampleFires(schedule: ReturnType<typeof toJobSchedule>, from: number, horizon: number, parts: number): string[] {
  const out: string[] = [];
  const width = (horizon - from) / parts;
  for (let i = 1; i <= parts; i++) {
    const start = from + (i - 1) * width;
    const end = from + i * width;
    // The first slot whose due instant is at or after `start` (slots due strictly after the instant given).
    for (const t of dueTimesAfter(schedule, new Date(start - 1))) {
      const due = t.getTime();
      if (due <= from) continue;
      if (due < end) out.push(new Date(due).toISOString());
      break;
    }
  }
  return out;
}
