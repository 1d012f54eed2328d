'use client';
// The job form's Schedule section (components/jobs/job-form.tsx): kind, its fields, zone, fire preview, window, stagger.
import { Field, errorId, hintId } from '../ui/field';
import { cn } from '../ui/cn';
import { RadioGroup } from 'radix-ui';
import { TimezonePicker } from './timezone-picker';
import { zoneInput, zoneInputHint } from './timezone-choices';
import { isValidTimeZone } from '@/lib/schedule/timezone';
import { FireTimesPreview, type PreviewWindow } from './schedule-preview';
import { formInstant, type JobFormValues, type ScheduleKind } from './form-values';
import { formatUtcExact, type RepeatedOccurrence } from '@/lib/time/format';
import { WallTimeChoice, wallTimeStep } from '../ui/wall-time-choice';
import { FormSection, NumberField, ValueField } from './job-form-fields';
import { FORM_FIELDS } from './job-form-paths';
import type { JobFormState } from './use-job-form';

/** The zone field's note for a once or interval job, whose fire times are instants. */
const ZONE_OF_INSTANTS_HINT = 'Where its times are typed and shown; it fires at the same instants in any zone';

const KINDS: { value: ScheduleKind; label: string; hint: string }[] = [
  { value: 'cron', label: 'Cron', hint: 'Calendar times, in a time zone' },
  { value: 'interval', label: 'Interval', hint: 'Every N seconds' },
  { value: 'once', label: 'Once', hint: 'A single date and time' },
  { value: 'manual', label: 'Manual', hint: 'Only Run now / API' },
];

