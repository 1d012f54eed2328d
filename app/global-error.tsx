'use client';

import { ErrorBoundaryView } from '@/components/error-boundary-view';
import './globals.css';

/**
 * Error boundary for the root layout (app/layout.tsx): it replaces the whole document, so it brings its own
 * html and body. components/error-boundary-view.tsx.
 */
export default function GlobalError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body>
        <ErrorBoundaryView {...props} />
      </body>
    </html>
  );
}
