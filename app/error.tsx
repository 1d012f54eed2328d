'use client';

import { ErrorBoundaryView } from '@/components/error-boundary-view';

/**
 * Error boundary for what app/(console)/error.tsx does not cover: the console layout itself (it reads the
 * session first, app/(console)/layout.tsx) and the sign-in page. components/error-boundary-view.tsx.
 */
export default function RootError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <ErrorBoundaryView {...props} />;
}
