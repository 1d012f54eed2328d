// What the run page's Timeline draws, as pure functions: each task's attempts (the current one from the task row, the
// earlier ones from its task log), the time axis and the caption that says what the chart's total is made of.
import { attemptLabel, operatorAttemptCount, runDurationMs, type RunSummary, type TaskLogView, type TaskView } from '@/lib/runs/run-view';
import { formatDuration, niceDurationTicks } from '@/lib/time/format';

/**
 * When a task's current attempt became ready to be claimed (ms): the latest of its schedule_at (creation, a retry's
 * backoff or re-open), the moment its parents released it for its first attempt (tasks.ready_at), and its parents'
 * ends (a step re-run after an operator re-ran its parent waits for that parent's new end).
 */
export function readyAt(task: TaskView, byKey: ReadonlyMap<string, TaskView>): number {
  let t = Date.parse(task.scheduleAt);
  if (task.readyAt) t = Math.max(t, Date.parse(task.readyAt));
  for (const p of task.parents) {
    const done = byKey.get(p.step)?.completedAt;
    if (done) t = Math.max(t, Date.parse(done));
  }
  return t;
}

/** One attempt on the chart (ms): when it became ready to be claimed, started and ended (null while it runs). */
export type AttemptSpan = {
  attempt: number;
  ready: number;
  start: number;
  end: number | null;
  /** how it ended (`running` while it runs) */
  outcome: TaskView['status'];
  /** the task's latest attempt, the one its row describes; earlier attempts are drawn muted */
  current: boolean;
  /** the attempt's words (lib/runs/run-view.ts attemptLabel), e.g. `attempt 1 of 3` */
  label: string;
};

/** `running -> status` rows that end an attempt (`running -> running` marks an overdue one, `running -> pending` hands back one never started). */
const ATTEMPT_ENDS = new Set<string>(['success', 'failed', 'timeout', 'cancelled', 'dead']);

/** detail.durationMs of an attempt's end row: its end minus its start, the task's own started_at (lib/engine/sql/stats-outcome.ts attemptDurationMsSql). */
function loggedDuration(row: TaskLogView): number | null {
  const d = row.detail as { durationMs?: unknown } | null;
  return d !== null && typeof d === 'object' && typeof d.durationMs === 'number' ? d.durationMs : null;
}

/** detail.retryAt of a retry's row (lib/engine/sql/retry-or-bury.ts): when the backoff let the next attempt be claimed. */
function loggedRetryAt(row: TaskLogView): number | null {
  const d = row.detail as { retryAt?: unknown } | null;
  return d !== null && typeof d === 'object' && typeof d.retryAt === 'string' ? Date.parse(d.retryAt) : null;
}

/** Every instant an attempt of `task` ended (its log's end rows, and the task's own end), ascending. */
export function attemptEnds(task: Pick<TaskView, 'logs' | 'completedAt'>): number[] {
  const ends = task.logs.filter((l) => l.fromStatus === 'running' && ATTEMPT_ENDS.has(l.toStatus)).map((l) => Date.parse(l.createdAt));
  if (task.completedAt) ends.push(Date.parse(task.completedAt));
  return ends.sort((a, b) => a - b);
}

/**
 * Every attempt of `task` that started, oldest first. The current attempt is the task row's (startedAt, completedAt,
 * status; ready at `currentReady`, {@link readyAt}); it is left out while it has not started. An earlier attempt is
 * read from the task log: it ended at its last `running -> outcome` row, which records its duration (so its start
 * is the task's started_at of then; without it, its last claim row), and it became ready at the row that made it
 * pending (the run's creation, a retry with its backoff's `retryAt`, an operator's re-open), not before the run's
 * slot (`slot`, runs.scheduled_for) nor, for the first, before its parents released it (tasks.ready_at), nor before the
 * last end of a parent (`parentEnds`, {@link attemptEnds}) up to its start. `now` (null before the browser has a
 * clock) ends a running attempt's bar.
 */
