import * as React from 'react';
import { cn } from './ui/cn';

/**
 * One colour per status word, shared by jobs, runs and tasks, so "failed" is the
 * same red everywhere: green = success, blue = running/active work, amber = waiting
 * or paused, red = failed/timeout/dead and a worker whose heartbeat was lost (offline),
 * grey = cancelled/skipped and a worker that stopped cleanly (stopped).
 */
const TONE: Record<string, string> = {
  // runs + tasks
  pending: 'bg-amber-50 text-amber-800 ring-amber-600/20',
  running: 'bg-sky-50 text-sky-800 ring-sky-600/25',
  success: 'bg-emerald-50 text-emerald-800 ring-emerald-600/20',
  failed: 'bg-red-50 text-red-800 ring-red-600/20',
  timeout: 'bg-orange-50 text-orange-800 ring-orange-600/25',
  dead: 'bg-red-100 text-red-900 ring-red-700/30',
  cancelled: 'bg-zinc-100 text-zinc-700 ring-zinc-500/20',
  skipped: 'bg-zinc-50 text-zinc-500 ring-zinc-400/20',
  // jobs
  active: 'bg-emerald-50 text-emerald-800 ring-emerald-600/20',
  paused: 'bg-amber-50 text-amber-800 ring-amber-600/20',
  dead_letter: 'bg-red-100 text-red-900 ring-red-700/30',
  // workers
  online: 'bg-emerald-50 text-emerald-800 ring-emerald-600/20',
  draining: 'bg-amber-50 text-amber-800 ring-amber-600/20',
  offline: 'bg-red-50 text-red-800 ring-red-600/20',
  stopped: 'bg-zinc-100 text-zinc-600 ring-zinc-500/20',
  // users / tokens
  stale: 'bg-orange-50 text-orange-800 ring-orange-600/25',
  disabled: 'bg-zinc-100 text-zinc-600 ring-zinc-500/20',
  revoked: 'bg-zinc-100 text-zinc-600 ring-zinc-500/20',
};

const DOT: Record<string, string> = {
  running: 'bg-sky-500 animate-pulse',
  pending: 'bg-amber-500',
  online: 'bg-emerald-500',
  active: 'bg-emerald-500',
};

/** Human label for a status value ("dead_letter" -> "dead letter"). */
export function statusLabel(status: string): string {
  return status.replace(/_/g, ' ');
}

/** Pill showing a job/run/task/worker status with the shared colour. Extra props (data-testid) go on the span. */
export function StatusBadge({ status, className, ...rest }: { status: string; className?: string } & React.HTMLAttributes<HTMLSpanElement>) {
  return (
    <span
      className={cn('inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset', TONE[status] ?? 'bg-zinc-50 text-zinc-700 ring-zinc-400/20', className)}
      {...rest}
    >
      {DOT[status] ? <span aria-hidden className={cn('size-1.5 rounded-full', DOT[status])} /> : null}
      {/* the raw status word is the text so tests and screen readers read e.g. "success" */}
      <span>{status}</span>
    </span>
  );
}

/** Small neutral pill for tags (handler names, labels, roles). */
export function Tag({ children, className, mono, ...rest }: { children: React.ReactNode; className?: string; mono?: boolean } & React.HTMLAttributes<HTMLSpanElement>) {
  return (
    <span className={cn('inline-flex items-center rounded bg-zinc-100 px-1.5 py-0.5 text-xs text-zinc-700', mono && 'font-mono text-[11px]', className)} {...rest}>
      {children}
    </span>
  );
}
