'use client';

import * as React from 'react';
import Link from 'next/link';
import { useActionState, startTransition } from 'react';
import { Plus, RefreshCw, Trash2, TriangleAlert } from 'lucide-react';
import { Button } from '../ui/button';
import { Card, CardBody, CardHeader } from '../ui/card';
import { Field, controlProps, errorId } from '../ui/field';
import { Input, NativeSelect, Textarea } from '../ui/input';
import { cn } from '../ui/cn';
import { useToast } from '../ui/toast';
import { TimezonePicker } from './timezone-picker';
import { CronPreview } from './schedule-preview';
import { EMPTY_JOB_FORM, toJobInput, zonedLocalToUtc, type JobFormValues, type ScheduleKind } from './form-values';
import { formatUtc } from '../time';
import { PayloadEditor } from '../handlers/schema-form';
import { defaultsNote, unavailableNote, useHandlerCatalogue } from '../handlers/use-handler-catalogue';
import { useUser } from '../role';
import { mayUsePrivilege, stepPrivilege, type HandlerPrivilege } from '@/lib/jobs/handler-permissions';

/** Result shape of the create/update server actions (app/_actions/result.ts ActionResult). */
export type JobFormResult =
  | { ok: true; data: { id: string } }
  | { ok: false; error: string; fields?: Record<string, string>; code?: string; detail?: Record<string, unknown> };

export type JobFormProps = {
  mode: 'create' | 'edit';
  /** Starting values (EMPTY_JOB_FORM for create, the job's current values for edit). */
  initial?: JobFormValues;
  /** IANA zones for the picker (lib/schedule listTimeZones, passed from the server page). */
  timeZones: string[];
  /** Handler names offered in the select (built-ins + those online workers report). */
  handlers: string[];
  /**
   * The server action: gets the CreateJobInput-shaped object (plus `expectedVersion`
   * in edit mode) and answers ok (then usually redirects) or errors keyed by field path.
   */
  submit: (input: Record<string, unknown>) => Promise<JobFormResult>;
  /** Edit mode: the version the editor started from (optimistic lock). */
  expectedVersion?: number;
  cancelHref: string;
  /** Handlers this deployment marks privileged (TICKFLOW_PRIVILEGED_HANDLERS, read on the server). */
  privilegedHandlers?: string[];
};

function jsonObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const KINDS: { value: ScheduleKind; label: string; hint: string }[] = [
  { value: 'cron', label: 'Cron', hint: 'Calendar times, in a time zone' },
  { value: 'interval', label: 'Interval', hint: 'Every N seconds' },
  { value: 'once', label: 'Once', hint: 'A single date and time' },
  { value: 'manual', label: 'Manual', hint: 'Only Run now / API' },
];

/**
 * Create/edit form for every field of a job. Values live in React state (the user's
 * input survives a failed save); errors from the server action (`fields`, dotted
 * paths like `schedule.cron`, `payload`, `policy.timeoutSeconds`) render next to their
 * fields, client-side checks (JSON, labels) use the same paths. A 409 conflict in edit
 * mode shows a banner with the newer version and a reload option; nothing is
 * overwritten silently.
 */
