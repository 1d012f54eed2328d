/**
 * Beside a paused job's status: "schedule ended" when its schedule has no fire left (a `once` job that
 * has fired, a window that has ended), so that such a job does not read like one an operator paused.
 * `refusal` is why Resume is refused (lib/jobs/resume-job.ts resumeRefusal), shown on hover; nothing
 * for an active job or one Resume would bring back.
 */
export function ScheduleEnded({ status, refusal }: { status: string; refusal: string | null | undefined }) {
  if (status === 'active' || !refusal) return null;
  return (
    <span className="whitespace-nowrap text-xs text-zinc-600" title={refusal} data-testid="schedule-ended">
      schedule ended
    </span>
  );
}
