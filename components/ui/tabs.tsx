'use client';

import * as React from 'react';
import { Tabs as T } from 'radix-ui';
import { cn } from './cn';
import { useScrollEdges } from './scroll-x';

export const TabsRoot = T.Root;
export const TabsContent = T.Content;

/**
 * Underlined tab strip; below 768 px (Tailwind's `md`) it scrolls sideways instead of widening the page, fades the
 * side that has more tabs out of view (useScrollEdges: a phone shows no scroll bar until touched), and brings the
 * active tab into view when it changes (a link to `?tab=versions` opens with Versions visible).
 */
export function TabsList({ className, ...props }: React.ComponentProps<typeof T.List>) {
  const ref = React.useRef<HTMLDivElement>(null);
  useScrollEdges(ref);
  const shown = React.useRef<Element | null>(null);
  React.useEffect(() => {
    const list = ref.current;
    const active = list?.querySelector<HTMLElement>('[role="tab"][data-state="active"]');
    if (!list || !active || active === shown.current) return;
    shown.current = active;
    // scrollLeft rather than scrollIntoView, which would also scroll the page to the strip
    // (the margin clears the faded edge)
    const margin = 40;
    const a = active.getBoundingClientRect();
    const l = list.getBoundingClientRect();
    if (a.left < l.left) list.scrollLeft += a.left - l.left - margin;
    else if (a.right > l.right) list.scrollLeft += a.right - l.right + margin;
  });
  return <T.List ref={ref} className={cn('tf-scroll-fade flex gap-1 border-b border-zinc-200 max-md:overflow-x-auto max-md:overflow-y-hidden', className)} {...props} />;
}

export function TabsTrigger({ className, ...props }: React.ComponentProps<typeof T.Trigger>) {
  return (
    <T.Trigger
      className={cn(
        '-mb-px shrink-0 whitespace-nowrap border-b-2 border-transparent px-3 py-2 text-[13px] font-medium text-zinc-500 hover:text-zinc-900 data-[state=active]:border-indigo-600 data-[state=active]:text-zinc-900',
        className,
      )}
      {...props}
    />
  );
}
