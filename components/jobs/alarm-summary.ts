import type { AlarmsView } from '@/lib/jobs/job-view';

/**
 * The job page's Alarms card, "Raised on" row: the outcomes that raise an alarm for this job, in the
 * job form's order, or a sentence saying none does (the row read "On: off" when every switch was off).
 */
export function alarmTriggersText(a: AlarmsView): string {
  const on = [a.onFailure && 'failure', a.onTimeout && 'timeout', a.onDeadLetter && 'dead letter', a.onSuccess && 'success'].filter(
    (x): x is string => typeof x === 'string',
  );
  return on.length ? on.join(', ') : 'nothing: every alarm of this job is off';
}
