'use client';

import { DisabledReason } from '../ui/disabled-reason';
import * as React from 'react';
import { useRouter } from 'next/navigation';
import { History } from 'lucide-react';
import { Button } from '../ui/button';
import { Dialog } from '../ui/dialog';
import { Field, controlProps } from '../ui/field';
import { Input, Textarea } from '../ui/input';
import { useToast } from '../ui/toast';
import { unreadableFields } from '../ui/unreadable-input';
import { RoleGate } from '../role';
import { backfillJobAction, previewBackfillAction } from '@/app/(console)/jobs/[id]/backfill-actions';
import type { BackfillPreview } from '@/lib/jobs/backfill-job';
import { formatDateTime, utcToZonedLocal, zoneLabel, zonedLocalToUtc, zonedRangeEndToUtc } from '@/lib/time/format';
import { useDisplayZone } from '../display-zone';

/**
 * `YYYY-MM-DDTHH:mm` (a datetime-local value, a wall time in `zone`) at one end of the range -> ISO instant
 * (zonedRangeEndToUtc: a range typed across a repeated hour holds both of its slots), or the text unchanged so
 * the server names the field.
 */
function toIso(local: string, zone: string, end: 'from' | 'to'): string {
  return zonedRangeEndToUtc(local, zone, end)?.toISOString() ?? local;
}

/** A range end's zone label: the offset in force at the instant typed (it differs across a DST change), else now. */
function offsetLabel(local: string, zone: string, end: 'from' | 'to'): string {
  return zoneLabel(zonedRangeEndToUtc(local, zone, end) ?? new Date(), zone);
}

/**
 * The job page's "Backfill" (docs/recovery.md): a past range (typed in the display zone), a preview of
 * the slots the job's schedule gives in it (those that already have a run are
 * skipped, and say so), then a confirmation that creates one run per free slot,
 * queued one after the other. Field errors come from the server (same rules as
 * REST). Viewers see the button disabled.
 */
