/** Names of the schedule inputs an error can point at (used as form field keys by callers). */
export type ScheduleField =
  | 'cron'
  | 'timezone'
  | 'intervalSeconds'
  | 'runAt'
  | 'startAt'
  | 'endAt'
  | 'from'
  | 'count';

/**
 * Expected, user-facing schedule failure (bad cron, unknown zone, bad window...).
 * `field` names the offending input so server actions / REST can map it to a
 * field error; anything else thrown by this module is a bug.
 */
export class ScheduleError extends Error {
  readonly field: ScheduleField;

  constructor(field: ScheduleField, message: string) {
    super(message);
    this.name = 'ScheduleError';
    this.field = field;
  }
}
