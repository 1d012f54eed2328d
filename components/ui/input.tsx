import * as React from 'react';
import { cn } from './cn';

const base =
  'w-full rounded-md border border-zinc-300 bg-white px-2.5 text-[13px] text-zinc-900 shadow-xs placeholder:text-zinc-500 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/20 disabled:bg-zinc-50 disabled:text-zinc-500 aria-[invalid=true]:border-red-400 aria-[invalid=true]:ring-red-500/20';

/** Text input (32px high). Set `aria-invalid` to show the error style. */
export function Input({ className, ...props }: React.ComponentProps<'input'>) {
  return <input className={cn(base, 'h-8', className)} {...props} />;
}

/** Multi-line input; `mono` for JSON and code. */
export function Textarea({ className, mono, ...props }: React.ComponentProps<'textarea'> & { mono?: boolean }) {
  return <textarea className={cn(base, 'py-1.5', mono && 'font-mono text-xs leading-5', className)} {...props} />;
}

/** Native select: keyboard-friendly and testable with Playwright's selectOption. */
export function NativeSelect({ className, ...props }: React.ComponentProps<'select'>) {
  return <select className={cn(base, 'h-8 pr-7', className)} {...props} />;
}
