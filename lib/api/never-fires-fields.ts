/**
 * The "would never fire" rule (lib/schedule/never-fires.ts neverFiresProblem) applied to a raw job
 * input, as field errors that go out with the schema's in one 400: the server on create and update
 * (lib/jobs/create-job.ts, lib/jobs/update-job.ts) and the job form before sending
 * (components/jobs/use-job-form.ts). Browser-safe: no node: module on the import path.
 */
import { z } from 'zod';
import { Instant, ScheduleInput } from './schemas.ts';
import { neverFiresProblem } from '../schedule/never-fires.ts';
import type { ScheduleSpec } from '../schedule/spec.ts';

/**
 * A job's schedule fields before an update, in the input's shape (a Date is accepted where the
 * input has an ISO string): what the change leaves out keeps these values. `createdAt` anchors an
 * interval without `startAt`, as on the server (lib/schedule/spec.ts fireTimesAfter).
 */
export type ScheduleBase = { schedule: unknown; startAt?: unknown; endAt?: unknown; staggerSeconds?: unknown; createdAt?: Date };

const ScheduleFields = z.object({ schedule: ScheduleInput, startAt: Instant.nullish(), endAt: Instant.nullish() });
type ScheduleFields = z.output<typeof ScheduleFields>;

function specOf(s: ScheduleFields['schedule']): ScheduleSpec {
  return s.kind === 'cron' ? { kind: 'cron', cron: s.cron, timezone: s.timezone ?? 'UTC' } : s;
}

function sameSchedule(a: ScheduleFields, b: ScheduleFields): boolean {
  const key = (s: ScheduleFields) => JSON.stringify([specOf(s.schedule), s.startAt?.getTime() ?? null, s.endAt?.getTime() ?? null]);
  return key(a) === key(b);
}

/**
 * `{ [field]: message }` of a job input whose schedule would never fire after `now` (`schedule.runAt`,
 * `schedule.cron`, `schedule`, `endAt`), else `{}`. `{}` too when `schedule`, `startAt` or `endAt`
 * does not parse (the schema names that field) and, on an update (`base` given), when the change
 * leaves the schedule, window and stagger as they were: the server judges a schedule only when
 * it changes (lib/jobs/update-job.ts), so an exhausted `once` job can still be renamed.
 * @param data the raw input (REST body or the form's CreateJobInput / UpdateJobInput-shaped object)
 * @param now the clock of the save: the `now` the server hands to assertCanFire, the browser's in the form
 * @param base the job's schedule before an update; none on create
 */
export function neverFiresFields(data: unknown, now: Date, base?: ScheduleBase): Record<string, string> {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return {};
  const given = data as Record<string, unknown>;
  const pick = (k: 'schedule' | 'startAt' | 'endAt') => (given[k] !== undefined ? given[k] : base?.[k]);
  const after = ScheduleFields.safeParse({ schedule: pick('schedule'), startAt: pick('startAt'), endAt: pick('endAt') });
  if (!after.success) return {};
  if (base) {
    const before = ScheduleFields.safeParse(base);
    const staggerKept = given.staggerSeconds === undefined || given.staggerSeconds === base.staggerSeconds;
    if (before.success && staggerKept && sameSchedule(before.data, after.data)) return {};
  }
  const s = after.data;
  const problem = neverFiresProblem(
    { spec: specOf(s.schedule), startAt: s.startAt ?? null, endAt: s.endAt ?? null, staggerSeconds: 0, jobId: '', createdAt: base?.createdAt ?? now },
    now,
  );
  return problem ? { [problem.field]: problem.message } : {};
}
