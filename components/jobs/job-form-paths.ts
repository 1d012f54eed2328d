/**
 * The job form's fields by the API path of their errors (`policy.timeoutSeconds`, as lib/api/schemas.ts
 * and the server name them): the id of the control that shows the error and the label it carries.
 * The sections take their labels from here and the error summary names fields by them, so the two
 * never disagree. Pure: no React.
 */

/** A form field: `id` of its control, `label` as the form shows it. */
export type FormField = { id: string; label: string };

/** Every form field that shows an error of its own, keyed by its API path, in the order the form shows them. */
export const FORM_FIELDS = {
  key: { id: 'key', label: 'Key' },
  name: { id: 'name', label: 'Name' },
  description: { id: 'description', label: 'Description' },
  schedule: { id: 'scheduleKind', label: 'Schedule' },
  'schedule.cron': { id: 'cron', label: 'Cron expression' },
  'schedule.intervalSeconds': { id: 'intervalSeconds', label: 'Interval (seconds)' },
  'schedule.runAt': { id: 'runAt', label: 'Run at' },
  'schedule.timezone': { id: 'timezone', label: 'Time zone' },
  startAt: { id: 'startAt', label: 'Start at' },
  endAt: { id: 'endAt', label: 'End at' },
  staggerSeconds: { id: 'staggerSeconds', label: 'Stagger (seconds, 0-86400): a stable per-job offset in [0, stagger)' },
  handler: { id: 'handler', label: 'Handler' },
  // a one-step job's handler, as a 403 or an unknown-handler 400 may name it
  'steps.0.handler': { id: 'handler', label: 'Handler' },
  payload: { id: 'payload', label: 'Payload' },
  'policy.timeoutSeconds': { id: 'timeoutSeconds', label: 'Timeout (seconds)' },
  'policy.maxRetries': { id: 'maxRetries', label: 'Max retries' },
  'policy.priority': { id: 'priority', label: 'Priority' },
  'policy.deadLetterAfter': { id: 'deadLetterAfter', label: 'Dead letter after (failed runs, 0 = never)' },
  'policy.backoff.baseSeconds': { id: 'backoffBaseSeconds', label: 'Backoff base (seconds)' },
  'policy.backoff.factor': { id: 'backoffFactor', label: 'Backoff factor' },
  'policy.backoff.maxSeconds': { id: 'backoffMaxSeconds', label: 'Backoff max (seconds)' },
  'policy.backoff.jitter': { id: 'backoffJitter', label: 'Backoff jitter (0–1)' },
  'policy.blockStrategy': { id: 'blockStrategy', label: 'Block strategy' },
  'policy.misfirePolicy': { id: 'misfirePolicy', label: 'Misfire policy' },
  'policy.misfireMaxCatchup': { id: 'misfireMaxCatchup', label: 'Misfire cap (runs)' },
  'routing.nodeGroup': { id: 'routingGroup', label: 'Node group' },
  'routing.labels': { id: 'routingLabels', label: 'Labels' },
  'routing.strategy': { id: 'routingStrategy', label: 'Strategy' },
  'routing.nodes': { id: 'routingNodes', label: 'Nodes' },
  'routing.key': { id: 'routingKey', label: 'Routing key' },
  reason: { id: 'reason', label: 'Reason' },
} as const satisfies Record<string, FormField>;

/** An API path the form has a field for. */
export type FormPath = keyof typeof FORM_FIELDS;

/** The form field of an error path, or undefined for one the form shows no field for (`steps.1.key`). */
export function formField(path: string): FormField | undefined {
  return Object.hasOwn(FORM_FIELDS, path) ? FORM_FIELDS[path as FormPath] : undefined;
}

/**
 * The paths of `errors` in the order the form shows their fields, top to bottom; paths without a
 * field of their own (an alarm channel, `steps.1.key`) after them, as given.
 */
export function inFormOrder(errors: Record<string, string>): string[] {
  const order = Object.keys(FORM_FIELDS);
  const rank = (p: string) => (formField(p) ? order.indexOf(p) : order.length);
  return Object.keys(errors)
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
    .map((x) => x.p);
}

const CHANNEL_TARGET = /^alarms\.channels\.(\d+)\.target$/;

/**
 * The name of an error's field as the user sees it: the field's label ("Timeout (seconds)"), an
 * alarm channel's ("Channel 2 target"), else the path itself (`steps.1.key`, `expectedVersion`).
 */
export function fieldLabel(path: string): string {
  const channel = CHANNEL_TARGET.exec(path);
  if (channel) return `Channel ${Number(channel[1]) + 1} target`;
  return formField(path)?.label ?? path;
}

/**
 * The error summary of a refused save: "Fix 2 fields: Name, Timeout (seconds)" (one entry per
 * label, in the form's order), or undefined when there is no error.
 */
export function errorSummary(errors: Record<string, string>): string | undefined {
  const names = [...new Set(inFormOrder(errors).map(fieldLabel))];
  if (!names.length) return undefined;
  return `Fix ${names.length === 1 ? 'this field' : `${names.length} fields`}: ${names.join(', ')}`;
}
