'use client';

import * as React from 'react';
import { BellOff, Check } from 'lucide-react';
import type { AlarmView } from '@/lib/alarms/list-alarms';
import type { SilenceView } from '@/lib/alarms/silences';
import { Button } from '../ui/button';
import { Dialog } from '../ui/dialog';
import { Field, controlProps } from '../ui/field';
import { Input, Textarea } from '../ui/input';
import { useToast } from '../ui/toast';
import { zoneLabel, zonedLocalToUtc, type RepeatedOccurrence } from '@/lib/time/format';
import { WallTimeChoice } from '../ui/wall-time-choice';
import { unreadableFields } from '../ui/unreadable-input';
import { useDisplayZone } from '../display-zone';

type R<T> = { ok: true; data: T } | { ok: false; error: string; fields?: Record<string, string> };
export type AckAction = (id: string, input: { note?: string }) => Promise<R<AlarmView>>;
export type SilenceAction = (input: { jobId?: string; type?: string; durationMinutes?: number; until?: string; note?: string }) => Promise<R<SilenceView>>;
export type UnsilenceAction = (id: string) => Promise<R<SilenceView>>;

/** "Acknowledge" dialog: an optional note; who and when are recorded by the server. */
export function AcknowledgeDialog({ alarm, onClose, action, onDone }: { alarm: AlarmView | null; onClose: () => void; action: AckAction; onDone: () => void }) {
  const [note, setNote] = React.useState('');
  const [busy, setBusy] = React.useState(false);
  const [err, setErr] = React.useState<string | undefined>();
  const { toast } = useToast();
  React.useEffect(() => {
    setNote('');
    setErr(undefined);
  }, [alarm?.id]);
  const submit = async () => {
    if (!alarm) return;
    setBusy(true);
    try {
      const r = await action(alarm.id, note.trim() ? { note: note.trim() } : {});
      if (r.ok) {
        toast({ kind: 'success', title: 'Alarm acknowledged' });
        onDone();
        onClose();
      } else if (r.fields?.note) setErr(r.fields.note);
      else toast({ kind: 'error', title: 'Not acknowledged', description: r.error });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={!!alarm}
      onOpenChange={(o) => (!o ? onClose() : undefined)}
      title="Acknowledge alarm"
      description={alarm ? `${alarm.message} — your name and the time are recorded so the team sees someone is on it.` : undefined}
      footer={
        <>
          <Button onClick={onClose}>Close</Button>
          <Button variant="primary" disabled={busy} onClick={submit}>
            <Check /> Acknowledge
          </Button>
        </>
      }
    >
      <Field id="ack-note" label="Note (optional)" error={err}>
        <Textarea {...controlProps('ack-note', err)} rows={3} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} placeholder="Looking into it; the upstream API is down." />
      </Field>
    </Dialog>
  );
}

const DURATIONS = [
  { value: '60', label: '1 hour' },
  { value: '240', label: '4 hours' },
  { value: '1440', label: '24 hours' },
  { value: 'until', label: 'Until a time…' },
] as const;

/**
 * "Silence" dialog for an alarm: scope (this job, this job's alarms of this type = the rule,
 * or this type everywhere for global alarms) and a duration (1 h, 4 h, 24 h, or until a time
 * in the display zone). While silenced no notification is sent; alarms are still recorded.
 */
/** A silence may name the alarm's job while the job exists: a purged one has nothing left to alarm about. */
function silencesJob(alarm: AlarmView | null): alarm is AlarmView & { jobId: string } {
  return alarm?.jobId != null && !alarm.jobPurged;
}

