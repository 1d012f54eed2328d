// Pure rules of the job form's fire preview (components/jobs/schedule-preview.tsx), unit-tested beside it.

/** How long the inputs must stay unchanged before a failed preview is shown as an error: a half-typed cron is not one. */
export const ERROR_PAUSE_MS = 1_000;
/** How long the inputs must stay unchanged before the preview is asked for at all. */
export const PREVIEW_DEBOUNCE_MS = 400;

/** The form's label of each field GET /api/v1/schedule/preview may name in a 400. */
const FIELD_LABELS: Record<string, string> = {
  cron: 'Cron expression',
  intervalSeconds: 'Interval (seconds)',
  tz: 'Time zone',
  startAt: 'Start at',
  endAt: 'End at',
  from: 'From',
  count: 'Count',
};

/** The API's error body (`{ error: { message, fields? } }`), as far as the preview reads it. */
export type PreviewApiError = { message?: string; fields?: Record<string, string> } | null | undefined;

/**
 * The message a failed preview shows, naming the form field it is about ("Cron expression: …"), since the
 * preview box sits beside the fields rather than under one. Falls back to the API message, then the status.
 */
export function previewErrorText(error: PreviewApiError, status: number): string {
  const [field, message] = Object.entries(error?.fields ?? {})[0] ?? [];
  if (field && message) {
    const label = FIELD_LABELS[field] ?? field;
    // Most cron messages already say "Cron expression …"; naming it twice reads badly.
    return message.toLowerCase().includes(label.toLowerCase()) ? message : `${label}: ${message}`;
  }
  return error?.message || `Preview failed (${status})`;
}
