'use client';

import * as React from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Toaster } from './ui/toast';
import { TooltipProvider } from './ui/tooltip';
import { UnsavedChangesDialog } from './unsaved-changes-dialog';
import { useFocusKeeper } from './ui/focus-return';

/**
 * Client-side providers for the whole app: TanStack Query (live data), toasts,
 * tooltips, the unsaved-changes dialog and the focus keeper (components/ui/focus-return.ts). The QueryClient is created once per browser tab (useState), never shared
 * between requests on the server.
 */
export function Providers({ children }: { children: React.ReactNode }) {
  const [client] = React.useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            // Live pages poll on their own refetchInterval; avoid refetch storms on focus.
            staleTime: 1_000,
            refetchOnWindowFocus: false,
            retry: 1,
          },
        },
      }),
  );
  // A mark that the page is interactive (React has hydrated it and run its first effects), for tests that
  // type into a page they just opened: input typed before hydration can be replaced by the client's first state.
  React.useEffect(() => {
    document.documentElement.dataset.hydrated = 'true';
  }, []);
  useFocusKeeper();
  return (
    <QueryClientProvider client={client}>
      <TooltipProvider delayDuration={250}>
        <Toaster>
          {children}
          <UnsavedChangesDialog />
        </Toaster>
      </TooltipProvider>
    </QueryClientProvider>
  );
}
