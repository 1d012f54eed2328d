'use client';

import * as React from 'react';
import { Tooltip as T } from 'radix-ui';

/**
 * Hover/focus tooltip. Wraps the child in a focusable span so it also works on a
 * disabled button (disabled elements fire no pointer events). `content` null renders
 * the child alone.
 */
export function Tooltip({ content, children, side = 'top' }: { content: React.ReactNode | null; children: React.ReactNode; side?: 'top' | 'bottom' | 'left' | 'right' }) {
  if (content == null || content === '') return <>{children}</>;
  return (
    <T.Root delayDuration={250}>
      <T.Trigger asChild>
        <span className="inline-flex" tabIndex={0} title={typeof content === 'string' ? content : undefined}>
          {children}
        </span>
      </T.Trigger>
      <T.Portal>
        <T.Content side={side} sideOffset={6} className="z-50 rounded-md bg-zinc-900 px-2 py-1 text-xs text-white shadow-lg">
          {content}
          <T.Arrow className="fill-zinc-900" />
        </T.Content>
      </T.Portal>
    </T.Root>
  );
}

export const TooltipProvider = T.Provider;
