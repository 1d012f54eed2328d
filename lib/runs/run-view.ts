/** Presenters for runs, tasks and task logs (REST shape of docs/design.md §5). */
import type { Run, Task, TaskLog } from '../generated/prisma/client.ts';
import type { DepType } from '../dag/types.ts';
import { runHasLateness } from '../engine/stats.ts';
import { forcesSkip, isFinal } from '../engine/run-graph.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export type RunSummary = {
  id: string;
  jobId: string;
  jobKey: string;
  /** the job was purged (runs are kept): its page is gone, so the console names it as text (lib/jobs/purged-job-ids.ts) */
  jobPurged: boolean;
  jobVersion: number;
  status: Run['status'];
  trigger: Run['trigger'];
  triggeredBy: string;
  scheduledFor: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  /** started_at - scheduled_for in ms (null until started, and for a backfill run: runHasLateness) */
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
  /** the steps that depend on this task, each with its dependency type: none for a leaf, which has nothing downstream (a clear re-runs it alone) */
  children: TaskParent[];
  /**
   * The parent whose end forces this task to be skipped again (a final parent over an edge it does
   * not satisfy: lib/engine/run-graph.ts forcesSkip, the rule retry and clear refuse it by,
   * docs/recovery.md); null when nothing does. The run page offers Retry task and Clear only without it.
   */
  blockedBy: (TaskParent & { status: string }) | null;
  /** attempts an operator started (Retry task, Clear) beyond the automatic ones (the first attempt and the engine's retries); see {@link operatorAttemptCount} */
  operatorAttempts: number;
  /**
   * Set while the task waits, ready (pending, its parents done), for a handler no live worker
   * offers (lib/handlers/catalogue.ts handlerAvailability), or that live workers offer but none its
   * routing lets take it (`outsideRouting: true`: node group, labels or strategy; tasksOutsideLiveRouting):
   * it starts when a worker that has it (and that its routing allows) comes online; `lastOfferedAt` is
   * the newest heartbeat of a worker that offered it (null: none registered). Null otherwise.
   */
  noLiveWorker: { lastOfferedAt: string | null; outsideRouting: boolean } | null;
  logs: TaskLogView[];
};

/** One dependency of a task: the other task's step key (the parent's in `parents`, the child's in `children`) and the edge type (docs/design.md §4). */
export type TaskParent = { step: string; type: DepType };

/**
 * True for a task that has made no attempt: on its first and never claimed (skipped, cancelled
 * while waiting, handed back, or still waiting). A claim sets started_at (a held task's planned
 * start), and only a retry or an operator's re-open of a started task raises the attempt.
 */
export function madeNoAttempt(t: Pick<TaskView, 'attempt' | 'startedAt'>): boolean {
  return t.attempt === 1 && t.startedAt === null;
}

/**
 * How many of a task's attempts an operator started: the re-opens (Retry task, Clear; task_logs rows to `pending`
 * carrying `detail.actor`, lib/engine/sql/reopen-tasks.ts) that raised the attempt. A re-open of a task that had
 * never started keeps its attempt (its first run is still to come) and is not counted. `logs` in append order.
 */
export function operatorAttemptCount(logs: readonly Pick<TaskLogView, 'attempt' | 'toStatus' | 'detail'>[]): number {
  let n = 0;
  for (let i = 1; i < logs.length; i++) {
    const l = logs[i]!;
    const actor = l.detail !== null && typeof l.detail === 'object' && typeof (l.detail as { actor?: unknown }).actor === 'string';
    if (l.toStatus === 'pending' && actor && l.attempt > logs[i - 1]!.attempt) n++;
  }
  return n;
}

/** What {@link attemptLabel} needs of a task; without `maxRetries` (a view that does not load it) no budget is written. */
export type AttemptFacts = Pick<TaskView, 'attempt' | 'startedAt'> & Partial<Pick<TaskView, 'maxRetries' | 'operatorAttempts'>>;

/**
 * The one text of a task's attempt, wherever it is shown (tasks table, task section, run graph, timeline, grid).
 * An attempt number is the ordinal of the execution: the first attempt is 1, each automatic retry and each
 * operator re-run (Retry task, Clear) adds one (docs/handlers.md `attempt`, docs/recovery.md). The engine retries
 * automatically while the attempt is at most `maxRetries`, so `maxRetries + 1` attempts are automatic at most;
 * an operator's re-run comes on top, so the number can exceed that budget and is then written with its split
 * instead of "n of budget". `null`: a step without a task (a run the block strategy skipped has none), which made
 * no attempt either. `short` fits a graph card, `long` a table cell, `title` explains it in full.
 */
export function attemptLabel(t: AttemptFacts | null): { short: string; long: string; title: string } {
  if (t === null) return { short: 'no attempt', long: 'no attempt', title: 'No attempt: this step has no task in this run' };
  if (madeNoAttempt(t)) return { short: 'no attempt', long: 'no attempt', title: 'No attempt: this task never started' };
  const short = `attempt ${t.attempt}`;
  if (t.maxRetries === undefined) return { short, long: short, title: `Attempt ${t.attempt}` };
  const budget = t.maxRetries + 1;
  const byOperator = t.operatorAttempts ?? 0;
  const automatic = t.attempt - byOperator;
  const allowed = `at most ${budget} automatic: max retries ${t.maxRetries}`;
  if (byOperator === 0) return { short, long: `attempt ${t.attempt} of ${budget}`, title: `Attempt ${t.attempt} of ${allowed}` };
  return {
    short,
    long: `attempt ${t.attempt} (${automatic} automatic + ${byOperator} by operator)`,
    title: `Attempt ${t.attempt}: ${automatic} automatic (${allowed}) and ${byOperator} started by an operator (Retry task or Clear)`,
  };
}

