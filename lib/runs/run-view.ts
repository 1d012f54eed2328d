/** Presenters for runs, tasks and task logs (REST shape of docs/design.md §5). */
import type { Run, Task, TaskLog } from '../generated/prisma/client.ts';
import type { DepType } from '../dag/types.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export type RunSummary = {
  id: string;
  jobId: string;
  jobKey: string;
  jobVersion: number;
  status: Run['status'];
  trigger: Run['trigger'];
  triggeredBy: string;
  scheduledFor: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  /** started_at - scheduled_for in ms (null until started) */
  latenessMs: number | null;
  reason: string | null;
  error: string | null;
  params: Record<string, unknown>;
  traceId: string;
  parentRunId: string | null;
  createdAt: string;
};

export type TaskLogView = {
  id: string;
  attempt: number;
  fromStatus: TaskLog['fromStatus'];
  toStatus: TaskLog['toStatus'];
  message: string;
  detail: unknown;
  nodeId: string | null;
  createdAt: string;
};

export type TaskView = {
  id: string;
  stepKey: string;
  handler: string;
  status: Task['status'];
  attempt: number;
  maxRetries: number;
  timeoutSeconds: number;
  payload: unknown;
  output: unknown;
  error: string | null;
  exitCode: number | null;
  resourceKey: string | null;
  lockedBy: string | null;
  leaseUntil: string | null;
  /** set while a running attempt is past its timeout and its handler has not returned ("timed out, still running") */
  timedOutAt: string | null;
  scheduleAt: string;
  startedAt: string | null;
  completedAt: string | null;
  pendingParents: number;
  /** when its parents released it for its first attempt (null: a step without parents, ready from its slot); start lateness counts from it */
  readyAt: string | null;
  /** the steps this task depends on, each with its dependency type, in the order of its parents' creation */
  parents: TaskParent[];
  logs: TaskLogView[];
};

/** One dependency of a task: the parent's step key and the edge type (docs/design.md §4). */
export type TaskParent = { step: string; type: DepType };

/**
 * True for a task that has made no attempt: on its first and never claimed (skipped, cancelled
 * while waiting, handed back, or still waiting). A claim sets started_at (a held task's planned
 * start), and only a retry or an operator's re-open of a started task raises the attempt.
 */
export function madeNoAttempt(t: Pick<TaskView, 'attempt' | 'startedAt'>): boolean {
  return t.attempt === 1 && t.startedAt === null;
}

export type RunView = RunSummary & {
  tasks: TaskView[];
  /** the retry chain, oldest first, including this run: each a RunSummary */
  retryChain: RunSummary[];
};

/**
 * The note a runs list writes in its Error column: the run's error, or for a skipped run (which has none) the reason
 * it never ran, stored in runs.reason by the block strategy (e.g. "blocked: previous run … still active").
 */
export function runProblem(r: { status: string; error: string | null; reason: string | null }): { kind: 'error' | 'skipped'; text: string } | null {
  if (r.error) return { kind: 'error', text: r.error };
  if (r.status === 'skipped' && r.reason) return { kind: 'skipped', text: r.reason };
  return null;
}

export function toRunSummary(r: Run): RunSummary {
  return {
    id: r.id,
    jobId: r.jobId,
    jobKey: r.jobKey,
    jobVersion: r.jobVersion,
    status: r.status,
    trigger: r.trigger,
    triggeredBy: r.triggeredBy,
    scheduledFor: r.scheduledFor.toISOString(),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    durationMs: r.durationMs,
    latenessMs: r.startedAt ? r.startedAt.getTime() - r.scheduledFor.getTime() : null,
    reason: r.reason,
    error: r.error,
    params: (r.params ?? {}) as Record<string, unknown>,
    traceId: r.traceId,
    parentRunId: r.parentRunId,
    createdAt: r.createdAt.toISOString(),
  };
}

export function toTaskLogView(l: TaskLog): TaskLogView {
  return {
    id: l.id.toString(),
    attempt: l.attempt,
    fromStatus: l.fromStatus,
    toStatus: l.toStatus,
    message: l.message,
    detail: l.detail,
    nodeId: l.nodeId,
    createdAt: l.createdAt.toISOString(),
  };
}

export function toTaskView(t: Task, logs: TaskLog[], parents: TaskParent[]): TaskView {
  return {
    id: t.id,
    stepKey: t.stepKey,
    handler: t.handler,
    status: t.status,
    attempt: t.attempt,
    maxRetries: t.maxRetries,
    timeoutSeconds: t.timeoutSeconds,
    payload: t.payload,
    output: t.output,
    error: t.error,
    exitCode: t.exitCode,
    resourceKey: t.resourceKey,
    lockedBy: t.lockedBy,
    leaseUntil: iso(t.leaseUntil),
    timedOutAt: t.status === 'running' ? iso(t.timedOutAt) : null,
    scheduleAt: t.scheduleAt.toISOString(),
    startedAt: iso(t.startedAt),
    completedAt: iso(t.completedAt),
    pendingParents: t.pendingParents,
    readyAt: iso(t.readyAt),
    parents,
    logs: logs.map(toTaskLogView),
  };
}
