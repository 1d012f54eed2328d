'use client';

import { focusSlot } from '../ui/focus-return';
import * as React from 'react';
import { DisabledReason } from '../ui/disabled-reason';
import { Link } from '@/components/ui/link';
import { useRouter } from 'next/navigation';
import { Pause, Pencil, Play, Trash2, Zap } from 'lucide-react';
import { Button } from '../ui/button';
import { ConfirmDialog, Dialog } from '../ui/dialog';
import { Field, controlProps } from '../ui/field';
import { Textarea } from '../ui/input';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { bulkRunNowToast, parseRunNowInput, runNowToast } from './form-values';

type R<T> = { ok: true; data: T } | { ok: false; error: string; fields?: Record<string, string> };

export type JobActionsProps = {
  jobId: string;
  jobKey: string;
  status: 'active' | 'paused' | 'dead_letter' | string;
  trigger: (
    id: string,
    input: { payload?: Record<string, unknown> } | { runs: { payload: Record<string, unknown> }[] },
  ) => Promise<R<{ runId: string; outcome: string; runs?: number; skipped?: number; skipReasons?: string[] }>>;
  pause: (id: string) => Promise<R<unknown>>;
  resume: (id: string) => Promise<R<unknown>>;
  remove: (id: string) => Promise<R<unknown>>;
  /** why this job may not be deleted (lib/jobs/handler-permissions.ts deleteRefusal), or null */
  deleteLock?: string | null;
  /** why Resume would be refused (lib/jobs/resume-job.ts resumeRefusal: a `once` job that has fired, an ended window), or null */
  resumeLock?: string | null;
};

/**
 * The job header's actions below 640 px (a phone): an even grid of three columns instead of a row that wraps wherever
 * a button happens to end, Run now first and two columns wide. Each action sits in a {@link JOB_ACTION_CELL}.
 */
export const JOB_ACTIONS_GRID = 'flex items-center gap-2 max-sm:grid max-sm:w-full max-sm:grid-cols-3';

/**
 * One action of the job header: no box of its own from 640 px (the row lays the control out as before); below it, a
 * grid cell the control fills, through the focusable span a disabled control's reason wraps it in too.
 */
export const JOB_ACTION_CELL = 'contents max-sm:flex max-sm:*:flex-1 max-sm:[&_a]:w-full max-sm:[&_button]:w-full';

/**
 * The job's action bar: Run now (optional payload override in a dialog), Pause or
 * Resume, Edit, Delete (confirm). Viewers see every control disabled with a tooltip.
 * Run now opens the new run's page so the operator can watch it.
 */
