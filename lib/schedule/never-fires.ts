import { nextFireTime, type JobSchedule } from './spec';

/**
 * Why a schedule can never fire again after `now`, or null when it has a next fire (README: "an
 * expression that can never fire ... is refused on save"). The field to blame, as the REST and
 * form errors name it: `endAt` "Is in the past"; `schedule.runAt` "Is in the past" (once);
 * `schedule.cron` "Has no fire time after now"; `schedule` for another kind; else `endAt` "No
 * fire time falls inside startAt..endAt". A schedule the spec itself refuses (a bad cron or zone)
 * counts as never firing here; its own error comes from the schema first.
 * The server applies it on save (lib/jobs/job-input.ts assertCanFire); lib/api/never-fires-fields.ts
 * applies it to a raw input, so that a refused save (REST or the job form, before sending) names it
 * with the other bad fields. Browser-safe: the job form imports it (nothing here reaches node:crypto).
 */
export function neverFiresProblem(schedule: JobSchedule, now: Date): { field: string; message: string } | null {
  if (schedule.spec.kind === 'manual') return null;
  const next = (s: JobSchedule) => {
    try {
      return nextFireTime(s, now);
    } catch {
      return null;
    }
  };
  if (next(schedule)) return null;
  if (schedule.endAt && schedule.endAt.getTime() <= now.getTime()) return { field: 'endAt', message: 'Is in the past: this job would never fire' };
  if (!next({ ...schedule, startAt: null, endAt: null })) {
    if (schedule.spec.kind === 'once') return { field: 'schedule.runAt', message: 'Is in the past: this job would never fire' };
    if (schedule.spec.kind === 'cron') return { field: 'schedule.cron', message: 'Has no fire time after now: this job would never fire' };
    return { field: 'schedule', message: 'Has no fire time after now: this job would never fire' };
  }
  return { field: 'endAt', message: 'No fire time falls inside startAt..endAt: this job would never fire' };
}
