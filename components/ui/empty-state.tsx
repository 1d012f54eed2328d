import * as React from 'react';
import { cn } from './cn';

/** Centered message for an empty list, with an optional call to action. */
export function EmptyState({ icon, title, description, action, className }: { icon?: React.ReactNode; title: string; description?: React.ReactNode; action?: React.ReactNode; className?: string }) {
  return (
    <div className={cn('flex flex-col items-center justify-center gap-2 px-6 py-12 text-center', className)}>
      {icon ? <div className="text-zinc-400 [&_svg]:size-6">{icon}</div> : null}
      <p className="text-[13px] font-medium text-zinc-800">{title}</p>
      {description ? <p className="max-w-md text-xs text-zinc-500">{description}</p> : null}
      {action ? <div className="mt-2">{action}</div> : null}
    </div>
  );
}
