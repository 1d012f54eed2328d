'use client';

import * as React from 'react';
import { CheckCheck, Eraser } from 'lucide-react';
import { Button } from '../ui/button';
import { Dialog } from '../ui/dialog';
import { Field, controlProps } from '../ui/field';
import { Textarea } from '../ui/input';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { clearTaskAction, markTaskSuccessAction } from '@/app/(console)/runs/[id]/recovery-actions';

const FINAL = new Set(['success', 'dead', 'cancelled', 'skipped']);
type Kind = 'mark' | 'clear';

const TEXT: Record<Kind, { title: (step: string) => string; description: string; confirm: string; done: string; reasonLabel: string }> = {
  mark: {
    title: (s) => `Mark ${s} as success`,
    description: 'The task becomes success and its downstream tasks run as if it had succeeded. The run is evaluated again. Handler statistics keep the failure. Recorded in the job\'s recovery history with your reason.',
    confirm: 'Mark success',
    done: 'Task marked success',
    reasonLabel: 'Reason (required)',
  },
  clear: {
    title: (s) => `Clear ${s} and everything downstream`,
    description: 'The task and every task downstream of it go back to pending in this run and run again in DAG order. Recorded in the job\'s recovery history.',
    confirm: 'Clear and re-run',
    done: 'Tasks cleared: they run again',
    reasonLabel: 'Reason (optional)',
  },
};

/**
 * "Mark success" (dead tasks) and "Clear downstream" (finished tasks) for one
 * task row of the run page (docs/recovery.md): each opens a dialog asking for a
 * reason and a confirmation. Viewers see both disabled (RoleGate); the server
 * refuses them too. `onDone` refreshes the run.
 */
export function TaskRecoveryActions({ task, onDone }: { task: { id: string; stepKey: string; status: string }; onDone: () => void }) {
  const { toast } = useToast();
  const [open, setOpen] = React.useState<Kind | null>(null);
  const [reason, setReason] = React.useState('');
  const [error, setError] = React.useState<string | undefined>();
  const [busy, setBusy] = React.useState(false);

  const show = (k: Kind) => {
    setReason('');
    setError(undefined);
    setOpen(k);
  };
  const confirm = async () => {
    if (!open) return;
    setBusy(true);
    const r = open === 'mark' ? await markTaskSuccessAction(task.id, { reason }) : await clearTaskAction(task.id, { reason: reason.trim() || undefined });
    setBusy(false);
    if (!r.ok) {
      setError(r.fields?.reason);
      if (!r.fields?.reason) toast({ kind: 'error', title: `${TEXT[open].confirm} failed`, description: r.error });
      return;
    }
    toast({ kind: 'success', title: TEXT[open].done });
    setOpen(null);
    onDone();
  };

  const id = `recovery-reason-${task.stepKey}`;
  return (
    <>
      {task.status === 'dead' ? (
        <RoleGate>
          <Button size="sm" variant="ghost" onClick={() => show('mark')} data-testid={`mark-success-${task.stepKey}`}>
            <CheckCheck /> Mark success
          </Button>
        </RoleGate>
      ) : null}
      {FINAL.has(task.status) ? (
        <RoleGate>
          <Button size="sm" variant="ghost" onClick={() => show('clear')} data-testid={`clear-${task.stepKey}`}>
            <Eraser /> Clear downstream
          </Button>
        </RoleGate>
      ) : null}
      {open ? (
        <Dialog
          open
          onOpenChange={(o) => !o && setOpen(null)}
          title={TEXT[open].title(task.stepKey)}
          description={TEXT[open].description}
          footer={
            <>
              <Button onClick={() => setOpen(null)}>Keep as is</Button>
              <Button variant="primary" disabled={busy} onClick={confirm}>
                {TEXT[open].confirm}
              </Button>
            </>
          }
        >
          <Field id={id} label={TEXT[open].reasonLabel} error={error}>
            <Textarea {...controlProps(id, error)} rows={3} maxLength={1000} value={reason} onChange={(e) => setReason(e.target.value)} />
          </Field>
        </Dialog>
      ) : null}
    </>
  );
}
