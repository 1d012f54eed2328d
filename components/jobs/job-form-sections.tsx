'use client';
// The General and Alarms sections and the footer of the job form (components/jobs/job-form.tsx composes them with
// job-form-banner, job-form-schedule, job-form-what-to-run and job-form-policy). Each section reads and writes the
// state of useJobForm; none keeps state of its own, so a failed save never loses input.
import { Link } from '@/components/ui/link';
import { Plus, Trash2 } from 'lucide-react';
import { Button } from '../ui/button';
import { Field, controlProps, errorId, hintId } from '../ui/field';
import { Input, NativeSelect, Textarea } from '../ui/input';
import { FormSection, ValueField } from './job-form-fields';
import { FORM_FIELDS } from './job-form-paths';
import type { JobFormState } from './use-job-form';

/** Key, name, description (key and name read-only on a system job: identityLock). */
export function GeneralSection({ f }: { f: JobFormState }) {
  const { mode, err, text, identityLock } = f;
  // a system job's key and name are the system's: disabled, the reason under each (its tooltip, and what describes it)
  const lock = (id: 'key' | 'name') =>
    identityLock ? { disabled: true, title: identityLock, hint: identityLock, 'aria-describedby': err(id) ? errorId(id) : hintId(id) } : {};
  return (
  <FormSection title="General" className="grid grid-cols-1 gap-4 md:grid-cols-2">
      <ValueField f={f} path="key" k="key" hint="Unique id for the API and logs, e.g. report.daily" inputClassName="font-mono" placeholder="report.daily" autoFocus={mode === 'create'} {...lock('key')} />
      <ValueField f={f} path="name" k="name" placeholder="Daily report" {...lock('name')} />
      <Field {...FORM_FIELDS.description} error={err('description')} className="md:col-span-2">
        <Textarea {...controlProps(FORM_FIELDS.description.id, err('description'))} {...text('description')} rows={2} />
      </Field>
  </FormSection>
  );
}

/** Alarm triggers and channels. */
export function AlarmsSection({ f }: { f: JobFormState }) {
  const { v, set, err } = f;
  return (
  <FormSection title="Alarms" description="Notify when runs end badly (or well)." className="space-y-3">
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
  </FormSection>
  );
}

/**
 * Cancel and Save, sticky at the bottom. Below 768 px the bar wraps: "Editing version N" and the Reason field each take
 * a line of their own (the field as wide as the screen allows) above Cancel and Save; on one line they were wider than
 * a phone, and the bar, aligned to its end, pushed the version and the Reason label off the screen's left edge.
 */
export function FormFooter({ f, cancelHref }: { f: JobFormState; cancelHref: string }) {
  const { mode, expectedVersion, pending, reason, setReason, err } = f;
  return (
  <div data-testid="form-save-bar" className="sticky bottom-0 -mx-3 flex flex-wrap items-center justify-end gap-2 border-t border-zinc-200 bg-zinc-50/95 px-3 py-3 backdrop-blur md:-mx-6 md:flex-nowrap md:px-6">
    {mode === 'edit' && expectedVersion ? <span className="text-xs text-zinc-500 max-md:w-full">Editing version {expectedVersion}</span> : null}
    {mode === 'edit' ? (
      <label className="mr-auto flex min-w-0 items-center gap-2 text-xs text-zinc-600 max-md:mr-0 max-md:w-full max-md:flex-wrap">
        Reason
        <Input id={FORM_FIELDS.reason.id} aria-label="Reason for this change" aria-invalid={err('reason') ? true : undefined} className="h-8 w-72 max-md:w-auto max-md:min-w-0 max-md:flex-1" maxLength={1000} placeholder="Why this change (shown in Versions)" value={reason} onChange={(e) => setReason(e.target.value)} />
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
