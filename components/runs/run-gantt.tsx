'use client';
// A run's Gantt chart: one row per task (in the order given), on a shared time axis, with every attempt of the task:
// the time it waited to be claimed (ready -> started) and the time it ran (started -> ended), coloured by outcome,
// earlier attempts muted (run-gantt-model.ts).
import * as React from 'react';
import type { RunView } from '@/lib/runs/run-view';
import { formatDateTime, formatDuration } from '@/lib/time/format';
import { useDisplayZone } from '../display-zone';
import { useNow } from '../time';
import { Card, CardHeader } from '../ui/card';
import { attemptEnds, ganttAxis, readyAt, taskAttempts, timelineCaption, timelineSpan, type AttemptSpan, type GanttSpan } from './run-gantt-model';

const RUN_COLOUR: Record<string, string> = {
  success: 'bg-emerald-500',
  failed: 'bg-red-500',
  timeout: 'bg-orange-500',
  dead: 'bg-red-700',
  cancelled: 'bg-zinc-400',
  running: 'bg-sky-500',
};

/** An earlier attempt: its outcome's colour, lighter, so the attempt that decided the task stands out. */
const EARLIER_COLOUR: Record<string, string> = {
  success: 'bg-emerald-300',
  failed: 'bg-red-300',
  timeout: 'bg-orange-300',
  dead: 'bg-red-400',
  cancelled: 'bg-zinc-300',
};

/** A bar's tooltip: the attempt, how it ended, how long it ran, and when, in the display zone. */
function attemptTitle(a: AttemptSpan, zone: string): string {
  const ran = a.end == null ? 'running' : `${a.outcome}, ran ${formatDuration(a.end - a.start)}`;
  return `${a.label}, ${ran}: ${formatDateTime(a.start, zone, { ms: true })} → ${a.end != null ? formatDateTime(a.end, zone, { ms: true }) : '…'}`;
}

/**
 * The chart (test id `run-gantt`, one `gantt-row` per task; per attempt a `gantt-wait` and a `gantt-run` bar, the
 * latter with `data-attempt`, `data-outcome`, `data-current` and the instants `data-start` / `data-end` in epoch ms).
 */
export function RunGantt({ run }: { run: RunView }) {
  const zone = useDisplayZone();
  const now = useNow();
  const { tasks } = run;
  const byKey = new Map(tasks.map((t) => [t.stepKey, t]));
  const slot = Date.parse(run.scheduledFor);
  const rows = tasks.map((t) => ({
    t,
    attempts: taskAttempts(t, {
      currentReady: readyAt(t, byKey),
      slot,
      parentEnds: t.parents.flatMap((p) => { const parent = byKey.get(p.step); return parent ? attemptEnds(parent) : []; }),
      now,
    }),
  }));
  const summary = timelineSpan(
    rows.flatMap((r): GanttSpan[] => (r.attempts.length ? r.attempts : [{ ready: readyAt(r.t, byKey), start: null, end: null }])),
    run,
    now,
  );
  if (!summary) return null;
  const { t0 } = summary;
  const { ticks, end: axisEnd } = ganttAxis(summary.totalMs);
  const pct = (x: number) => `${((x - t0) / axisEnd) * 100}%`;
  const width = (a: number, b: number) => `${Math.max(0.4, ((b - a) / axisEnd) * 100)}%`;
  return (
    <Card className="mt-4 overflow-hidden">
      <CardHeader title="Timeline" description={<span data-testid="gantt-caption">{timelineCaption(summary, formatDateTime(t0, zone, { ms: true }))}</span>} />
      <div className="px-4 pb-3" data-testid="run-gantt">
        <div className="relative ml-40 h-5 max-md:ml-24 border-b border-zinc-200 text-[10px] text-zinc-500">
          {ticks.map((tick, i) => (
            <span
              key={tick}
              data-testid="gantt-tick"
              // The first and last labels sit inside the axis: centred on their tick they were cut off by the card.
              // On a phone the axis is too short for five labels side by side: only its two ends are written.
              className={`absolute whitespace-nowrap ${i === 0 ? '' : i === ticks.length - 1 ? '-translate-x-full' : '-translate-x-1/2 max-md:hidden'}`}
              style={{ left: `${(tick / axisEnd) * 100}%` }}
            >
              +{formatDuration(tick)}
            </span>
          ))}
        </div>
        {rows.map(({ t, attempts }) => (
          <div key={t.id} className="flex items-center py-1" data-testid="gantt-row" data-step={t.stepKey}>
            <div className="w-40 shrink-0 truncate pr-2 font-mono text-xs max-md:w-24">{t.stepKey}</div>
            <div className="relative h-4 flex-1 rounded bg-zinc-50">
              {attempts.length ? (
                attempts.map((a) => {
                  const end = a.end ?? a.start;
                  return (
                    <React.Fragment key={a.attempt}>
                      <span data-testid="gantt-wait" title={`${a.label}: waited ${formatDuration(a.start - a.ready)}`} className={`absolute inset-y-1 rounded-sm ${a.current ? 'bg-amber-200' : 'bg-amber-100'}`} style={{ left: pct(a.ready), width: width(a.ready, a.start) }} />
                      <span
                        data-testid="gantt-run"
                        data-attempt={a.attempt}
                        data-outcome={a.outcome}
                        data-current={a.current || undefined}
                        data-start={a.start}
                        data-end={a.end ?? undefined}
                        title={attemptTitle(a, zone)}
                        // an earlier attempt is lower and lighter, so bars of consecutive attempts stay apart
                        className={`absolute rounded-sm ${a.current ? `inset-y-0 ${RUN_COLOUR[a.outcome] ?? 'bg-zinc-400'}` : `inset-y-0.5 ${EARLIER_COLOUR[a.outcome] ?? 'bg-zinc-300'}`}`}
                        style={{ left: pct(a.start), width: width(a.start, end) }}
                      />
                    </React.Fragment>
                  );
                })
              ) : (
                <span className="absolute left-1 top-0 text-[10px] text-zinc-500">{t.status}</span>
              )}
            </div>
          </div>
        ))}
      </div>
    </Card>
  );
}