export function JobForm({ mode, initial = EMPTY_JOB_FORM, timeZones, handlers, submit, expectedVersion, cancelHref, privilegedHandlers = [] }: JobFormProps) {
  const [v, setV] = React.useState<JobFormValues>(initial);
  // Executor permissions (lib/jobs/handler-permissions.ts, the rule the server applies):
  // handlers the user may not put on a job are disabled, and on a job that already runs
  // one, what it runs is read-only, with the reason shown.
  const user = useUser();
  const who = { kind: 'user' as const, role: user?.role ?? 'viewer' };
  const privilegeOf = (h: string, payload?: string): HandlerPrivilege | null => stepPrivilege({ handler: h, payload: payload ? jsonObject(payload) : {} }, {}, privilegedHandlers);
  const initialPrivilege = mode === 'edit' && initial.singleStep ? privilegeOf(initial.handler, initial.payload) : null;
  const lockedCommand = initialPrivilege && !mayUsePrivilege(who, initialPrivilege) ? initialPrivilege : null;
  const refusedHandlers = handlers.map((h) => ({ h, p: privilegeOf(h) })).filter((x) => x.p && !mayUsePrivilege(who, x.p));
  const [clientErrors, setClientErrors] = React.useState<Record<string, string>>({});
  const { toast } = useToast();
  const [state, dispatch, pending] = useActionState<JobFormResult | null, Record<string, unknown>>(async (_prev, input) => {
    const r = await submit(input);
    if (!r.ok && r.code !== 'validation') toast({ kind: 'error', title: mode === 'create' ? 'Job not created' : 'Job not saved', description: r.error });
    if (r.ok) toast({ kind: 'success', title: mode === 'create' ? 'Job created' : 'Job saved' });
    return r;
  }, null);

  const serverFields = state && !state.ok ? (state.fields ?? {}) : {};
  const err = (path: string): string | undefined => clientErrors[path] ?? serverFields[path];
  const set = <K extends keyof JobFormValues>(k: K, value: JobFormValues[K]) => setV((p) => ({ ...p, [k]: value }));
  const text = (k: keyof JobFormValues) => ({
    value: v[k] as string,
    onChange: (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => set(k, e.target.value as never),
  });
  const conflict = state && !state.ok && state.code === 'conflict' && mode === 'edit' && !state.fields?.key ? state : null;
  // Server field errors the form has no place for (e.g. `steps.0.key`) still show in the summary.
  const known = new Set(FIELD_PATHS);
  const orphan = Object.entries(serverFields).filter(([p]) => !known.has(p) && !p.startsWith('alarms.channels.'));

  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault();
    const { input, errors } = toJobInput(v);
    setClientErrors(errors);
    if (Object.keys(errors).length) {
      focusFirstError(errors);
      return;
    }
    if (mode === 'edit') {
      input.expectedVersion = expectedVersion;
      // The handler shorthand replaces the job's steps with one step `main`: only send it when it changed.
      if (v.handler === initial.handler && v.payload.trim() === initial.payload.trim()) {
        delete input.handler;
        delete input.payload;
      }
    }
    startTransition(() => dispatch(input));
  };

  React.useEffect(() => {
    if (state && !state.ok && state.fields) focusFirstError(state.fields);
  }, [state]);

  const catalogue = useHandlerCatalogue();
  const handlerEntry = catalogue.get(v.handler);
  // Server errors inside the payload (`payload.items.0`), keyed by their path inside it, for the payload form.
  const payloadErrors = Object.fromEntries(Object.entries(serverFields).filter(([p]) => p.startsWith('payload.')).map(([p, m]) => [p.slice('payload.'.length), m]));
  const handlerOptions = React.useMemo(() => (handlers.includes(v.handler) || !v.handler ? handlers : [v.handler, ...handlers]), [handlers, v.handler]);

  return (
    <form onSubmit={onSubmit} noValidate className="max-w-5xl space-y-4" aria-label={mode === 'create' ? 'New job' : 'Edit job'}>
      {conflict ? (
        <div role="alert" data-testid="conflict-banner" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-[13px] text-amber-900">
          <div className="flex items-start gap-2">
            <TriangleAlert className="mt-0.5 size-4 shrink-0" />
            <div className="min-w-0 flex-1">
              <p className="font-medium">Someone else changed this job while you were editing.</p>
              <p className="mt-0.5">{conflict.error}</p>
              <ConflictDetail detail={conflict.detail} expectedVersion={expectedVersion} />
              <p className="mt-1 text-xs">Your edits are still in the form below and were not saved. Reload to start from the latest version (your edits will be discarded), or copy what you need first.</p>
            </div>
            <Button size="sm" onClick={() => window.location.reload()}>
              <RefreshCw />
              Reload latest
            </Button>
          </div>
        </div>
      ) : state && !state.ok && (state.code === 'validation' || Object.keys(serverFields).length) ? (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-[13px] text-red-800">
          {state.error}
          {orphan.length ? (
            <ul className="mt-1 list-disc pl-5 text-xs">
              {orphan.map(([p, m]) => (
                <li key={p}>
                  <span className="font-mono">{p}</span>: {m}
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}

      <Card>
        <CardHeader title="General" />
        <CardBody className="grid grid-cols-1 gap-4 md:grid-cols-2">
          <Field id="key" label="Key" error={err('key')} hint="Unique id for the API and logs, e.g. report.daily">
            <Input {...controlProps('key', err('key'))} {...text('key')} className="font-mono" placeholder="report.daily" autoFocus={mode === 'create'} />
          </Field>
          <Field id="name" label="Name" error={err('name')}>
            <Input {...controlProps('name', err('name'))} {...text('name')} placeholder="Daily report" />
          </Field>
          <Field id="description" label="Description" error={err('description')} className="md:col-span-2">
            <Textarea {...controlProps('description', err('description'))} {...text('description')} rows={2} />
          </Field>
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Schedule" description="When the job fires. Times are evaluated in the job's time zone." />
        <CardBody className="space-y-4">
          <div role="radiogroup" aria-label="Schedule kind" className="inline-flex rounded-md border border-zinc-200 bg-zinc-50 p-0.5">
            {KINDS.map((k) => (
              <button
                key={k.value}
                type="button"
                role="radio"
                aria-checked={v.scheduleKind === k.value}
                title={k.hint}
                onClick={() => set('scheduleKind', k.value)}
                className={cn('rounded px-3 py-1 text-[13px] font-medium', v.scheduleKind === k.value ? 'bg-white text-zinc-900 shadow-xs ring-1 ring-zinc-200' : 'text-zinc-500 hover:text-zinc-800')}
              >
                {k.label}
              </button>
            ))}
          </div>
          {err('schedule') ? <p className="text-xs text-red-600" role="alert">{err('schedule')}</p> : null}

          <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
            <div className="space-y-4">
              {v.scheduleKind === 'cron' ? (
                <Field id="cron" label="Cron expression" error={err('schedule.cron')} hint="5 fields (minute hour day month weekday) or 6 with seconds first">
                  <Input {...controlProps('cron', err('schedule.cron'))} {...text('cron')} className="font-mono" placeholder="0 2 * * *" spellCheck={false} />
                </Field>
              ) : null}
              {v.scheduleKind === 'interval' ? (
                <Field id="intervalSeconds" label="Interval (seconds)" error={err('schedule.intervalSeconds')}>
                  <Input {...controlProps('intervalSeconds', err('schedule.intervalSeconds'))} {...text('intervalSeconds')} type="number" min={1} />
                </Field>
              ) : null}
              {v.scheduleKind === 'once' ? (
                <Field id="runAt" label="Run at" error={err('schedule.runAt')} hint={onceHint(v)}>
                  <Input {...controlProps('runAt', err('schedule.runAt'))} {...text('runAtLocal')} type="datetime-local" />
                </Field>
              ) : null}
              {v.scheduleKind !== 'interval' && v.scheduleKind !== 'manual' ? (
                <Field id="timezone" label="Time zone" error={err('schedule.timezone')}>
                  <TimezonePicker id="timezone" value={v.timezone} onChange={(tz) => set('timezone', tz)} zones={timeZones} invalid={!!err('schedule.timezone')} describedBy={err('schedule.timezone') ? errorId('timezone') : undefined} />
                </Field>
              ) : null}
              {v.scheduleKind === 'manual' ? <p className="text-[13px] text-zinc-500">A manual job never fires by itself: start it with Run now or POST /api/v1/jobs/:id/trigger.</p> : null}
            </div>
            {v.scheduleKind === 'cron' ? <CronPreview cron={v.cron} timezone={v.timezone} /> : null}
          </div>

          {v.scheduleKind !== 'manual' ? (
            <details className="group" open={!!(v.startAtLocal || v.endAtLocal || err('startAt') || err('endAt'))}>
              <summary className="cursor-pointer text-xs font-medium text-zinc-600">Effective window (optional)</summary>
              <div className="mt-3 grid grid-cols-1 gap-4 md:grid-cols-2">
                <Field id="startAt" label={`Start at (${v.timezone || 'UTC'})`} error={err('startAt')}>
                  <Input {...controlProps('startAt', err('startAt'))} {...text('startAtLocal')} type="datetime-local" />
                </Field>
                <Field id="endAt" label={`End at (${v.timezone || 'UTC'})`} error={err('endAt')}>
                  <Input {...controlProps('endAt', err('endAt'))} {...text('endAtLocal')} type="datetime-local" />
                </Field>
              </div>
            </details>
          ) : null}
          {v.scheduleKind !== 'manual' ? (
            <details className="group" open={!!((v.staggerSeconds && v.staggerSeconds !== '0') || err('staggerSeconds'))}>
              <summary className="cursor-pointer text-xs font-medium text-zinc-600">Stagger (optional)</summary>
              <div className="mt-3 grid grid-cols-1 gap-4 md:grid-cols-2">
                {numberField('staggerSeconds', 'Stagger (s, 0-86400): a stable per-job offset in [0, stagger)', 'staggerSeconds', 'staggerSeconds')}
              </div>
            </details>
          ) : null}
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="What to run" description={v.singleStep ? 'A one-step job. Add more steps and dependencies in the Graph tab after saving.' : 'This job has several steps; edit handlers and payloads in the Graph tab.'} />
        {v.singleStep ? (
          <CardBody className="grid grid-cols-1 gap-4 md:grid-cols-[minmax(200px,280px)_1fr]">
            {lockedCommand ? (
              <p role="note" data-testid="privileged-reason" className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-[13px] text-amber-900 md:col-span-2">
                Only {lockedCommand.level === 'system' ? 'the system' : 'an admin'} may change what this job runs: {lockedCommand.reason}. You may still change its schedule, policy,
                routing and alarms, and pause or resume it.
              </p>
            ) : null}
            <Field
              id="handler"
              label="Handler"
              error={err('handler') ?? err('steps.0.handler')}
              hint={
                !lockedCommand && refusedHandlers.length ? (
                  <span data-testid="handler-restrictions">
                    Not available to you: {refusedHandlers.map((x) => `${x.h} (${x.p!.reason})`).join('; ')}.
                  </span>
                ) : (
                  [handlerEntry?.description, unavailableNote(handlerEntry), defaultsNote(handlerEntry)].filter(Boolean).join(' · ') || undefined
                )
              }
            >
              <NativeSelect {...controlProps('handler', err('handler'))} {...text('handler')} disabled={!!lockedCommand} title={lockedCommand?.reason}>
                {handlerOptions.map((h) => {
                  const p = privilegeOf(h);
                  const refused = !!p && !mayUsePrivilege(who, p) && h !== initial.handler;
                  return (
                    <option key={h} value={h} disabled={refused} title={catalogue.get(h)?.description}>
                      {refused ? `${h} (${p!.level === 'system' ? 'system jobs only' : 'admin only'})` : h}
                      {unavailableNote(catalogue.get(h)) ? ' (unavailable)' : ''}
                    </option>
                  );
                })}
              </NativeSelect>
            </Field>
            <Field id="payload" label="Payload" error={err('payload')} hint="JSON object handed to the handler (builtin.sleep: {&quot;ms&quot;: 500}; http: method, url, headers, body)">
              {lockedCommand ? (
                <Textarea {...controlProps('payload', err('payload'))} {...text('payload')} mono rows={6} spellCheck={false} disabled title={lockedCommand.reason} />
              ) : (
                <PayloadEditor handler={v.handler} text={v.payload} onText={(t) => set('payload', t)} serverErrors={payloadErrors}>
                  <Textarea {...controlProps('payload', err('payload'))} {...text('payload')} mono rows={6} spellCheck={false} />
                </PayloadEditor>
              )}
            </Field>
          </CardBody>
        ) : null}
      </Card>

      <Card>
        <CardHeader title="Policy" description="Timeouts, retries with exponential backoff, and what happens on overlap, downtime and repeated failure." />
        <CardBody className="grid grid-cols-2 gap-4 md:grid-cols-4">
          {numberField('timeoutSeconds', 'Timeout (s)', 'policy.timeoutSeconds', 'timeoutSeconds')}
          {numberField('maxRetries', 'Max retries', 'policy.maxRetries', 'maxRetries')}
          {numberField('priority', 'Priority', 'policy.priority', 'priority')}
          {numberField('deadLetterAfter', 'Dead letter after (failed runs, 0 = never)', 'policy.deadLetterAfter', 'deadLetterAfter')}
          {numberField('backoffBaseSeconds', 'Backoff base (s)', 'policy.backoff.baseSeconds', 'backoffBaseSeconds', 'any')}
          {numberField('backoffFactor', 'Backoff factor', 'policy.backoff.factor', 'backoffFactor', 'any')}
          {numberField('backoffMaxSeconds', 'Backoff max (s)', 'policy.backoff.maxSeconds', 'backoffMaxSeconds', 'any')}
          {numberField('backoffJitter', 'Backoff jitter (0–1)', 'policy.backoff.jitter', 'backoffJitter', 'any')}
          <Field id="blockStrategy" label="Block strategy" error={err('policy.blockStrategy')} className="col-span-2">
            <NativeSelect {...controlProps('blockStrategy', err('policy.blockStrategy'))} {...text('blockStrategy')}>
              <option value="discard_later">discard_later — skip a fire while a run is active</option>
              <option value="serial_execution">serial_execution — queue behind the active run</option>
              <option value="cover_early">cover_early — cancel the active run, start the new one</option>
            </NativeSelect>
          </Field>
          <Field id="misfirePolicy" label="Misfire policy" error={err('policy.misfirePolicy')}>
            <NativeSelect {...controlProps('misfirePolicy', err('policy.misfirePolicy'))} {...text('misfirePolicy')}>
              <option value="skip">skip</option>
              <option value="fire_once">fire_once</option>
              <option value="fire_all">fire_all (capped)</option>
            </NativeSelect>
          </Field>
          {numberField('misfireMaxCatchup', 'Misfire cap (runs)', 'policy.misfireMaxCatchup', 'misfireMaxCatchup')}
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Routing" description="Which workers may run this job's tasks." />
        <CardBody className="grid grid-cols-1 gap-4 md:grid-cols-3">
          <Field id="routingGroup" label="Node group" error={err('routing.nodeGroup')} hint="Empty: any group">
            <Input {...controlProps('routingGroup', err('routing.nodeGroup'))} {...text('routingGroup')} placeholder="default" />
          </Field>
          <Field id="routingLabels" label="Labels" error={err('routing.labels')} hint="key=value, comma-separated; a worker must carry all">
            <Input {...controlProps('routingLabels', err('routing.labels'))} {...text('routingLabels')} placeholder="region=eu, gpu=true" />
          </Field>
          <Field id="routingStrategy" label="Strategy" error={err('routing.strategy')}>
            <NativeSelect {...controlProps('routingStrategy', err('routing.strategy'))} {...text('routingStrategy')}>
              <option value="any">any — first free matching worker</option>
              <option value="consistent_hash">consistent_hash — same worker for the same key</option>
              <option value="nodes">nodes — only the listed nodes</option>
            </NativeSelect>
          </Field>
          {v.routingStrategy === 'nodes' ? (
            <Field id="routingNodes" label="Nodes" error={err('routing.nodes')} hint="Node ids, comma-separated" className="md:col-span-2">
              <Input {...controlProps('routingNodes', err('routing.nodes'))} {...text('routingNodes')} />
            </Field>
          ) : null}
          {v.routingStrategy === 'consistent_hash' ? (
            <Field id="routingKey" label="Routing key" error={err('routing.key')} hint="Hashed to pick the worker; empty: the job id">
              <Input {...controlProps('routingKey', err('routing.key'))} {...text('routingKey')} />
            </Field>
          ) : null}
        </CardBody>
      </Card>

      <Card>
        <CardHeader title="Alarms" description="Notify when runs end badly (or well)." />
        <CardBody className="space-y-3">
          <div className="flex flex-wrap gap-4">
            {(
              [
                ['onFailure', 'On failure'],
                ['onTimeout', 'On timeout'],
                ['onDeadLetter', 'On dead letter'],
                ['onSuccess', 'On success'],
              ] as const
            ).map(([k, label]) => (
              <label key={k} className="inline-flex items-center gap-1.5 text-[13px] text-zinc-700">
                <input type="checkbox" checked={v[k]} onChange={(e) => set(k, e.target.checked)} className="size-3.5 accent-indigo-600" />
                {label}
              </label>
            ))}
          </div>
          <div className="space-y-2">
            {v.channels.map((c, i) => (
              <div key={i} className="flex items-start gap-2">
                <NativeSelect
                  aria-label={`Channel ${i + 1} type`}
                  className="w-32"
                  value={c.type}
                  onChange={(e) => set('channels', v.channels.map((x, j) => (j === i ? { ...x, type: e.target.value as typeof c.type } : x)))}
                >
                  <option value="webhook">webhook</option>
                  <option value="email">email</option>
                  <option value="log">log</option>
                </NativeSelect>
                <div className="flex-1">
                  <Input
                    aria-label={`Channel ${i + 1} target`}
                    aria-invalid={err(`alarms.channels.${i}.target`) ? true : undefined}
                    placeholder={c.type === 'webhook' ? 'https://hooks.example.com/…' : c.type === 'email' ? 'oncall@example.com' : '(not needed)'}
                    value={c.target}
                    onChange={(e) => set('channels', v.channels.map((x, j) => (j === i ? { ...x, target: e.target.value } : x)))}
                  />
                  {err(`alarms.channels.${i}.target`) ? <p className="mt-1 text-xs text-red-600">{err(`alarms.channels.${i}.target`)}</p> : null}
                </div>
                <Button variant="ghost" size="icon" aria-label={`Remove channel ${i + 1}`} onClick={() => set('channels', v.channels.filter((_, j) => j !== i))}>
                  <Trash2 />
                </Button>
              </div>
            ))}
            <Button size="sm" onClick={() => set('channels', [...v.channels, { type: 'webhook', target: '' }])}>
              <Plus />
              Add channel
            </Button>
          </div>
        </CardBody>
      </Card>

      <div className="sticky bottom-0 -mx-6 flex items-center justify-end gap-2 border-t border-zinc-200 bg-zinc-50/95 px-6 py-3 backdrop-blur">
        {mode === 'edit' && expectedVersion ? <span className="mr-auto text-xs text-zinc-500">Editing version {expectedVersion}</span> : null}
        <Button asChild variant="ghost">
          <Link href={cancelHref}>Cancel</Link>
        </Button>
        <Button type="submit" variant="primary" disabled={pending}>
          {pending ? 'Saving…' : mode === 'create' ? 'Create job' : 'Save'}
        </Button>
      </div>
    </form>
  );

  // A plain function (not a component) so inputs keep their identity and focus across renders.
  function numberField(id: string, label: string, path: string, k: keyof JobFormValues, step?: string) {
    return (
      <Field id={id} label={label} error={err(path)}>
        <Input {...controlProps(id, err(path))} {...text(k)} type="number" step={step} />
      </Field>
    );
  }
}

/** Form paths rendered next to a field (anything else goes to the summary list). */
const FIELD_PATHS = [
  'key', 'name', 'description', 'schedule', 'schedule.cron', 'schedule.timezone', 'schedule.intervalSeconds', 'schedule.runAt', 'startAt', 'endAt', 'staggerSeconds', 'handler', 'payload', 'steps.0.handler',
  'policy.timeoutSeconds', 'policy.maxRetries', 'policy.priority', 'policy.deadLetterAfter', 'policy.backoff.baseSeconds', 'policy.backoff.factor', 'policy.backoff.maxSeconds', 'policy.backoff.jitter',
  'policy.blockStrategy', 'policy.misfirePolicy', 'policy.misfireMaxCatchup', 'routing.nodeGroup', 'routing.labels', 'routing.strategy', 'routing.nodes', 'routing.key', 'expectedVersion',
];

// Dotted error path -> the id of the control that shows it.
const PATH_TO_ID: Record<string, string> = {
  'schedule.cron': 'cron', 'schedule.timezone': 'timezone', 'schedule.intervalSeconds': 'intervalSeconds', 'schedule.runAt': 'runAt', 'routing.nodeGroup': 'routingGroup', 'routing.labels': 'routingLabels',
  'routing.strategy': 'routingStrategy', 'routing.nodes': 'routingNodes', 'routing.key': 'routingKey', 'policy.backoff.baseSeconds': 'backoffBaseSeconds', 'policy.backoff.factor': 'backoffFactor',
  'policy.backoff.maxSeconds': 'backoffMaxSeconds', 'policy.backoff.jitter': 'backoffJitter',
};

function focusFirstError(errors: Record<string, string>) {
  for (const p of Object.keys(errors)) {
    const id = PATH_TO_ID[p] ?? p.replace(/^policy\./, '');
    const el = document.getElementById(id);
    if (el) {
      el.focus();
      return;
    }
  }
}

function onceHint(v: JobFormValues): string {
  if (!v.runAtLocal) return `Wall time in ${v.timezone || 'UTC'}`;
  const at = zonedLocalToUtc(v.runAtLocal, v.timezone || 'UTC');
  return at ? `= ${formatUtc(at)}` : 'Invalid date';
}

/** What the 409 told us (lib/jobs versionConflict detail): versions, who changed it, and each changed field from -> to. */
function ConflictDetail({ detail, expectedVersion }: { detail?: Record<string, unknown>; expectedVersion?: number }) {
  if (!detail) return null;
  const current = detail.currentVersion;
  const by = typeof detail.changedBy === 'string' ? detail.changedBy : null;
  const diff = detail.diff as { fields?: { path: string; from: unknown; to: unknown }[]; changedFields?: string[] } | null | undefined;
  const fields = diff?.fields ?? [];
  const other = (diff?.changedFields ?? (detail.changedFields as string[] | undefined) ?? []).filter((f) => !fields.some((x) => x.path === f));
  const show = (x: unknown) => (x == null ? '—' : typeof x === 'string' ? x : JSON.stringify(x));
  return (
    <div className="mt-2 text-xs" data-testid="conflict-detail">
      <p>
        You started from version {expectedVersion ?? '?'}; the job is now at version {String(current ?? '?')}
        {by ? `, last changed by ${by}` : ''}.
      </p>
      {fields.length || other.length ? (
        <table className="mt-1.5 w-full max-w-2xl border-collapse text-left">
          <thead>
            <tr className="text-amber-800/80">
              <th className="py-0.5 pr-3 font-medium">Field</th>
              <th className="py-0.5 pr-3 font-medium">Your base</th>
              <th className="py-0.5 font-medium">Now</th>
            </tr>
          </thead>
          <tbody className="font-mono text-[11px]">
            {fields.map((f) => (
              <tr key={f.path} className="border-t border-amber-200">
                <td className="py-0.5 pr-3">{f.path}</td>
                <td className="max-w-[16rem] truncate py-0.5 pr-3" title={show(f.from)}>{show(f.from)}</td>
                <td className="max-w-[16rem] truncate py-0.5" title={show(f.to)}>{show(f.to)}</td>
              </tr>
            ))}
            {other.map((f) => (
              <tr key={f} className="border-t border-amber-200">
                <td className="py-0.5 pr-3">{f}</td>
                <td className="py-0.5 pr-3" colSpan={2}>changed</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
