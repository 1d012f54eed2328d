'use client';
// The sections of the job form (components/jobs/job-form.tsx composes them). Each reads and writes the state of
// useJobForm; none keeps state of its own, so a failed save never loses input.
import * as React from 'react';
import Link from 'next/link';
import { Plus, RefreshCw, Trash2, TriangleAlert } from 'lucide-react';
import { Button } from '../ui/button';
import { Card, CardBody, CardHeader } from '../ui/card';
import { Field, controlProps, errorId } from '../ui/field';
import { Input, NativeSelect, Textarea } from '../ui/input';
import { cn } from '../ui/cn';
import { TimezonePicker } from './timezone-picker';
import { CronPreview, type PreviewWindow } from './schedule-preview';
import { type JobFormValues, type ScheduleKind } from './form-values';
import { formatUtc, zonedLocalToUtc } from '@/lib/time/format';
import type { JobFormState } from './use-job-form';
import { PayloadEditor } from '../handlers/schema-form';
import { defaultsNote, unavailableNote } from '../handlers/use-handler-catalogue';

const KINDS: { value: ScheduleKind; label: string; hint: string }[] = [
  { value: 'cron', label: 'Cron', hint: 'Calendar times, in a time zone' },
  { value: 'interval', label: 'Interval', hint: 'Every N seconds' },
  { value: 'once', label: 'Once', hint: 'A single date and time' },
  { value: 'manual', label: 'Manual', hint: 'Only Run now / API' },
];

/** A number input bound to one form value, with the error of `path`. */
function NumberField({ f, id, label, path, k, step }: { f: JobFormState; id: string; label: string; path: string; k: keyof JobFormValues; step?: string }) {
  return (
    <Field id={id} label={label} error={f.err(path)}>
      <Input {...controlProps(id, f.err(path))} {...f.text(k)} type="number" step={step} />
    </Field>
  );
}

/** The 409 conflict banner (with what changed and a reload), or the summary of a refused save. */
export function FormBanner({ f }: { f: JobFormState }) {
  const { state, conflict, orphan, expectedVersion } = f;
  const serverFields = state && !state.ok ? (state.fields ?? {}) : {};
  return conflict ? (
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
  ) : null;
}

/** Key, name, description. */
export function GeneralSection({ f }: { f: JobFormState }) {
  const { mode, err, text } = f;
  return (
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
  );
}

/** Schedule kind, its fields, time zone, the fire preview, effective window and stagger. */
export function ScheduleSection({ f, timeZones }: { f: JobFormState; timeZones: string[] }) {
  const { v, set, err, text } = f;
  return (
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
        {v.scheduleKind === 'cron' ? <CronPreview cron={v.cron} timezone={v.timezone} window={previewWindow(v)} /> : null}
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
            <NumberField f={f} id="staggerSeconds" label="Stagger (s, 0-86400): a stable per-job offset in [0, stagger)" path="staggerSeconds" k="staggerSeconds" />
          </div>
        </details>
      ) : null}
    </CardBody>
  </Card>
  );
}

