'use client';

import { DisabledReason } from '../ui/disabled-reason';
import * as React from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Download, TriangleAlert } from 'lucide-react';
import type { TaskLogLineLevel, TaskLogLinesPage, TaskLogLineView, TaskProgressView } from '@/lib/task-logs/view';
import { Button } from '../ui/button';
import { Input, NativeSelect } from '../ui/input';
import { cn } from '../ui/cn';
import { getJson } from '../api';
import { formatClock, formatDateTime, formatUtc } from '@/lib/time/format';
import { useDisplayZone } from '../display-zone';
import { LEVELS, anchoredLineIndex, filterLines, shownLineText, linesAnchor, linesAsText, parseLinesAnchor } from './task-log-lines-model';

/** How often a running attempt's lines are asked for (ms): with the worker's flush (200 ms by default) new lines show within 1 s. */
const TAIL_MS = 250;
/** How often the lines of a task waiting to be claimed are asked for (ms): its first lines also show within 1 s. */
const WAITING_MS = 500;
/** After an attempt ended, keep asking this long (ms) for the worker's last flush. */
const FINAL_GRACE_MS = 2500;
/** Lines kept in the browser per attempt (the worker's default per-attempt limit is 10,000). */
const MAX_LINES = 50_000;
const PAGE = 1000;
/** A line's height before it is measured (px): the terminal's `leading-5`; wrapped lines measure taller. */
const LINE_PX = 20;
/** Lines drawn beyond the visible ones on each side, so a quick scroll does not show blank rows. */
const OVERSCAN = 30;

type TaskLike = { id: string; stepKey: string; status: string; attempt: number };

/**
 * The lines a task's handler wrote (docs/task-logs.md), for one attempt at a time: tails
 * GET /api/v1/tasks/:id/logs (keyset on seq) every TAIL_MS while the attempt runs; level
 * filter, text filter, wrap toggle, download as text; the latest progress; a notice when
 * the attempt's lease was reclaimed. A `#lines-<task>-<attempt>-<ms>` link (StateChangeLinesLink)
 * selects the attempt and scrolls to the lines written around that instant. Only the lines in view
 * (and OVERSCAN on each side) are in the page (@tanstack/react-virtual, each line measured once
 * drawn, so wrapped lines keep their height): an attempt of 50,000 lines costs what a screenful does.
 * Test ids: `task-lines-<stepKey>`, `task-line`, `lines-level`, `lines-filter`, `lines-wrap`,
 * `lines-download`, `lines-attempt`, `lines-lease-reclaimed`, `lines-progress`.
 */
