'use client';

import * as React from 'react';
import { TriangleAlert } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE_DIGEST, DATABASE_UNAVAILABLE_MESSAGE } from '@/lib/infra/database-unavailable';

/**
 * What the error boundaries show (app/(console)/error.tsx, app/error.tsx, app/global-error.tsx): the message
 * of an expected error and a retry button — or, for a page that met a database outage while rendering
 * (proxy.ts's probe had not noticed it yet, lib/infra/database-probe.ts), the outage page, as the 503 page
 * says it, reloading itself. The outage is known by the error's digest (DatabaseUnavailableError,
 * app/_lib/page-error.ts outageOr); an error that did not pass through outageOr is checked against
 * GET /api/v1/health, which answers 503 while the database cannot be reached.
 */
export function ErrorBoundaryView({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const knownOutage = error.digest === DATABASE_UNAVAILABLE_DIGEST;
  const [healthSaysDown, setHealthSaysDown] = React.useState(false);
  const databaseDown = knownOutage || healthSaysDown;
  React.useEffect(() => {
    if (knownOutage) return;
    let cancelled = false;
    void fetch('/api/v1/health', { cache: 'no-store' })
      .then((res) => {
        if (!cancelled && res.status === 503) setHealthSaysDown(true);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [error, knownOutage]);
  React.useEffect(() => {
    if (!databaseDown) return;
    const reload = setTimeout(() => window.location.reload(), DATABASE_RETRY_AFTER_SECONDS * 1000);
    return () => clearTimeout(reload);
  }, [databaseDown]);
  if (databaseDown) {
    return (
      <div role="alert" className="mx-auto mt-16 max-w-lg rounded-lg border border-amber-200 bg-white p-6 text-center shadow-xs" data-testid="database-unavailable">
        <TriangleAlert className="mx-auto size-6 text-amber-500" />
        <h1 className="mt-2 text-[15px] font-semibold">Database unavailable</h1>
        <p className="mt-1 text-[13px] text-zinc-600">{DATABASE_UNAVAILABLE_MESSAGE}</p>
        <p className="mt-1 text-[12px] text-zinc-500">This page reloads by itself every {DATABASE_RETRY_AFTER_SECONDS} seconds.</p>
      </div>
    );
  }
  // Production builds hide server error messages; the digest ties the UI to the server log line.
  // A server-side error (it has a digest) is never shown as is, even in development: its text
  // may be a raw database/driver message. Expected errors are handled by the pages themselves.
  return (
    <div role="alert" className="mx-auto mt-16 max-w-lg rounded-lg border border-red-200 bg-white p-6 text-center shadow-xs">
      <TriangleAlert className="mx-auto size-6 text-red-500" />
      <h1 className="mt-2 text-[15px] font-semibold">This page could not be loaded</h1>
      <p className="mt-1 text-[13px] text-zinc-600">{error.digest || !error.message ? 'An unexpected error occurred.' : error.message}</p>
      {error.digest ? <p className="mt-1 font-mono text-[11px] text-zinc-500">ref {error.digest}</p> : null}
      <Button className="mt-4" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
