'use client';

import { TriangleAlert } from 'lucide-react';
import { Button } from '@/components/ui/button';

/** Error boundary for console pages: the message of an expected error, a retry button. */
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  // Production builds hide server error messages; the digest ties the UI to the server log line.
  // A server-side error (it has a digest) is never shown as is, even in development: its text
  // may be a raw database/driver message. Expected errors are handled by the pages themselves.
  return (
    <div role="alert" className="mx-auto mt-16 max-w-lg rounded-lg border border-red-200 bg-white p-6 text-center shadow-xs">
      <TriangleAlert className="mx-auto size-6 text-red-500" />
      <h1 className="mt-2 text-[15px] font-semibold">This page could not be loaded</h1>
      <p className="mt-1 text-[13px] text-zinc-600">{error.digest || !error.message ? 'An unexpected error occurred.' : error.message}</p>
      {error.digest ? <p className="mt-1 font-mono text-[11px] text-zinc-400">ref {error.digest}</p> : null}
      <Button className="mt-4" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
