import type { HandlerTotals } from '@/lib/stats/get-daily-stats';
import { fullMs, percent } from './chart-theme';

/**
 * Handlers with their totals over the range: attempts by outcome, dead letters, success rate
 * (success / finished attempts), p50 / p95 / max duration, average lateness. `hrefFor` turns a
 * handler name into a link (e.g. the stats page filtered to it). Server- or client-renderable.
 */
export function HandlerTotalsTable({ totals, hrefFor }: { totals: HandlerTotals[]; hrefFor?: (handler: string) => string }) {
  if (totals.length === 0) return <p className="px-4 py-6 text-center text-[13px] text-zinc-500">No finished tasks in this range.</p>;
  const num = 'px-3 py-2 text-right tabular-nums';
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-[13px]" data-testid="handler-totals">
        <thead>
          <tr className="border-b border-zinc-100 text-left text-[11px] font-medium uppercase tracking-wide text-zinc-500">
            <th className="px-3 py-2 font-medium">Handler</th>
            <th className={`${num} font-medium`}>Success</th>
            <th className={`${num} font-medium`}>Failure</th>
            <th className={`${num} font-medium`}>Timeout</th>
            <th className={`${num} font-medium`}>Dead</th>
            <th className={`${num} font-medium`}>Success rate</th>
            <th className={`${num} font-medium`}>p50</th>
            <th className={`${num} font-medium`}>p95</th>
            <th className={`${num} font-medium`}>Max</th>
            <th className={`${num} font-medium`}>Avg lateness</th>
          </tr>
        </thead>
        <tbody>
          {totals.map((t) => (
            <tr key={t.handler} className="border-b border-zinc-50 last:border-0 hover:bg-zinc-50/60">
              <td className="px-3 py-2 font-mono text-xs text-zinc-900">
                {hrefFor ? (
                  <a className="text-indigo-700 hover:underline" href={hrefFor(t.handler)}>
                    {t.handler}
                  </a>
                ) : (
                  t.handler
                )}
              </td>
              <td className={num}>{t.success}</td>
              <td className={`${num} ${t.failure ? 'text-red-700' : ''}`}>{t.failure}</td>
              <td className={`${num} ${t.timeout ? 'text-orange-700' : ''}`}>{t.timeout}</td>
              <td className={`${num} ${t.deadLetter ? 'font-medium text-red-900' : ''}`}>{t.deadLetter}</td>
              <td className={`${num} ${t.successRate != null && t.successRate < 0.95 ? 'text-red-700' : 'text-emerald-700'}`}>{percent(t.successRate)}</td>
              <td className={num}>{fullMs(t.p50Ms)}</td>
              <td className={num}>{fullMs(t.p95Ms)}</td>
              <td className={num}>{fullMs(t.maxDurationMs)}</td>
              <td className={num}>{fullMs(t.avgLatenessMs)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