export function TaskLogLines({ task }: { task: TaskLike }) {
  const [chosen, setChosen] = React.useState<number | null>(null);
  const attempt = chosen ?? task.attempt;
  const [lines, setLines] = React.useState<TaskLogLineView[]>([]);
  const [meta, setMeta] = React.useState<{ final: boolean; leaseReclaimed: boolean; progress: TaskProgressView | null } | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  /** the tail has read the attempt to its end (final, no page left) */
  const [complete, setComplete] = React.useState(false);
  const [level, setLevel] = React.useState<TaskLogLineLevel>('debug');
  const [text, setText] = React.useState('');
  const [wrap, setWrap] = React.useState(true);
  const [focus, setFocus] = React.useState<{ attempt: number; at: number; seq?: number } | null>(null);
  const [highlight, setHighlight] = React.useState<number | null>(null);
  const zone = useDisplayZone();
  const box = React.useRef<HTMLDivElement>(null);
  const stick = React.useRef(true);
  /** the attempt being shown and the last seq read of it (kept across restarts of the tail for the same attempt) */
  const cursor = React.useRef({ key: '', afterSeq: 0 });

  // Tail the selected attempt: ask for lines after the last seen seq until the attempt is
  // final and the grace for its last flush has passed. A new attempt or task restarts it.
  React.useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let finalSince: number | null = null;
    let waiting = false;
    const ctrl = new AbortController();
    const key = `${task.id}:${attempt}`;
    if (cursor.current.key !== key) {
      cursor.current = { key, afterSeq: 0 };
      setLines([]);
      setMeta(null);
      setError(null);
      setComplete(false);
    }
    const cur = cursor.current;
    const tick = async () => {
      // The pages of one turn are shown at once: appending 10 pages one by one re-rendered the growing
      // list 10 times (1,000 + 2,000 + … + 10,000 rows) before a finished 10,000-line log was readable.
      const arrived: TaskLogLinesPage['lines'][] = [];
      const show = () => {
        const add = arrived.splice(0).flat();
        if (add.length) setLines((prev) => (prev.length >= MAX_LINES ? prev : [...prev, ...add.slice(0, MAX_LINES - prev.length)]));
      };
      try {
        for (;;) {
          const page = await getJson<TaskLogLinesPage>(`/api/v1/tasks/${task.id}/logs?attempt=${attempt}&afterSeq=${cur.afterSeq}&limit=${PAGE}`, ctrl.signal);
          if (stopped || cursor.current !== cur) return;
          cur.afterSeq = page.nextAfterSeq;
          if (page.lines.length) arrived.push(page.lines);
          setMeta({ final: page.final, leaseReclaimed: page.leaseReclaimed, progress: page.progress });
          waiting = page.taskStatus === 'pending' && !page.final;
          setError(null);
          if (!page.more) {
            if (page.final) finalSince ??= Date.now();
            break;
          }
        }
        show();
        if (finalSince !== null) setComplete(true);
      } catch (e) {
        if (stopped) return;
        // what arrived before the failure is kept: cur.afterSeq has moved past it
        show();
        setError((e as Error).message);
        // a refusal (an attempt the task does not have, a session gone) is not retried: asking
        // again several times a second would get the same answer
        const status = (e as { status?: number }).status;
        if (status !== undefined && status >= 400 && status < 500) return;
      }
      if (finalSince !== null && Date.now() - finalSince > FINAL_GRACE_MS) return;
      timer = setTimeout(tick, waiting ? WAITING_MS : TAIL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      ctrl.abort();
      if (timer) clearTimeout(timer);
    };
    // task.status: a task that starts, ends or is retried restarts the tail of its attempt.
  }, [task.id, task.attempt, attempt, task.status]);

  // `#lines-…` links from the task-log state changes.
  React.useEffect(() => {
    const onHash = () => {
      const a = parseLinesAnchor(window.location.hash);
      // an attempt the task does not have (a hand-edited or stale link) selects nothing
      if (!a || a.taskId !== task.id.toLowerCase() || a.attempt < 1 || a.attempt > task.attempt) return;
      setChosen(a.attempt === task.attempt ? null : a.attempt);
      setFocus({ attempt: a.attempt, at: a.at, seq: a.seq });
      setLevel('debug');
      setText('');
    };
    onHash();
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [task.id, task.attempt]);

  const shown = React.useMemo(() => filterLines(lines, level, text), [lines, level, text]);
  const rows = useVirtualizer({
    count: shown.length,
    getScrollElement: () => box.current,
    estimateSize: () => LINE_PX,
    overscan: OVERSCAN,
    getItemKey: (i) => shown[i]!.seq,
  });

  React.useEffect(() => {
    if (!focus || focus.attempt !== attempt || lines.length === 0) return;
    // the named line may not have arrived yet (the attempt's lines come a page at a time)
    const i = anchoredLineIndex(lines, shown, focus.at, focus.seq, !complete && error === null && lines.length < MAX_LINES);
    if (i === null || i < 0) return;
    const seq = shown[i]!.seq;
    setHighlight(seq);
    stick.current = false;
    // the line may not be drawn yet: the virtualizer scrolls to its place and draws it there
    box.current?.scrollIntoView({ block: 'nearest' });
    rows.scrollToIndex(i, { align: 'center' });
    setFocus(null);
  }, [focus, attempt, lines, shown, rows, complete, error]);

  // Follow the tail while the reader is at the bottom.
  React.useLayoutEffect(() => {
    if (stick.current && shown.length > 0) rows.scrollToIndex(shown.length - 1, { align: 'end' });
  }, [shown.length, rows]);

  const download = () => {
    const blob = new Blob([linesAsText(lines)], { type: 'text/plain;charset=utf-8' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${task.stepKey}-attempt-${attempt}.log`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };

  const live = meta !== null && !meta.final;
  const p = meta?.progress;
  return (
    <div className="mt-3 border-t border-zinc-100 pt-3" data-testid={`task-lines-${task.stepKey}`} data-live={live ? 'true' : 'false'}>
      <div className="mb-2 flex flex-wrap items-center gap-2">
        <p className="text-xs font-medium text-zinc-600">
          Log lines {live ? <span className="ml-1 text-sky-600">● live</span> : null}
        </p>
        {task.attempt > 1 ? (
          <label className="flex items-center gap-1 text-xs text-zinc-600">
            attempt
            <NativeSelect className="h-7 w-auto min-w-[4.5rem] text-xs" value={attempt} onChange={(e) => setChosen(Number(e.target.value))} data-testid="lines-attempt">
              {Array.from({ length: task.attempt }, (_, i) => i + 1).map((n) => (
                <option key={n} value={n}>{n}</option>
              ))}
            </NativeSelect>
          </label>
        ) : null}
        <label className="flex items-center gap-1 text-xs text-zinc-600">
          level
          <NativeSelect className="h-7 w-24 text-xs" value={level} onChange={(e) => setLevel(e.target.value as TaskLogLineLevel)} data-testid="lines-level">
            {LEVELS.map((l) => (
              <option key={l} value={l}>{l === 'debug' ? 'all' : `${l}+`}</option>
            ))}
          </NativeSelect>
        </label>
        <Input className="h-7 w-48 text-xs" placeholder="Filter lines" value={text} onChange={(e) => setText(e.target.value)} aria-label="Filter lines" data-testid="lines-filter" />
        <label className="flex items-center gap-1 text-xs text-zinc-600">
          <input type="checkbox" checked={wrap} onChange={(e) => setWrap(e.target.checked)} data-testid="lines-wrap" /> wrap
        </label>
        <span className="ml-auto text-[11px] text-zinc-500" data-testid="lines-count">
          {shown.length === lines.length ? `${count(lines.length)} ${lines.length === 1 ? 'line' : 'lines'}` : `${count(shown.length)} of ${count(lines.length)} lines`}
        </span>
        <DisabledReason reason={lines.length === 0 && (complete ? 'This attempt wrote no log lines' : 'No log lines to download yet')}>
          <Button size="sm" variant="ghost" onClick={download} data-testid="lines-download">
            <Download /> Download
          </Button>
        </DisabledReason>
      </div>
      {p ? (
        <div className="mb-2 flex items-center gap-2 text-xs text-zinc-600" data-testid="lines-progress">
          {p.total ? (
            <div className="h-1.5 w-40 overflow-hidden rounded bg-zinc-200">
              <div className="h-full bg-indigo-500" style={{ width: `${Math.max(0, Math.min(100, ((p.done ?? 0) / p.total) * 100))}%` }} />
            </div>
          ) : null}
          <span>{p.text}</span>
        </div>
      ) : null}
      {meta?.leaseReclaimed ? (
        <div className="mb-2 flex items-start gap-1.5 rounded-md border border-amber-200 bg-amber-50 px-2 py-1.5 text-xs text-amber-800" data-testid="lines-lease-reclaimed">
          <TriangleAlert className="mt-0.5 size-3.5 shrink-0" />
          The worker running this attempt stopped answering and its lease was reclaimed: lines it wrote in its last flush interval (up to 1 s) before it stopped may be missing.
        </div>
      ) : null}
      {error ? <p className="mb-2 text-xs text-red-700">Could not load lines: {error}</p> : null}
      <div
        ref={box}
        onScroll={(e) => {
          const el = e.currentTarget;
          stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
        className="tf-terminal max-h-96 overflow-auto rounded-md border border-zinc-800 bg-zinc-950 p-2 font-mono text-xs leading-5 text-zinc-100"
        data-testid="task-lines"
      >
        {lines.length === 0 ? (
          <p className="text-zinc-500">{meta === null ? (error === null ? 'Loading…' : 'No lines.') : live ? 'Waiting for lines…' : 'No lines were written.'}</p>
        ) : shown.length === 0 ? (
          <p className="text-zinc-500" data-testid="lines-none-match">
            No line matches the filter.{' '}
            <button
              type="button"
              className="text-indigo-300 underline-offset-2 hover:underline"
              onClick={() => {
                setLevel('debug');
                setText('');
              }}
            >
              Clear filter
            </button>
          </p>
        ) : (
          <div className="relative w-full" style={{ height: rows.getTotalSize() }}>
            {rows.getVirtualItems().map((row) => {
              const l = shown[row.index]!;
              return (
                <div
                  key={row.key}
                  ref={rows.measureElement}
                  data-index={row.index}
                  data-testid="task-line"
                  data-seq={l.seq}
                  data-level={l.level}
                  data-stream={l.stream}
                  data-highlight={highlight === l.seq ? 'true' : undefined}
                  style={{ transform: `translateY(${row.start}px)` }}
                  // unwrapped, a line is as wide as its text and the box scrolls sideways
                  className={cn('absolute left-0 top-0 flex min-w-full gap-2', wrap ? 'w-full whitespace-pre-wrap break-all' : 'w-max whitespace-pre', highlight === l.seq && 'bg-indigo-900/60')}
                >
                  <time dateTime={l.time} title={zone === 'UTC' ? formatUtc(l.time) : `${formatDateTime(l.time, zone, { ms: true })}\n${formatUtc(l.time)}`} className="shrink-0 text-zinc-500">
                    {formatClock(l.time, zone, { ms: true, zone: true })}
                  </time>
                  <span className={cn('w-10 shrink-0 uppercase', LEVEL_COLOR[l.level])}>{l.level}</span>
                  {l.stream !== 'log' ? <span className="shrink-0 text-zinc-500">{l.stream}</span> : null}
                  <span className="min-w-0">
                    {shownLineText(l.text)}
                    {l.fields !== undefined ? <span className="text-zinc-500"> {JSON.stringify(l.fields)}</span> : null}
                  </span>
                </div>
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}

/** A count as the console writes counts (`5,002`). */
const count = (n: number) => n.toLocaleString('en-US');

const LEVEL_COLOR: Record<TaskLogLineLevel, string> = {
  debug: 'text-zinc-500',
  info: 'text-sky-300',
  warn: 'text-amber-300',
  error: 'text-red-400',
};

/** A link from a task-log state change (at `createdAt`, of `attempt`) to the lines written around it. */
export function StateChangeLinesLink({ taskId, attempt, createdAt }: { taskId: string; attempt: number; createdAt: string }) {
  const hash = `#${linesAnchor(taskId, attempt, new Date(createdAt).getTime())}`;
  return (
    <a
      href={hash}
      // The same link clicked again changes no hash: announce it anyway.
      onClick={() => {
        if (window.location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
      }}
      aria-label={`Log lines of attempt ${attempt} from this change on`}
      className="text-[11px] text-indigo-700 hover:underline" data-testid="state-change-lines-link">
      log lines
    </a>
  );
}
