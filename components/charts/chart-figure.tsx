import * as React from 'react';
import { cn } from '../ui/cn';

/**
 * A chart with its visible title — what it measures and in what unit — and the figure named by that title
 * (aria-labelledby), so a screen reader announces "Duration per day: p50 and p95 (seconds), figure" and a test
 * finds it by role and name. `framed`: the title row of a card (as components/ui/card.tsx CardHeader);
 * otherwise a small title above the plot (small multiples, the job page's panel).
 */
export function ChartFigure({ title, description, framed = false, testId, children }: { title: string; description?: React.ReactNode; framed?: boolean; testId?: string; children: React.ReactNode }) {
  const id = React.useId();
  return (
    <figure aria-labelledby={id} className="m-0 min-w-0" data-testid={testId}>
      <figcaption className={framed ? 'border-b border-zinc-100 px-4 py-2.5' : 'px-1 pb-1'}>
        {framed ? (
          <h2 id={id} className="text-[13px] font-semibold text-zinc-900">{title}</h2>
        ) : (
          <h3 id={id} className="break-words text-xs font-medium text-zinc-700">{title}</h3>
        )}
        {description ? <p className={cn('text-xs text-zinc-500', framed && 'mt-0.5')}>{description}</p> : null}
      </figcaption>
      <div className={framed ? 'px-2 pb-2 pt-3' : undefined}>{children}</div>
    </figure>
  );
}
