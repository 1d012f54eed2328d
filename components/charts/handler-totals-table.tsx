import type { HandlerTotals } from '@/lib/stats/get-daily-stats';
import type * as React from 'react';
import { DataTable, type Column } from '../ui/data-table';
import { fullMs, percent } from './chart-theme';

/**
 * Handlers with their totals over the range: attempts by outcome, dead letters, success rate
 * (success / finished attempts), p50 / p95 / max duration, average lateness. `hrefFor` turns a
 * handler name into a link (e.g. the stats page filtered to it). Server- or client-renderable.
 */
export function HandlerTotalsTable({ totals, hrefFor }: { totals: HandlerTotals[]; hrefFor?: (handler: string) => string }) {
  if (totals.length === 0) return <p className="px-4 py-6 text-center text-[13px] text-zinc-500">No finished tasks in this range.</p>;
  const num = (key: keyof HandlerTotals, header: string, cell: (t: HandlerTotals) => React.ReactNode, tone?: (t: HandlerTotals) => string): Column<HandlerTotals> => ({
    key,
    header,
    headerClassName: 'text-right',
    className: (t) => `text-right tabular-nums ${tone?.(t) ?? ''}`,
    cell,
  });
  return (
    <DataTable
      testId="handler-totals"
      rows={totals}
      rowKey={(t) => t.handler}
      columns={[
        {
          key: 'handler',
          header: 'Handler',
          className: 'font-mono text-xs text-zinc-900',
          cell: (t) =>
            hrefFor ? (
              <a className="text-indigo-700 hover:underline" href={hrefFor(t.handler)}>
                {t.handler}
              </a>
            ) : (
              t.handler
            ),
        },
        num('success', 'Success', (t) => t.success),
        num('failure', 'Failure', (t) => t.failure, (t) => (t.failure ? 'text-red-700' : '')),
        num('timeout', 'Timeout', (t) => t.timeout, (t) => (t.timeout ? 'text-orange-700' : '')),
        num('deadLetter', 'Dead', (t) => t.deadLetter, (t) => (t.deadLetter ? 'font-medium text-red-900' : '')),
        num('successRate', 'Success rate', (t) => percent(t.successRate), (t) => (t.successRate != null && t.successRate < 0.95 ? 'text-red-700' : 'text-emerald-700')),
        num('p50Ms', 'p50', (t) => fullMs(t.p50Ms)),
        num('p95Ms', 'p95', (t) => fullMs(t.p95Ms)),
        num('maxDurationMs', 'Max', (t) => fullMs(t.maxDurationMs)),
        num('avgLatenessMs', 'Avg lateness', (t) => fullMs(t.avgLatenessMs)),
      ]}
    />
  );
}
