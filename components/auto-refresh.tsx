'use client';

import { useEffect, useState } from 'react';
import { jobsRefreshDelay } from './jobs/jobs-refresh';
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

/**
 * Re-renders the current server page a few seconds after the soonest of `fires` (ISO instants of next fires, null
 * for none), at least every 30 s and at most every 5 s (components/jobs/jobs-refresh.ts jobsRefreshDelay), so a
 * page showing a job's next fire and last run (the jobs list, a job's page) does not keep showing a fire that has
 * happened. A hidden tab re-reads when it is shown again. router.refresh keeps client state (a selection, an open
 * dialog, the DAG editor's unsaved edits: components/dag/use-dag-editor.ts adopts new props only when clean).
 */
export function RefreshAfterFires({ fires }: { fires: readonly (string | null)[] }) {
  const router = useRouter();
  // restarts the timer even when a refresh brought the same props (a refused request)
  const [rearm, setRearm] = useState(0);
  const key = fires.join(',');
  useEffect(() => {
    const refresh = () => {
      router.refresh();
      setRearm((n) => n + 1);
    };
    const onVisible = () => document.visibilityState === 'visible' && refresh();
    const timer = setTimeout(() => {
      if (document.visibilityState === 'visible') refresh();
      else document.addEventListener('visibilitychange', onVisible);
    }, jobsRefreshDelay(key ? key.split(',').map((f) => f || null) : [], Date.now()));
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [key, router, rearm]);
  return null;
}