export function SilenceDialog({ alarm, onClose, action, onDone }: { alarm: AlarmView | null; onClose: () => void; action: SilenceAction; onDone: () => void }) {
  const [scope, setScope] = React.useState<'rule' | 'job' | 'type'>('rule');
  const [duration, setDuration] = React.useState<string>('60');
  const [until, setUntil] = React.useState('');
  const [untilRepeated, setUntilRepeated] = React.useState<RepeatedOccurrence>('first');
  const zone = useDisplayZone();
  const untilAt = until ? zonedLocalToUtc(until, zone, { repeated: untilRepeated }) : null;
  const [note, setNote] = React.useState('');
  const [fields, setFields] = React.useState<Record<string, string>>({});
  const [busy, setBusy] = React.useState(false);
  const { toast } = useToast();
  React.useEffect(() => {
    setScope(silencesJob(alarm) ? 'rule' : 'type');
    setDuration('60');
    setUntil('');
    setUntilRepeated('first');
    setNote('');
    setFields({});
  }, [alarm?.id, alarm?.jobId, alarm?.jobPurged]);
  if (!alarm) return null;
  const jobLabel = alarm.jobKey ?? alarm.jobId?.slice(0, 8) ?? '';
  const type = alarm.type.replace('_', ' ');
  const submit = async () => {
    const unreadable = duration === 'until' ? unreadableFields({ until: 'silence-until' }) : {};
    if (Object.keys(unreadable).length) {
      setFields(unreadable);
      return;
    }
    setBusy(true);
    setFields({});
    try {
      const input = {
        ...(scope !== 'type' && silencesJob(alarm) ? { jobId: alarm.jobId } : {}),
        ...(scope !== 'job' ? { type: alarm.type } : {}),
        ...(duration === 'until' ? { until: until ? (untilAt?.toISOString() ?? until) : '' } : { durationMinutes: Number(duration) }),
        ...(note.trim() ? { note: note.trim() } : {}),
      };
      const r = await action(input);
      if (r.ok) {
        toast({ kind: 'success', title: 'Silenced', description: 'No notification is sent for these alarms until the silence ends; they are still recorded.' });
        onDone();
        onClose();
      } else if (r.fields) setFields(r.fields);
      else toast({ kind: 'error', title: 'Not silenced', description: r.error });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open
      onOpenChange={(o) => (!o ? onClose() : undefined)}
      title="Silence alarms"
      description="While silenced, no notification is sent for matching alarms; they are still recorded and shown as silenced."
      footer={
        <>
          <Button onClick={onClose}>Close</Button>
          <Button variant="primary" disabled={busy} onClick={submit}>
            <BellOff /> Silence
          </Button>
        </>
      }
    >
      <div className="flex flex-col gap-3">
        <fieldset className="flex flex-col gap-1 text-[13px]">
          <legend className="mb-1 text-xs font-medium text-zinc-600">What</legend>
          {silencesJob(alarm) ? (
            <>
              <label className="flex items-center gap-2">
                <input type="radio" name="silence-scope" checked={scope === 'rule'} onChange={() => setScope('rule')} /> {type} alarms of job <span className="font-mono">{jobLabel}</span>
              </label>
              <label className="flex items-center gap-2">
                <input type="radio" name="silence-scope" checked={scope === 'job'} onChange={() => setScope('job')} /> every alarm of job <span className="font-mono">{jobLabel}</span>
              </label>
            </>
          ) : null}
          <label className="flex items-center gap-2">
            <input type="radio" name="silence-scope" checked={scope === 'type'} onChange={() => setScope('type')} /> every {type} alarm (all jobs)
          </label>
          {fields.jobId ? <p className="text-xs text-red-700">{fields.jobId}</p> : null}
        </fieldset>
        <fieldset className="flex flex-wrap gap-3 text-[13px]">
          <legend className="mb-1 text-xs font-medium text-zinc-600">For</legend>
          {DURATIONS.map((d) => (
            <label key={d.value} className="flex items-center gap-1.5">
              <input type="radio" name="silence-duration" value={d.value} checked={duration === d.value} onChange={() => setDuration(d.value)} /> {d.label}
            </label>
          ))}
        </fieldset>
        {duration === 'until' ? (
          <div>
            <Field id="silence-until" label={`Until (${zoneLabel(untilAt ?? new Date(), zone)})`} error={fields.until}>
              <Input {...controlProps('silence-until', fields.until)} type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
            </Field>
            <WallTimeChoice id="silence-until" local={until} zone={zone} value={untilRepeated} onChange={setUntilRepeated} />
          </div>
        ) : null}
        {fields.durationMinutes ? <p className="text-xs text-red-700">{fields.durationMinutes}</p> : null}
        <Field id="silence-note" label="Note (optional)" error={fields.note}>
          <Input {...controlProps('silence-note', fields.note)} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} placeholder="Planned maintenance" />
        </Field>
      </div>
    </Dialog>
  );
}
