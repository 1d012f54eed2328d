import { OUTCOME_COLORS } from './chart-theme';

type Runs = { success: number; failed: number; timeout: number; cancelled: number; skipped: number; running: number; pending: number; total: number };

/**
 * One horizontal stacked bar of run outcomes (e.g. lib/stats Overview.runs24h) with a legend.
 * Plain CSS (no chart library): it is a proportion, not a series.
 */
export function RunOutcomeBar({ runs }: { runs: Runs }) {
  const parts: [string, number, string][] = [
    ['success', runs.success, OUTCOME_COLORS.success],
    ['failed', runs.failed, OUTCOME_COLORS.failure],
    ['timeout', runs.timeout, OUTCOME_COLORS.timeout],
    ['running', runs.running, '#0ea5e9'],
    ['pending', runs.pending, '#f59e0b'],
    ['cancelled', runs.cancelled, '#a1a1aa'],
    ['skipped', runs.skipped, '#d4d4d8'],
  ];
  const total = Math.max(1, runs.total);
  return (
    <div data-chart="run-outcomes">
      <div className="flex h-2.5 w-full overflow-hidden rounded-full bg-zinc-100" role="img" aria-label={parts.map(([k, v]) => `${k} ${v}`).join(', ')}>
        {parts.map(([k, v, c]) => (v > 0 ? <div key={k} style={{ width: `${(v / total) * 100}%`, background: c }} title={`${k}: ${v}`} /> : null))}
      </div>
      <ul className="mt-1.5 flex flex-wrap gap-x-3 gap-y-0.5 text-[11px] text-zinc-600">
        {parts
          .filter(([, v]) => v > 0)
          .map(([k, v, c]) => (
            <li key={k} className="flex items-center gap-1">
              <span className="inline-block size-2 rounded-sm" style={{ background: c }} />
              {k} <span className="tabular-nums text-zinc-900">{v}</span>
            </li>
          ))}
      </ul>
    </div>
  );
}
