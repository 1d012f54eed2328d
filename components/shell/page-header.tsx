import * as React from 'react';

/**
 * Page title row: title, optional subtitle/breadcrumb above, actions on the right. A title too long for the row (a job
 * key of 90 characters on a phone) wraps, breaking anywhere, instead of being clipped: it names the page, and a phone
 * has no hover to read a cut one. The crumb and the description wrap the same way.
 */
export function PageHeader({ title, description, actions, crumb }: { title: React.ReactNode; description?: React.ReactNode; actions?: React.ReactNode; crumb?: React.ReactNode }) {
  return (
    <div className="mb-4 flex flex-wrap items-end justify-between gap-3">
      {/* the crumb (a job key), the title and the description (a job's name and description) are operators' text */}
      <div className="min-w-0 [overflow-wrap:anywhere]">
        {crumb ? <div className="mb-1 text-xs text-zinc-500">{crumb}</div> : null}
        <h1 className="text-lg font-semibold tracking-tight text-zinc-900">{title}</h1>
        {description ? <p className="mt-0.5 text-[13px] text-zinc-500">{description}</p> : null}
      </div>
      {/* below 640 px the actions take their own full-width line, so a grid of them (the job header) can fill it */}
      {actions ? <div className="flex items-center gap-2 max-sm:w-full">{actions}</div> : null}
    </div>
  );
}