export function BackfillDialog({ jobId, scheduled }: { jobId: string; scheduled: boolean }) {
  const router = useRouter();
  const { toast } = useToast();
  const [open, setOpen] = React.useState(false);
  const [from, setFrom] = React.useState('');
  const [to, setTo] = React.useState('');
  const [reason, setReason] = React.useState('');
  const [fields, setFields] = React.useState<Record<string, string>>({});
  const [preview, setPreview] = React.useState<BackfillPreview | null>(null);
  const [busy, setBusy] = React.useState(false);
  const zone = useDisplayZone();

  const openDialog = () => {
    // Default range: the 24 hours up to the last whole hour of the display zone, computed on click so server and
    // browser render alike.
    const now = new Date();
    const end = zonedLocalToUtc(`${utcToZonedLocal(now, zone).slice(0, 14)}00`, zone) ?? now;
    setFrom(utcToZonedLocal(new Date(end.getTime() - 86_400_000), zone));
    setTo(utcToZonedLocal(end, zone));
    setReason('');
    setFields({});
    setPreview(null);
    setOpen(true);
  };
  const edit = (set: (v: string) => void) => (e: React.ChangeEvent<HTMLInputElement>) => {
    set(e.target.value);
    setPreview(null); // a preview is only valid for the range it was made for
  };

  /** The range's fields the browser cannot read (a part left empty), shown at their field instead of sent as empty. */
  const unreadable = () => {
    const bad = unreadableFields({ from: 'backfill-from', to: 'backfill-to' });
    if (Object.keys(bad).length) {
      setFields(bad);
      setPreview(null);
    }
    return Object.keys(bad).length > 0;
  };
  const runPreview = async () => {
    if (unreadable()) return;
    setBusy(true);
    const r = await previewBackfillAction(jobId, { from: toIso(from, zone, 'from'), to: toIso(to, zone, 'to') });
    setBusy(false);
    if (!r.ok) {
      setFields(r.fields ?? {});
      setPreview(null);
      if (!r.fields) toast({ kind: 'error', title: 'Preview failed', description: r.error });
      return;
    }
    setFields({});
    setPreview(r.data);
  };
  const confirm = async () => {
    if (unreadable()) return;
    setBusy(true);
    const r = await backfillJobAction(jobId, { from: toIso(from, zone, 'from'), to: toIso(to, zone, 'to'), reason: reason.trim() || undefined });
    setBusy(false);
    if (!r.ok) {
      setFields(r.fields ?? {});
      toast({ kind: 'error', title: 'Backfill failed', description: r.error });
      return;
    }
    setOpen(false);
    toast({ kind: 'success', title: `Backfill: ${r.data.runIds.length} run${r.data.runIds.length === 1 ? '' : 's'} created`, description: r.data.skip ? `${r.data.skip} slot${r.data.skip === 1 ? '' : 's'} already had a run` : undefined });
    router.push(`/runs?jobId=${encodeURIComponent(jobId)}&trigger=backfill`);
  };

  // slots to the minute, unless one has seconds (an interval anchored at an instant that has them): then all to the ms
  const slotPrecision = preview?.slots.some((s) => Date.parse(s.scheduledFor) % 60_000 !== 0) ? { ms: true } : { seconds: false };
  return (
    <>
      <RoleGate>
        <DisabledReason reason={!scheduled && 'A manual job has no slots to backfill'}>
          <Button onClick={openDialog} title={scheduled ? 'Run the slots of a past range' : undefined}>
            <History /> Backfill
          </Button>
        </DisabledReason>
      </RoleGate>
      <Dialog
        open={open}
        onOpenChange={setOpen}
        className="max-w-xl"
        title="Backfill past slots"
        description={`Runs the job for each slot its schedule had in the range (both ends included, typed in your display zone, ${zone}). Slots that already have a run are skipped. Runs are queued one after the other, oldest first.`}
        footer={
          <>
            <Button onClick={() => setOpen(false)}>Close</Button>
            <Button onClick={runPreview} disabled={busy}>
              Preview slots
            </Button>
            <DisabledReason reason={busy ? 'Working…' : !preview ? 'Preview the slots first' : preview.create === 0 && (preview.slots.length === 0 ? 'No slot to run: the schedule has no slot in this range' : 'No slot to run: every slot in the range already has a run')}>
              <Button variant="primary" onClick={confirm} data-testid="backfill-confirm">
                {preview ? `Backfill ${preview.create} run${preview.create === 1 ? '' : 's'}` : 'Backfill'}
              </Button>
            </DisabledReason>
          </>
        }
      >
        <div className="grid grid-cols-2 gap-3">
          <Field id="backfill-from" label={`From (${offsetLabel(from, zone, 'from')})`} error={fields.from}>
            <Input type="datetime-local" {...controlProps('backfill-from', fields.from)} value={from} onChange={edit(setFrom)} />
          </Field>
          <Field id="backfill-to" label={`To (${offsetLabel(to, zone, 'to')})`} error={fields.to}>
            <Input type="datetime-local" {...controlProps('backfill-to', fields.to)} value={to} onChange={edit(setTo)} />
          </Field>
        </div>
        <Field id="backfill-reason" label="Reason (optional)" error={fields.reason} className="mt-3">
          <Textarea {...controlProps('backfill-reason', fields.reason)} rows={2} maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />
        </Field>
        {preview ? (
          <div className="mt-3">
            <p className="text-[13px] text-zinc-700" data-testid="backfill-summary">
              {preview.slots.length === 0
                ? 'The schedule has no slot in this range.'
                : `${preview.create} run${preview.create === 1 ? '' : 's'} will be created; ${preview.skip} slot${preview.skip === 1 ? ' is' : 's are'} skipped (already run, or still to be fired by the schedule).`}
            </p>
            <ul className="mt-2 max-h-64 overflow-auto rounded border border-zinc-200 text-xs" aria-label="Slots">
              {preview.slots.map((s) => (
                <li key={s.scheduledFor} data-testid="backfill-slot" className="flex justify-between gap-3 border-b border-zinc-100 px-3 py-1.5 last:border-0">
                  <span className="font-mono">{formatDateTime(s.scheduledFor, zone, slotPrecision)}</span>
                  <span className={s.action === 'create' ? 'text-indigo-700' : 'text-zinc-500'}>
                    {s.action === 'create' ? 'will run' : s.scheduled ? 'skipped: the schedule fires it' : `skipped: has a ${s.trigger} run (${s.runStatus})`}
                  </span>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </Dialog>
    </>
  );
}
