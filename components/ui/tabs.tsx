'use client';

import * as React from 'react';
import { Tabs as T } from 'radix-ui';
import { cn } from './cn';

export const TabsRoot = T.Root;
export const TabsContent = T.Content;

/** Underlined tab strip; below 768 px (Tailwind's `md`) it scrolls sideways instead of widening the page. */
export function TabsList({ className, ...props }: React.ComponentProps<typeof T.List>) {
  return <T.List className={cn('flex gap-1 border-b border-zinc-200 max-md:overflow-x-auto max-md:overflow-y-hidden', className)} {...props} />;
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
