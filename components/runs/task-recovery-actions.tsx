'use client';

import * as React from 'react';
import { CheckCheck, Eraser } from 'lucide-react';
import { Button } from '../ui/button';
import { Dialog } from '../ui/dialog';
import { Field, controlProps } from '../ui/field';
import { Textarea } from '../ui/input';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { DisabledReason } from '../ui/disabled-reason';
import { blockedReason } from './use-run-detail';
import { clearTaskAction, markTaskSuccessAction } from '@/app/(console)/runs/[id]/recovery-actions';
import type { TaskView } from '@/lib/runs/run-view';

const FINAL = new Set(['success', 'dead', 'cancelled', 'skipped']);

/**
 * Classes of a task row's button label: read from 1600 px; narrower, the icon alone with the label as its tooltip
 * and accessible name, so that three buttons (Retry task, Mark success, Clear downstream) fit on one line of the
 * tasks table at 1280-1440 px.
 */
export const ROW_ACTION_LABEL = 'sr-only min-[1600px]:not-sr-only';
type Kind = 'mark' | 'clear' | 'clearDownstream';

const TEXT: Record<Kind, { button: string; title: (step: string) => string; description: (children: string) => string; confirm: string; done: string; reasonLabel: string }> = {
  mark: {
    button: 'Mark success',
    title: (s) => `Mark ${s} as success`,
    description: () => 'The task becomes success and its downstream tasks run as if it had succeeded. The run is evaluated again. Handler statistics keep the failure. Recorded in the job\'s recovery history with your reason.',
    confirm: 'Mark success',
    done: 'Task marked success',
    reasonLabel: 'Reason (required)',
  },
  clear: {
    button: 'Clear',
    title: (s) => `Clear ${s}`,
    description: () => 'The task goes back to pending in this run and runs again; no other task depends on it. Recorded in the job\'s recovery history.',
    confirm: 'Clear and re-run',
    done: 'Task cleared: it runs again',
    reasonLabel: 'Reason (optional)',
  },
  clearDownstream: {
    button: 'Clear downstream',
    title: (s) => `Clear ${s} and everything downstream`,
    description: (children) => `The task and every task downstream of it (${children} and what follows them) go back to pending in this run and run again in DAG order. Recorded in the job's recovery history.`,
    confirm: 'Clear and re-run',
    done: 'Tasks cleared: they run again',
    reasonLabel: 'Reason (optional)',
  },
};

/**
 * "Mark success" (dead tasks) and the clear of a finished task for one task row of the run page
 * (docs/recovery.md): "Clear downstream" where other tasks depend on it (`children`), plain "Clear" on a leaf,
 * which has nothing downstream (the server's clear is the same action for both). Each opens a dialog asking for a
 * reason and a confirmation. Viewers see them disabled (RoleGate); the server refuses them too. `onDone` refreshes
 * the run.
 */
export function TaskRecoveryActions({ task, onDone }: { task: Pick<TaskView, 'id' | 'stepKey' | 'status' | 'children' | 'blockedBy'>; onDone: () => void }) {
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
  const clear: Kind = task.children.length ? 'clearDownstream' : 'clear';
  const children = task.children.map((c) => c.step).join(', ');
  return (
    <>
      {task.status === 'dead' ? (
        <RoleGate>
          <Button size="sm" variant="ghost" onClick={() => show('mark')} data-testid={`mark-success-${task.stepKey}`} title={TEXT.mark.button}>
            <CheckCheck /> <span className={ROW_ACTION_LABEL}>{TEXT.mark.button}</span>
          </Button>
        </RoleGate>
      ) : null}
      {FINAL.has(task.status) ? (
        <RoleGate>
          <DisabledReason reason={blockedReason(task, 'clear')}>
            <Button size="sm" variant="ghost" onClick={() => show(clear)} data-testid={`clear-${task.stepKey}`} title={TEXT[clear].button}>
              <Eraser /> <span className={ROW_ACTION_LABEL}>{TEXT[clear].button}</span>
            </Button>
          </DisabledReason>
        </RoleGate>
      ) : null}
      {open ? (
        <Dialog
          open
          onOpenChange={(o) => !o && setOpen(null)}
          title={TEXT[open].title(task.stepKey)}
          description={TEXT[open].description(children)}
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
