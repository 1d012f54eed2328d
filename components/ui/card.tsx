import * as React from 'react';
import { cn } from './cn';

/** White panel with a hairline border. */
export function Card({ className, ...props }: React.ComponentProps<'section'>) {
  return <section className={cn('rounded-lg border border-zinc-200 bg-white shadow-xs', className)} {...props} />;
}

/** Card title row; `actions` sit on the right, or below the title when the card is too narrow for both. */
export function CardHeader({ title, description, actions, className }: { title: React.ReactNode; description?: React.ReactNode; actions?: React.ReactNode; className?: string }) {
  return (
    // The title takes at least 12rem before the actions may sit beside it; on a narrower card they wrap below, so a
    // description is never squeezed into a column of one word per line beside them (the run page's Graph legend at 390 px).
    <div className={cn('flex flex-wrap items-start justify-between gap-x-3 gap-y-2 border-b border-zinc-100 px-4 py-2.5', className)}>
      <div className="min-w-0 flex-1 basis-48">
        <h2 className="text-[13px] font-semibold text-zinc-900">{title}</h2>
        {description ? <p className="mt-0.5 text-xs text-zinc-500">{description}</p> : null}
      </div>
      {actions ? <div className="flex shrink-0 items-center gap-2">{actions}</div> : null}
    </div>
  );
}

export function CardBody({ className, ...props }: React.ComponentProps<'div'>) {
  return <div className={cn('px-4 py-3', className)} {...props} />;
}

/** Definition list for key/value summaries (label column fixed, values wrap). */
export function DescriptionList({ items, className }: { items: [React.ReactNode, React.ReactNode][]; className?: string }) {
  return (
    <dl className={cn('grid grid-cols-[minmax(120px,max-content)_1fr] gap-x-4 gap-y-1.5 text-[13px]', className)}>
      {items.map(([k, v], i) => (
        <React.Fragment key={i}>
          <dt className="text-zinc-500">{k}</dt>
          <dd className="min-w-0 break-words text-zinc-900">{v}</dd>
        </React.Fragment>
      ))}
    </dl>
  );
}