export function taskAttempts(
  task: TaskView,
  o: { currentReady: number; slot: number; parentEnds: readonly number[]; now: number | null },
): AttemptSpan[] {
  // an earlier attempt's words as attemptLabel wrote them while it was the task's: its operator re-runs counted up to it
  const label = (attempt: number, start: number) =>
    attemptLabel({ attempt, startedAt: new Date(start).toISOString(), maxRetries: task.maxRetries, operatorAttempts: operatorAttemptCount(task.logs.filter((l) => l.attempt <= attempt)) }).long;
  const out: AttemptSpan[] = [];
  for (let n = 1; n < task.attempt; n++) {
    const rows = task.logs.filter((l) => l.attempt === n);
    const endRow = rows.filter((l) => l.fromStatus === 'running' && ATTEMPT_ENDS.has(l.toStatus)).at(-1);
    if (!endRow) continue;
    const end = Date.parse(endRow.createdAt);
    const claim = rows.filter((l) => l.fromStatus === 'pending' && l.toStatus === 'running' && Date.parse(l.createdAt) <= end).at(-1);
    const took = loggedDuration(endRow);
    const start = took != null ? end - took : claim ? Date.parse(claim.createdAt) : null;
    if (start == null) continue;
    const entry = rows.filter((l) => l.toStatus === 'pending' && Date.parse(l.createdAt) <= start).at(-1);
    let ready = o.slot;
    if (entry) ready = Math.max(ready, Date.parse(entry.createdAt), loggedRetryAt(entry) ?? -Infinity);
    if (n === 1 && task.readyAt) ready = Math.max(ready, Date.parse(task.readyAt));
    for (const e of o.parentEnds) if (e <= start) ready = Math.max(ready, e);
    out.push({ attempt: n, ready: Math.min(ready, start), start, end, outcome: endRow.toStatus, current: false, label: label(n, start) });
  }
  if (task.startedAt) {
    const start = Date.parse(task.startedAt);
    // A running attempt's bar grows with the clock once the browser has one (the server never guesses "now").
    const end = task.completedAt ? Date.parse(task.completedAt) : o.now != null ? Math.max(start, o.now) : null;
    out.push({ attempt: task.attempt, ready: Math.min(o.currentReady, start), start, end, outcome: task.status, current: true, label: attemptLabel(task).long });
  }
  return out;
}

/**
 * The time axis for a run spanning `spanMs`: round ticks from 0 (niceDurationTicks, at most 4 intervals) and the
 * axis end, the last tick. Round, not quarters of the span: quarters repeat a label for a span of a few ms (`+1 ms`,
 * `+1 ms`) and are odd numbers otherwise (`+85 ms`, `+171 ms`).
 */
export function ganttAxis(spanMs: number): { ticks: number[]; end: number } {
  const ticks = niceDurationTicks(Math.max(1, spanMs), 4);
  return { ticks, end: ticks[ticks.length - 1]! };
}

/** One task's times on the chart (ms; start and end null while not started / not ended). */
export type GanttSpan = { ready: number; start: number | null; end: number | null };

/** What the chart's total is made of: see {@link timelineSpan}. */
export type TimelineSummary = {
  t0: number;
  totalMs: number;
  /** the wait before the first task started; null while none has */
  queuedMs: number | null;
  /** the run's Duration from that start (null while no task has started, or before the browser has a clock) */
  ranMs: number | null;
  /** false while the run goes on: its Duration counts to now */
  ended: boolean;
};

/**
 * The chart's span, from the first instant a task was ready to be claimed (`t0`, normally the run's creation or slot)
 * to the run's end or the last attempt's end, whichever is later. It splits into the wait before the first attempt
 * started (`queuedMs`) and the run's Duration (`ranMs`): lib/runs/run-view.ts runDurationMs, the one rule of the
 * run's header, from the run's start, which is the first attempt's start (lib/engine/sql/run-outcome.ts; a run not
 * marked running yet takes its first attempt's start, as its end will). Null when no attempt has a time yet.
 */
export function timelineSpan(
  spans: readonly GanttSpan[],
  run: Pick<RunSummary, 'startedAt' | 'finishedAt' | 'durationMs'>,
  now: number | null,
): TimelineSummary | null {
  const times = spans.flatMap((r) => [r.ready, r.start, r.end]).filter((x): x is number => x != null);
  if (times.length === 0) return null;
  const starts = spans.map((r) => r.start).filter((x): x is number => x != null);
  const firstStart = run.startedAt ? Date.parse(run.startedAt) : starts.length ? Math.min(...starts) : null;
  const ranMs = firstStart == null ? null : runDurationMs({ startedAt: new Date(firstStart).toISOString(), durationMs: run.durationMs }, now);
  if (firstStart != null) times.push(firstStart, firstStart + (ranMs ?? 0));
  const t0 = Math.min(...times);
  return { t0, totalMs: Math.max(...times) - t0, queuedMs: firstStart == null ? null : firstStart - t0, ranMs, ended: run.finishedAt != null };
}

/** The chart's caption: where it starts and what its total is made of (timelineSpan), in the one duration format. */
export function timelineCaption(span: TimelineSummary, from: string): string {
  const total = `${formatDuration(span.totalMs)} in all`;
  let parts: string;
  if (span.queuedMs == null) parts = 'no task has started yet';
  else if (span.ranMs == null) parts = `${formatDuration(span.queuedMs)} queued before the first task started, running since`;
  else parts = `${formatDuration(span.queuedMs)} queued before the first task started + ${formatDuration(span.ranMs)} from that start to ${span.ended ? "the run's end (the run's Duration)" : "now (the run's Duration so far)"}`;
  return `Waiting to be claimed (light), running (coloured), earlier attempts muted, from ${from}: ${total}, ${parts}`;
}
