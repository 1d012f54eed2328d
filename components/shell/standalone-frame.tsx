import type { ReactNode } from 'react';
import { Logo } from './logo';

/**
 * The frame of the pages outside the console's shell (sign-in, an address no page answers): the logo and
 * name above one centred card.
 */
export function StandaloneFrame({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <main className="flex min-h-screen items-center justify-center bg-zinc-50 px-4" data-testid={testId}>
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center justify-center gap-2">
          <Logo className="size-7" />
          <span className="text-lg font-semibold tracking-tight">Tickflow</span>
        </div>
        <div className="rounded-lg border border-zinc-200 bg-white p-6 shadow-sm">{children}</div>
      </div>
    </main>
  );
}
