'use client';

import { Link } from '@/components/ui/link';
import type { RunSummary } from '@/lib/runs/run-view';
import { formatDateTime, formatDuration } from '@/lib/time/format';
import { useDisplayZone } from '../display-zone';

/** Fill colour per run status (same families as the status badges: green ok, red failed, amber waiting, grey not run). */
const FILL: Record<RunSummary['status'], string> = {
  success: 'bg-emerald-500 hover:bg-emerald-600',
  failed: 'bg-red-500 hover:bg-red-600',
  timeout: 'bg-orange-500 hover:bg-orange-600',
  running: 'bg-sky-500 hover:bg-sky-600 animate-pulse',
  pending: 'bg-amber-300 hover:bg-amber-400',
  cancelled: 'bg-zinc-400 hover:bg-zinc-500',
  skipped: 'bg-zinc-200 hover:bg-zinc-300',
};

function describe(run: RunSummary, zone: string): string {
  const took = run.durationMs === null ? '' : `, ${formatDuration(run.durationMs)}`;
  return `${run.status} · ${run.trigger} · ${formatDateTime(run.scheduledFor, zone)}${took}${run.reason ? ` · ${run.reason}` : ''}`;
}

/**
 * The job's recent runs as one row of coloured cells, oldest left, newest right
 * (the run history strip): failures and gaps stand out at a glance; each
 * cell links to its run and names status, trigger, scheduled time (in the display zone) and duration.
 * @param runs newest first, as lib/runs listRuns returns them
 */
export function RunHistoryStrip({ runs }: { runs: RunSummary[] }) {
  const zone = useDisplayZone();
  const ordered = [...runs].reverse();
  const counts = runs.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
  return (
    <div data-testid="run-history-strip">
      <div className="mb-2 flex items-baseline justify-between gap-4">
        <h3 className="text-[13px] font-semibold text-zinc-900">Recent runs</h3>
        <p className="text-[12px] text-zinc-500">
          {runs.length === 0
            ? 'No runs yet'
            : `last ${runs.length}: ${Object.entries(counts)
                .map(([status, n]) => `${n} ${status}`)
                .join(', ')}`}
        </p>
      </div>
      {runs.length === 0 ? null : (
        <ol className="flex flex-wrap gap-[3px]" aria-label="Recent runs, oldest first">
          {ordered.map((run) => (
            <li key={run.id}>
              <Link
                href={`/runs/${run.id}`}
                title={describe(run, zone)}
                aria-label={describe(run, zone)}
                data-status={run.status}
                className={`block h-6 w-3 rounded-[2px] ${FILL[run.status]}`}
              />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