/** Schedule kind, its fields, time zone, the fire preview (of a saved job `jobId`: its due instants, an interval anchored at `jobCreatedAt`), effective window and stagger. */
export function ScheduleSection({ f, timeZones, jobId, jobCreatedAt }: { f: JobFormState; timeZones: string[]; jobId?: string; jobCreatedAt?: string }) {
  const { v, set, err } = f;
  // A half-typed zone is not an error yet: a calm note under the field, and the preview waits for a full one.
  const zoneHint = zoneInputHint(v.timezone, zoneInput(v.timezone, timeZones, isValidTimeZone));
  const zoneNote = zoneHint ?? (v.scheduleKind === 'cron' ? undefined : ZONE_OF_INSTANTS_HINT);
  return (
  <FormSection title="Schedule" description="When the job fires. Times are evaluated in the job's time zone." className="space-y-4">
      {/* Radix's radio group: one Tab stop (the checked kind), the arrow keys move and choose (WAI-ARIA radio group) */}
      <RadioGroup.Root id={FORM_FIELDS.schedule.id} value={v.scheduleKind} onValueChange={(k) => set('scheduleKind', k as ScheduleKind)} aria-label="Schedule kind" className="inline-flex rounded-md border border-zinc-200 bg-zinc-50 p-0.5">
        {KINDS.map((k) => (
          <RadioGroup.Item
            key={k.value}
            value={k.value}
            title={k.hint}
            className={cn('rounded px-3 py-1 text-[13px] font-medium', v.scheduleKind === k.value ? 'bg-white text-zinc-900 shadow-xs ring-1 ring-zinc-200' : 'text-zinc-500 hover:text-zinc-800')}
          >
            {k.label}
          </RadioGroup.Item>
        ))}
      </RadioGroup.Root>
      {err('schedule') ? <p className="text-xs text-red-600" role="alert">{err('schedule')}</p> : null}

      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <div className="space-y-4">
          {v.scheduleKind === 'cron' ? (
            <ValueField f={f} path="schedule.cron" k="cron" hint="5 fields (minute hour day month weekday) or 6 with seconds first" inputClassName="font-mono" placeholder="0 2 * * *" spellCheck={false} />
          ) : null}
          {v.scheduleKind === 'interval' ? (
            <NumberField f={f} path="schedule.intervalSeconds" k="intervalSeconds" min={1} />
          ) : null}
          {v.scheduleKind === 'once' ? (
            <div>
              <ValueField f={f} path="schedule.runAt" k="runAtLocal" hint={onceHint(v)} type="datetime-local" step={wallTimeStep(f.initial.runAtLocal)} />
              <WallTimeChoice id="runAt" local={v.runAtLocal} zone={v.timezone || 'UTC'} value={v.runAtRepeated} onChange={(x) => set('runAtRepeated', x)} />
            </div>
          ) : null}
          {v.scheduleKind !== 'manual' ? (
            <Field {...FORM_FIELDS['schedule.timezone']} error={err('schedule.timezone')} hint={zoneNote}>
              <TimezonePicker id="timezone" value={v.timezone} onChange={(tz) => set('timezone', tz)} zones={timeZones} invalid={!!err('schedule.timezone')} describedBy={err('schedule.timezone') ? errorId('timezone') : zoneNote ? hintId('timezone') : undefined} />
            </Field>
          ) : null}
          {v.scheduleKind === 'manual' ? <p className="text-[13px] text-zinc-500">A manual job never fires by itself: start it with Run now or POST /api/v1/jobs/:id/trigger.</p> : null}
        </div>
        {v.scheduleKind === 'cron' ? <FireTimesPreview schedule={{ cron: v.cron }} timezone={v.timezone} window={previewWindow(v)} staggerSeconds={v.staggerSeconds} jobId={jobId} /> : null}
        {v.scheduleKind === 'interval' ? <FireTimesPreview schedule={{ intervalSeconds: v.intervalSeconds }} timezone={v.timezone} window={previewWindow(v)} staggerSeconds={v.staggerSeconds} jobId={jobId} jobCreatedAt={jobCreatedAt} /> : null}
      </div>

      {v.scheduleKind !== 'manual' ? (
        <details className="group" open={!!(v.startAtLocal || v.endAtLocal || err('startAt') || err('endAt'))}>
          <summary className="cursor-pointer text-xs font-medium text-zinc-600">Effective window (optional)</summary>
          <div className="mt-3 grid grid-cols-1 gap-4 md:grid-cols-2">
            <div>
              <ValueField f={f} label={`${FORM_FIELDS.startAt.label} (${v.timezone || 'UTC'})`} path="startAt" k="startAtLocal" type="datetime-local" step={wallTimeStep(f.initial.startAtLocal)} />
              <WallTimeChoice id="startAt" local={v.startAtLocal} zone={v.timezone || 'UTC'} value={v.startAtRepeated} onChange={(x) => set('startAtRepeated', x)} />
            </div>
            <div>
              <ValueField f={f} label={`${FORM_FIELDS.endAt.label} (${v.timezone || 'UTC'})`} path="endAt" k="endAtLocal" type="datetime-local" step={wallTimeStep(f.initial.endAtLocal)} />
              <WallTimeChoice id="endAt" local={v.endAtLocal} zone={v.timezone || 'UTC'} value={v.endAtRepeated} onChange={(x) => set('endAtRepeated', x)} />
            </div>
          </div>
        </details>
      ) : null}
      {v.scheduleKind !== 'manual' ? (
        <details className="group" open={!!((v.staggerSeconds && v.staggerSeconds !== '0') || err('staggerSeconds'))}>
          <summary className="cursor-pointer text-xs font-medium text-zinc-600">Stagger (optional)</summary>
          <div className="mt-3 grid grid-cols-1 gap-4 md:grid-cols-2">
            <NumberField f={f} path="staggerSeconds" k="staggerSeconds" />
          </div>
        </details>
      ) : null}
  </FormSection>
  );
}

/** The form's effective window as UTC instants for the fire preview (a half-typed or invalid value is left out). */
function previewWindow(v: JobFormValues): PreviewWindow {
  const tz = v.timezone || 'UTC';
  const at = (local: string, repeated: RepeatedOccurrence) => (local ? (formInstant(local, tz, repeated)?.toISOString() ?? null) : null);
  return { startAt: at(v.startAtLocal, v.startAtRepeated), endAt: at(v.endAtLocal, v.endAtRepeated) };
}

function onceHint(v: JobFormValues): string {
  if (!v.runAtLocal) return `Wall time in ${v.timezone || 'UTC'}`;
  // While the zone is half-typed the instant is unknown, not invalid.
  if (!isValidTimeZone(v.timezone.trim() || 'UTC')) return 'Wall time in the time zone below, once it is a complete zone name';
  const at = formInstant(v.runAtLocal, v.timezone, v.runAtRepeated);
  return at ? `= ${formatUtcExact(at)}` : 'Invalid date';
}