export function JobActions({ jobId, jobKey, status, trigger, pause, resume, remove, deleteLock = null, resumeLock = null }: JobActionsProps) {
  const router = useRouter();
  const { toast } = useToast();
  const [busy, setBusy] = React.useState<string | null>(null);
  const [runOpen, setRunOpen] = React.useState(false);
  const [override, setOverride] = React.useState('');
  const [overrideError, setOverrideError] = React.useState<string | undefined>();

  const act = async (name: string, fn: () => Promise<R<unknown>>, ok: string) => {
    setBusy(name);
    const r = await fn();
    setBusy(null);
    if (r.ok) {
      toast({ kind: 'success', title: ok });
      router.refresh();
    } else toast({ kind: 'error', title: `${name} failed`, description: r.error });
    return r;
  };

  const runNow = async (payloadText: string) => {
    const p = parseRunNowInput(payloadText);
    if (!p.ok) {
      setOverrideError(p.error);
      return;
    }
    setOverrideError(undefined);
    setBusy('Run now');
    const r = await trigger(jobId, p.value);
    setBusy(null);
    if (!r.ok) {
      const field = Object.entries(r.fields ?? {}).find(([k]) => k === 'payload' || k.startsWith('runs'));
      if (field) setOverrideError(field[0] === 'payload' ? field[1] : `${field[0]}: ${field[1]}`);
      toast({ kind: 'error', title: 'Run now failed', description: r.error });
      return;
    }
    setRunOpen(false);
    if (r.data.runs !== undefined) {
      // A pasted array: many runs in one transaction; the runs list shows them.
      toast(bulkRunNowToast({ runs: r.data.runs, skipped: r.data.skipped ?? 0, skipReasons: r.data.skipReasons ?? [] }));
      router.push(`/runs?jobId=${jobId}`);
      return;
    }
    toast(runNowToast(r.data.outcome));
    router.push(`/runs/${r.data.runId}`);
  };

  const paused = status === 'paused' || status === 'dead_letter';
  return (
    <div className="flex flex-wrap items-center gap-2 max-sm:contents">
      {/* below 640 px Run now leads the grid (JOB_ACTIONS_GRID), two columns wide; its payload button keeps its size */}
      <div className="inline-flex max-sm:order-first max-sm:col-span-2 max-sm:flex max-sm:[&>:first-child]:flex-1 max-sm:[&>:first-child_button]:w-full" data-testid="job-action-run">
        <RoleGate>
          <Button variant="primary" disabled={!!busy} onClick={() => runNow('')} className="rounded-r-none">
            <Zap />
            Run now
          </Button>
        </RoleGate>
        <RoleGate>
          <Button variant="primary" disabled={!!busy} onClick={() => setRunOpen(true)} className="rounded-l-none border-l border-indigo-500 px-2" aria-label="Run with payload…" title="Run now with a payload override">
            …
          </Button>
        </RoleGate>
      </div>
      <Dialog
        open={runOpen}
        onOpenChange={setRunOpen}
        title={`Run ${jobKey} now`}
        description="Optionally override the payload: this JSON object is merged over each step's payload for this run only. A JSON array of objects creates one run per element (up to 1000, one transaction); the job's block strategy applies to each, so with discard later (the default) only the first runs while it is active, and serial execution queues them in order."
        footer={
          <>
            <Button onClick={() => setRunOpen(false)}>Cancel</Button>
            <Button variant="primary" disabled={!!busy} onClick={() => runNow(override)}>
              <Zap /> Run with payload
            </Button>
          </>
        }
      >
        <Field id="payload-override" label="Payload override" error={overrideError} hint='e.g. {"date": "2026-11-29"}, or [{"date": "2026-11-28"}, {"date": "2026-11-29"}] for one run each — leave empty to use the saved payload'>
          <Textarea {...controlProps('payload-override', overrideError)} mono rows={8} value={override} onChange={(e) => setOverride(e.target.value)} spellCheck={false} />
        </Field>
      </Dialog>
      <div className={`${JOB_ACTION_CELL} max-sm:order-first`}>
        {paused ? (
          <RoleGate>
            <DisabledReason reason={resumeLock}>
              <Button disabled={!!busy} onClick={() => act('Resume', () => resume(jobId), status === 'dead_letter' ? 'Job resumed (dead letter cleared)' : 'Job resumed')} {...focusSlot('job-pause-resume')}>
                <Play /> Resume
              </Button>
            </DisabledReason>
          </RoleGate>
        ) : (
          <RoleGate>
            <Button disabled={!!busy} onClick={() => act('Pause', () => pause(jobId), 'Job paused')} {...focusSlot('job-pause-resume')}>
              <Pause /> Pause
            </Button>
          </RoleGate>
        )}
      </div>
      <div className={JOB_ACTION_CELL}>
        <RoleGate>
          <Button asChild>
            <Link href={`/jobs/${jobId}/edit`}>
              <Pencil /> Edit
            </Link>
          </Button>
        </RoleGate>
      </div>
      <div className={JOB_ACTION_CELL}>
        <RoleGate>
          <DisabledReason reason={deleteLock}>
            <ConfirmDialog
              trigger={
                <Button variant="danger-outline" disabled={!!busy}>
                  <Trash2 /> Delete
                </Button>
              }
              title={`Delete ${jobKey}?`}
              description="The job moves to the recycle bin: it stops firing and its key becomes free. You can restore it from the bin; runs and logs are kept."
              confirmLabel="Delete"
              onConfirm={async () => {
                const r = await remove(jobId);
                if (r.ok) {
                  toast({ kind: 'success', title: `${jobKey} moved to the recycle bin` });
                  router.push('/jobs');
                } else toast({ kind: 'error', title: 'Delete failed', description: r.error });
              }}
            />
          </DisabledReason>
        </RoleGate>
      </div>
    </div>
  );
}
