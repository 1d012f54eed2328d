'use client';
// State of the run page: the run as last polled, and the operator actions on it (cancel, retry, task retry).
import * as React from 'react';
import { useRouter } from 'next/navigation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { RunView, TaskView } from '@/lib/runs/run-view';
import { useToast } from '../ui/toast';
import { getJson } from '../api';

/** Result shape of the run server actions (app/_actions/result.ts ActionResult). */
export type ActionResultOf<T> = { ok: true; data: T } | { ok: false; error: string };

export const ACTIVE = new Set(['pending', 'running']);
/** What the server accepts (lib/engine retry-task / retry-run): a skipped task only when skipped by a failure (it has an error). */
const RETRYABLE_TASK = new Set(['dead', 'cancelled', 'skipped', 'failed', 'timeout']);
export const RETRYABLE_RUN = new Set(['failed', 'timeout', 'cancelled']);
export const canRetryTask = (t: { status: string; error: string | null }) => RETRYABLE_TASK.has(t.status) && (t.status !== 'skipped' || t.error !== null);

/**
 * Why Retry task or Clear would be refused for `t`: a parent whose end would skip it again
 * (TaskView.blockedBy, the server's rule); the operator acts on that parent instead. Null when none.
 */
export function blockedReason(t: Pick<TaskView, 'blockedBy'>, action: 'retry' | 'clear'): string | null {
  const p = t.blockedBy;
  return p ? `Parent ${p.step} ended ${p.status} (${p.type} edge): ${action} ${p.step} instead` : null;
}

/** The server actions the run page calls. */
export type RunActions = {
  cancel: (runId: string) => Promise<ActionResultOf<{ status: string }>>;
  retry: (runId: string) => Promise<ActionResultOf<{ runId: string }>>;
  retryTask: (taskId: string) => Promise<ActionResultOf<{ status: string }>>;
};

/**
 * Polls GET /api/v1/runs/:id every second while the run is pending or running and stops once it is final;
 * returns the run, whether it is active, and the action handlers (each toasts its outcome and refetches).
 */
export function useRunDetail(initial: RunView, { cancel, retry, retryTask }: RunActions) {
  const router = useRouter();
  const qc = useQueryClient();
  const { toast } = useToast();
  const [busy, setBusy] = React.useState(false);
  const retrying = React.useRef(false);
  const q = useQuery({
    queryKey: ['run', initial.id],
    queryFn: ({ signal }) => getJson<RunView>(`/api/v1/runs/${initial.id}`, signal),
    initialData: initial,
    // Final runs can still change by an operator's task retry; that path refetches explicitly.
    refetchInterval: (query) => (query.state.data && ACTIVE.has(query.state.data.status) ? 1_000 : false),
  });
  const run = q.data;
  const active = ACTIVE.has(run.status);
  const refresh = () => qc.invalidateQueries({ queryKey: ['run', initial.id] });

  const onCancel = async () => {
    setBusy(true);
    const r = await cancel(run.id);
    setBusy(false);
    if (r.ok) toast({ kind: 'success', title: 'Run cancelled' });
    else toast({ kind: 'error', title: 'Cancel failed', description: r.error });
    refresh();
  };
  const onRetry = async () => {
    setBusy(true);
    const r = await retry(run.id);
    setBusy(false);
    if (r.ok) {
      toast({ kind: 'success', title: 'Retry started as a new run' });
      router.push(`/runs/${r.data.runId}`);
    } else toast({ kind: 'error', title: 'Retry failed', description: r.error });
  };
  const onRetryTask = async (t: TaskView) => {
    // one at a time, like Cancel and Retry run: a double click would send a second retry that fails
    // (a ref, not the state: two clicks before the next render both see the old state)
    if (retrying.current) return;
    retrying.current = true;
    setBusy(true);
    const r = await retryTask(t.id).finally(() => {
      retrying.current = false;
    });
    setBusy(false);
    if (r.ok) toast({ kind: 'success', title: `Task ${t.stepKey} queued for another attempt` });
    else toast({ kind: 'error', title: 'Retry task failed', description: r.error });
    refresh();
  };
  return { run, active, busy, refresh, onCancel, onRetry, onRetryTask };
}

/** What {@link useRunDetail} returns; the sections of the run page take it as `rd`. */
export type RunDetailState = ReturnType<typeof useRunDetail>;
