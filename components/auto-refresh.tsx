'use client';

import { useEffect } from 'react';
import { useRouter } from 'next/navigation';

/** Re-renders the current server page every `seconds` (router.refresh keeps client state), paused while the tab is hidden. */
export function AutoRefresh({ seconds }: { seconds: number }) {
  const router = useRouter();
  useEffect(() => {
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') router.refresh();
    }, seconds * 1000);
    return () => clearInterval(t);
  }, [router, seconds]);
  return null;
}
