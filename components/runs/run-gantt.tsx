'use client';
// A run's Gantt chart: one row per task (in the order given), on a shared time axis, with the time the task
// waited to be claimed (ready -> started) and the time it ran (started -> finished), coloured by status.
import { attemptLabel, type TaskView } from '@/lib/runs/run-view';
import { formatDateTime, formatDuration, niceDurationTicks } from '@/lib/time/format';
import { useDisplayZone } from '../display-zone';
import { useNow } from '../time';
import { Card, CardHeader } from '../ui/card';

const RUN_COLOUR: Record<string, string> = {
  success: 'bg-emerald-500',
  failed: 'bg-red-500',
  timeout: 'bg-orange-500',
  dead: 'bg-red-700',
  cancelled: 'bg-zinc-400',
  running: 'bg-sky-500',
};

/**
 * When a task became ready to be claimed (ms): the latest of its schedule_at (creation, a retry's backoff or
 * re-open), the moment its parents released it for its first attempt (tasks.ready_at), and its parents' ends
 * (a step re-run after an operator re-ran its parent waits for that parent's new end).
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

/**
 * The time axis for a run spanning `spanMs`: round ticks from 0 (niceDurationTicks, at most 4 intervals) and the
 * axis end, the last tick. Ticks at quarters of the span repeated a label once the span was a few ms (`+1 ms`,
 * `+1 ms`) and were odd numbers otherwise (`+85 ms`, `+171 ms`).
 */
export function ganttAxis(spanMs: number): { ticks: number[]; end: number } {
  const ticks = niceDurationTicks(Math.max(1, spanMs), 4);
  return { ticks, end: ticks[ticks.length - 1]! };
}

/** One task on the chart: when it became ready, started and ended (ms; null while not started). */
export type GanttSpan = { ready: number; start: number | null; end: number | null };

/**
 * What the chart's total is made of. It runs from the first task ready to be claimed (`t0`, normally the run's
 * creation or slot) to the last task's end, so it counts the wait before the first task started (`queuedMs`); the
 * run's Duration counts from the first task's start to the run's end (lib/engine/sql/run-outcome.ts), the chart's
 * `ranMs`. Null when no task has a time yet; `queuedMs` / `ranMs` null while no task has started.
 */
export function timelineSpan(rows: readonly GanttSpan[]): { t0: number; totalMs: number; queuedMs: number | null; ranMs: number | null } | null {
  const times = rows.flatMap((r) => [r.ready, r.start, r.end]).filter((x): x is number => x != null);
  if (times.length === 0) return null;
  const t0 = Math.min(...times);
  const last = Math.max(...times);
  const starts = rows.map((r) => r.start).filter((x): x is number => x != null);
  const firstStart = starts.length ? Math.min(...starts) : null;
  return { t0, totalMs: last - t0, queuedMs: firstStart == null ? null : firstStart - t0, ranMs: firstStart == null ? null : last - firstStart };
}

/** The chart's caption: where it starts and what its total is made of (timelineSpan), in the one duration format. */
export function timelineCaption(span: NonNullable<ReturnType<typeof timelineSpan>>, from: string): string {
  const total = `${formatDuration(span.totalMs)} in all`;
  const parts = span.queuedMs == null || span.ranMs == null ? 'no task has started yet' : `${formatDuration(span.queuedMs)} queued before the first task started + ${formatDuration(span.ranMs)} from that start to the last end (as the run's Duration counts)`;
  return `Waiting to be claimed (light) and running (coloured), from ${from}: ${total}, ${parts}`;
}

/** The chart (test id `run-gantt`, one `gantt-row` per task with `gantt-wait` and `gantt-run` bars). */
export function RunGantt({ tasks }: { tasks: TaskView[] }) {
  const zone = useDisplayZone();
  const now = useNow();
  const byKey = new Map(tasks.map((t) => [t.stepKey, t]));
  const rows = tasks.map((t) => {
    const ready = readyAt(t, byKey);
    const start = t.startedAt ? Date.parse(t.startedAt) : null;
    // A running task's bar grows with the clock once the browser has one (the server never guesses "now").
    const end = t.completedAt ? Date.parse(t.completedAt) : start != null && now != null ? Math.max(start, now) : start;
    return { t, ready, start, end };
  });
  const summary = timelineSpan(rows);
  if (!summary) return null;
  const { t0 } = summary;
  const { ticks, end: axisEnd } = ganttAxis(summary.totalMs);
  const pct = (x: number) => `${((x - t0) / axisEnd) * 100}%`;
  const width = (a: number, b: number) => `${Math.max(0.4, ((b - a) / axisEnd) * 100)}%`;
  return (
    <Card className="mt-4 overflow-hidden">
      <CardHeader title="Timeline" description={<span data-testid="gantt-caption">{timelineCaption(summary, formatDateTime(t0, zone, { ms: true }))}</span>} />
      <div className="px-4 pb-3" data-testid="run-gantt">
        <div className="relative ml-40 h-5 border-b border-zinc-200 text-[10px] text-zinc-400">
          {ticks.map((tick, i) => (
            <span
              key={tick}
              data-testid="gantt-tick"
              // The first and last labels sit inside the axis: centred on their tick they were cut off by the card.
              className={`absolute whitespace-nowrap ${i === 0 ? '' : i === ticks.length - 1 ? '-translate-x-full' : '-translate-x-1/2'}`}
              style={{ left: `${(tick / axisEnd) * 100}%` }}
            >
              +{formatDuration(tick)}
            </span>
          ))}
        </div>
        {rows.map(({ t, ready, start, end }) => (
          <div key={t.id} className="flex items-center py-1" data-testid="gantt-row" data-step={t.stepKey}>
            <div className="w-40 shrink-0 truncate pr-2 font-mono text-xs">{t.stepKey}</div>
            <div className="relative h-4 flex-1 rounded bg-zinc-50">
              {start != null ? (
                <>
                  <span data-testid="gantt-wait" title={`waited ${formatDuration(start - ready)}`} className="absolute inset-y-1 rounded-sm bg-amber-200" style={{ left: pct(ready), width: width(ready, start) }} />
                  <span
                    data-testid="gantt-run"
                    title={`${attemptLabel(t).long}, ran ${formatDuration((end ?? start) - start)}: ${formatDateTime(start, zone, { ms: true })} → ${end != null ? formatDateTime(end, zone, { ms: true }) : '…'}`}
                    className={`absolute inset-y-0 rounded-sm ${RUN_COLOUR[t.status] ?? 'bg-zinc-400'}`}
                    style={{ left: pct(start), width: width(start, end ?? start) }}
                  />
                </>
              ) : (
                <span className="absolute left-1 top-0 text-[10px] text-zinc-400">{t.status}</span>
              )}
            </div>
          </div>
        ))}
      </div>
    </Card>
  );
}
