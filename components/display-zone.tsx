'use client';
// The display time zone of the signed-in user: the zone every time on the console is written in. The user's own
// choice (users.display_time_zone) wins; without one, the browser's zone. The server renders with the zone it
// knows (the choice, else the browser's zone remembered in a cookie from an earlier visit, else UTC), and the
// browser renders the same text first, then switches to its own zone when no choice is set — a state change after
// hydration, never a mismatch during it.
import * as React from 'react';

/** Cookie in which the browser tells the server its own zone (read by the console layout). */
export const BROWSER_ZONE_COOKIE = 'tickflow_browser_tz';

type Ctx = {
  /** The zone times are written in now. */
  zone: string;
  /** The user's choice, or null for "the browser's zone". */
  preference: string | null;
  /** The zone the browser reports (null until known). */
  browserZone: string | null;
  /** Saves the user's choice (null = the browser's zone); resolves to an error message or null. */
  choose(zone: string | null): Promise<string | null>;
};

const DisplayZoneContext = React.createContext<Ctx>({ zone: 'UTC', preference: null, browserZone: null, choose: async () => 'No display zone provider' });

/** The zone times are written in (UTC outside a provider, e.g. the login page). */
export function useDisplayZone(): string {
  return React.useContext(DisplayZoneContext).zone;
}

/** The whole display-zone state, for the control that changes it. */
export function useDisplayZoneSettings(): Ctx {
  return React.useContext(DisplayZoneContext);
}

/**
 * Provider set by the console layout. `preference`: the user's stored choice; `browserZone`: the cookie's value;
 * `save(zone)`: the server action storing the choice (app/(console)/actions.ts setDisplayTimeZoneAction).
 */
export function DisplayZoneProvider({
  preference: initialPreference,
  browserZone: cookieZone,
  save,
  children,
}: {
  preference: string | null;
  browserZone: string | null;
  save: (zone: string | null) => Promise<{ ok: true } | { ok: false; error: string; fields?: Record<string, string> }>;
  children: React.ReactNode;
}) {
  const [preference, setPreference] = React.useState(initialPreference);
  const [browserZone, setBrowserZone] = React.useState(cookieZone);
  React.useEffect(() => setPreference(initialPreference), [initialPreference]);
  React.useEffect(() => {
    let tz: string | null = null;
    try {
      tz = Intl.DateTimeFormat().resolvedOptions().timeZone || null;
    } catch {
      tz = null;
    }
    if (!tz) return;
    // A transition: an urgent context update that reaches a part of the page still being
    // hydrated (a streamed Suspense boundary) makes React render that part again on the
    // client, leaving the streamed copy hidden in the document; a transition waits for it.
    React.startTransition(() => setBrowserZone(tz));
    if (tz !== cookieZone) document.cookie = `${BROWSER_ZONE_COOKIE}=${encodeURIComponent(tz)}; path=/; max-age=31536000; samesite=lax`;
  }, [cookieZone]);
  const choose = React.useCallback(
    async (zone: string | null) => {
      const r = await save(zone);
      if (!r.ok) return r.fields ? (Object.values(r.fields)[0] ?? r.error) : r.error;
      setPreference(zone);
      return null;
    },
    [save],
  );
  const zone = preference ?? browserZone ?? 'UTC';
  const value = React.useMemo(() => ({ zone, preference, browserZone, choose }), [zone, preference, browserZone, choose]);
  return <DisplayZoneContext.Provider value={value}>{children}</DisplayZoneContext.Provider>;
}
