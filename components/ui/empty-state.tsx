import * as React from 'react';
import { Link } from '@/components/ui/link';
import { X } from 'lucide-react';
import { Button } from './button';
import { cn } from './cn';

/** Centered message for an empty list, with an optional call to action. */
export function EmptyState({ icon, title, description, action, className, ...rest }: { icon?: React.ReactNode; title: string; description?: React.ReactNode; action?: React.ReactNode; className?: string } & Omit<React.HTMLAttributes<HTMLDivElement>, 'title'>) {
  return (
    <div className={cn('flex flex-col items-center justify-center gap-2 px-6 py-12 text-center', className)} {...rest}>
      {icon ? <div className="text-zinc-500 [&_svg]:size-6">{icon}</div> : null}
      <p className="text-[13px] font-medium text-zinc-800">{title}</p>
      {description ? <p className="max-w-md text-xs text-zinc-500">{description}</p> : null}
      {action ? <div className="mt-2">{action}</div> : null}
    </div>
  );
}

/**
 * The empty state of a list with filters: while a filter is set (`filtered`: filtersSet in
 * components/filter-params.ts), nothing matches them, with a Clear filters link to `clearHref`; only with no
 * filter set is the list itself empty (`empty`). `noun` names the rows in the plural ("runs").
 */
export function ListEmptyState({ icon, noun, filtered, clearHref, empty }: { icon?: React.ReactNode; noun: string; filtered: boolean; clearHref: string; empty: { title: string; description?: React.ReactNode; action?: React.ReactNode } }) {
  if (!filtered) return <EmptyState icon={icon} {...empty} data-testid="list-empty" />;
  return (
    <EmptyState
      icon={icon}
      title={`No ${noun} match these filters`}
      description="Change the filters, or clear them to see everything."
      data-testid="list-empty-filtered"
      action={
        <Button asChild size="sm" variant="secondary">
          <Link href={clearHref}>
            <X /> Clear filters
          </Link>
        </Button>
      }
    />
  );
}