/**
 * The run's Duration (ms), the one rule of the run page's header and Timeline: runs.duration_ms once the run ended
 * (its first task's start to its end, lib/engine/sql/run-outcome.ts), the time since that start while it goes on
 * (`now`, ms; null before the browser has a clock), null before any task started.
 */
export function runDurationMs(run: Pick<RunSummary, 'startedAt' | 'durationMs'>, now: number | null): number | null {
  if (run.durationMs != null) return run.durationMs;
  if (!run.startedAt || now == null) return null;
  return Math.max(0, now - Date.parse(run.startedAt));
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

/**
 * A run row as the REST API and the console show it.
 * @param jobPurged whether its job was purged (lib/jobs/purged-job-ids.ts): the caller knows, a run row does not
 */
export function toRunSummary(r: Run, jobPurged: boolean): RunSummary {
  return {
    id: r.id,
    jobId: r.jobId,
    jobKey: r.jobKey,
    jobPurged,
    jobVersion: r.jobVersion,
    status: r.status,
    trigger: r.trigger,
    triggeredBy: r.triggeredBy,
    scheduledFor: r.scheduledFor.toISOString(),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    durationMs: r.durationMs,
    latenessMs: r.startedAt && runHasLateness(r.trigger) ? r.startedAt.getTime() - r.scheduledFor.getTime() : null,
    reason: r.reason,
    error: r.error,
    params: (r.params ?? {}) as Record<string, unknown>,
    traceId: r.traceId,
    parentRunId: r.parentRunId,
    createdAt: r.createdAt.toISOString(),
  };
}

/**
 * The worker a task log row names beside its message on the run page ("on <node>"), or null when the message
 * already names it, so that the worker reads once: the claim writes "claimed by <node>"
 * (lib/engine/sql/claim-routing.ts claimLogSql) and a hand-back "handed back unstarted by <node>: …"
 * (lib/engine/release-tasks.ts), each with the same node in node_id. Decided per row from what it holds, so
 * rows stored before and after read alike; the REST view keeps both `message` and `nodeId` as stored
 * (docs/task-logs.md "State changes").
 * @returns the node id to print, or null (no node, or the message names it as a whole word)
 */
export function taskLogNodeNote(l: Pick<TaskLogView, 'message' | 'nodeId'>): string | null {
  if (!l.nodeId) return null;
  // a whole word: not inside a longer id (node ids are [A-Za-z0-9.-] and a suffix: register-node.ts newNodeId)
  const escaped = l.nodeId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const named = new RegExp(`(^|[^A-Za-z0-9._-])${escaped}($|[^A-Za-z0-9_-])`).test(l.message ?? '');
  return named ? null : l.nodeId;
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

/**
 * A task as the run page and the REST run show it. `offered`: handler availability
 * (handlerAvailability) of the handlers of the run's ready tasks; a ready task whose handler is
 * not available, or whose id is in `outsideRouting` (tasksOutsideLiveRouting), gets `noLiveWorker`.
 */
export function toTaskView(
  t: Task,
  logs: TaskLog[],
  parents: TaskParent[],
  children: TaskParent[],
  offered: ReadonlyMap<string, { available: boolean; lastOfferedAt: string | null }> = new Map(),
  statusOfStep: (step: string) => string | undefined = () => undefined,
  outsideRouting: ReadonlySet<string> = new Set(),
): TaskView {
  const logViews = logs.map(toTaskLogView);
  const offer = isReadyPending(t) ? offered.get(t.handler) : undefined;
  const routedOut = offer?.available === true && outsideRouting.has(t.id);
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
    children,
    blockedBy: reopenBlockedBy(parents, statusOfStep),
    operatorAttempts: operatorAttemptCount(logViews),
    noLiveWorker: offer && (!offer.available || routedOut) ? { lastOfferedAt: offer.lastOfferedAt, outsideRouting: routedOut } : null,
    logs: logViews,
  };
}

/**
 * The first of `parents` whose final status forces its child to be skipped over their edge (hard: not
 * success; on_failure: not dead), with that status; null when none does.
 * @param statusOfStep a parent's status by its step key (undefined: not known, never blocking)
 */
export function reopenBlockedBy(parents: readonly TaskParent[], statusOfStep: (step: string) => string | undefined): (TaskParent & { status: string }) | null {
  for (const p of parents) {
    const status = statusOfStep(p.step);
    if (status !== undefined && isFinal(status) && forcesSkip(status, p.type)) return { ...p, status };
  }
  return null;
}

/** A task a worker may claim as soon as one offers its handler: pending, with every parent done. */
export function isReadyPending(t: Pick<Task, 'status' | 'pendingParents'>): boolean {
  return t.status === 'pending' && t.pendingParents === 0;
}
