'use client';

import { ErrorBoundaryView } from '@/components/error-boundary-view';

/** Error boundary for console pages: components/error-boundary-view.tsx (a database outage shows the outage page). */
export default function ConsoleError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorBoundaryView {...props} />;
}
