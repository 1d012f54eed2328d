import * as React from 'react';
import { cn } from './cn';

/**
 * Text cut to the width its box allows, with an ellipsis, the full text in its title (on hover). A table
 * cell's own max-width is not honoured by an auto-sized table, and `text-overflow` does not apply to a flex
 * box, so the cut happens on this block. `className` sets the width limit (e.g. `max-w-[10rem]`).
 */
export function Truncate({ text, title, className, children, ...rest }: { text: string; title?: string; className?: string; children?: React.ReactNode } & Omit<React.HTMLAttributes<HTMLSpanElement>, 'title' | 'children'>) {
  return (
    <span className={cn('block truncate', className)} title={title ?? text} {...rest}>
      {children ?? text}
    </span>
  );
}