/** Handler and payload of a one-step job (a DAG is edited in the Graph tab). */
export function WhatToRunSection({ f }: { f: JobFormState }) {
  const { v, err, text, set, handlerOptions, catalogue, payloadErrors, lockedCommand, refusedHandlers, mayChoose } = f;
  const handlerEntry = catalogue.get(v.handler);
  const handlerHint = [handlerEntry?.description, unavailableNote(handlerEntry), defaultsNote(handlerEntry)].filter(Boolean).join(' · ');
  return (
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
            handlerHint || (!lockedCommand && refusedHandlers.length) ? (
            <>
              {handlerHint || null}
              {!lockedCommand && refusedHandlers.length ? (
                <span data-testid="handler-restrictions" className="block">
                  Not available to you: {refusedHandlers.map((x) => `${x.h} (${x.p!.reason})`).join('; ')}.
                </span>
              ) : null}
            </>
            ) : undefined
          }
        >
          <NativeSelect {...controlProps('handler', err('handler'))} {...text('handler')} disabled={!!lockedCommand} title={lockedCommand?.reason}>
            {handlerOptions.map((h) => {
              const refused = mayChoose(h);
              return (
                <option key={h} value={h} disabled={!!refused} title={catalogue.get(h)?.description}>
                  {refused ? `${h} (${refused.level === 'system' ? 'system jobs only' : 'admin only'})` : h}
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
  );
}

/** Timeout, retries and backoff, priority, dead letter, block strategy, misfire policy. */
export function PolicySection({ f }: { f: JobFormState }) {
  const { err, text } = f;
  return (
  <Card>
    <CardHeader title="Policy" description="Timeouts, retries with exponential backoff, and what happens on overlap, downtime and repeated failure." />
    <CardBody className="grid grid-cols-2 gap-4 md:grid-cols-4">
      <NumberField f={f} id="timeoutSeconds" label="Timeout (s)" path="policy.timeoutSeconds" k="timeoutSeconds" />
      <NumberField f={f} id="maxRetries" label="Max retries" path="policy.maxRetries" k="maxRetries" />
      <NumberField f={f} id="priority" label="Priority" path="policy.priority" k="priority" />
      <NumberField f={f} id="deadLetterAfter" label="Dead letter after (failed runs, 0 = never)" path="policy.deadLetterAfter" k="deadLetterAfter" />
      <NumberField f={f} id="backoffBaseSeconds" label="Backoff base (s)" path="policy.backoff.baseSeconds" k="backoffBaseSeconds" step="any" />
      <NumberField f={f} id="backoffFactor" label="Backoff factor" path="policy.backoff.factor" k="backoffFactor" step="any" />
      <NumberField f={f} id="backoffMaxSeconds" label="Backoff max (s)" path="policy.backoff.maxSeconds" k="backoffMaxSeconds" step="any" />
      <NumberField f={f} id="backoffJitter" label="Backoff jitter (0–1)" path="policy.backoff.jitter" k="backoffJitter" step="any" />
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
      <NumberField f={f} id="misfireMaxCatchup" label="Misfire cap (runs)" path="policy.misfireMaxCatchup" k="misfireMaxCatchup" />
    </CardBody>
  </Card>
  );
}

/** Node group, labels, strategy and its nodes / key. */
export function RoutingSection({ f }: { f: JobFormState }) {
  const { v, err, text } = f;
  return (
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
  );
}

/** Alarm triggers and channels. */
export function AlarmsSection({ f }: { f: JobFormState }) {
  const { v, set, err } = f;
  return (
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
  );
}

/** Cancel and Save, sticky at the bottom. */
export function FormFooter({ f, cancelHref }: { f: JobFormState; cancelHref: string }) {
  const { mode, expectedVersion, pending, reason, setReason, err } = f;
  return (
  <div className="sticky bottom-0 -mx-6 flex items-center justify-end gap-2 border-t border-zinc-200 bg-zinc-50/95 px-6 py-3 backdrop-blur">
    {mode === 'edit' && expectedVersion ? <span className="text-xs text-zinc-500">Editing version {expectedVersion}</span> : null}
    {mode === 'edit' ? (
      <label className="mr-auto flex items-center gap-2 text-xs text-zinc-600">
        Reason
        <Input aria-label="Reason for this change" aria-invalid={err('reason') ? true : undefined} className="h-8 w-72" maxLength={1000} placeholder="Why this change (shown in Versions)" value={reason} onChange={(e) => setReason(e.target.value)} />
        {err('reason') ? <span className="text-red-600">{err('reason')}</span> : null}
      </label>
    ) : null}
    <Button asChild variant="ghost">
      <Link href={cancelHref}>Cancel</Link>
    </Button>
    <Button type="submit" variant="primary" disabled={pending}>
      {pending ? 'Saving…' : mode === 'create' ? 'Create job' : 'Save'}
    </Button>
  </div>
  );
}

/** The form's effective window as UTC instants for the fire preview (a half-typed or invalid value is left out). */
function previewWindow(v: JobFormValues): PreviewWindow {
  const tz = v.timezone || 'UTC';
  const at = (local: string) => (local ? (zonedLocalToUtc(local, tz)?.toISOString() ?? null) : null);
  return { startAt: at(v.startAtLocal), endAt: at(v.endAtLocal) };
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
