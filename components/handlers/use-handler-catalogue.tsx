'use client';
// What workers advertise about handlers (lib/handlers/catalogue.ts), for the palette, the job form and the payload
// form. Server pages load the catalogue and wrap the editor/form in <HandlerCatalogueProvider>; components read it
// with useHandlerCatalogue(). Without a provider the catalogue is empty and every component falls back to raw JSON.
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import type { HandlerCatalogueEntry } from '@/lib/handlers/catalogue';
import { formatDateTime } from '@/lib/time/format';

export type { HandlerCatalogueEntry };

export type HandlerCatalogue = {
  entries: readonly HandlerCatalogueEntry[];
  get(name: string): HandlerCatalogueEntry | undefined;
};

const EMPTY: HandlerCatalogue = { entries: [], get: () => undefined };
const Ctx = createContext<HandlerCatalogue>(EMPTY);

/** Provides the handler catalogue (from the server page) to the components below it. */
export function HandlerCatalogueProvider({ entries, children }: { entries: readonly HandlerCatalogueEntry[]; children: ReactNode }) {
  const value = useMemo<HandlerCatalogue>(() => {
    const byName = new Map(entries.map((e) => [e.name, e]));
    return { entries, get: (name) => byName.get(name) };
  }, [entries]);
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

/** The handler catalogue of the nearest provider (empty when there is none). */
export function useHandlerCatalogue(): HandlerCatalogue {
  return useContext(Ctx);
}

/**
 * "unavailable: last offered 2026-12-01 17:00:00 UTC+8" (in `zone`, the display zone) / "unavailable: no live worker
 * offers it", or null when available.
 */
export function unavailableNote(e: HandlerCatalogueEntry | undefined, zone: string): string | null {
  if (!e || e.available) return null;
  if (!e.lastOfferedAt) return 'unavailable: no live worker offers it';
  return `unavailable: last offered ${formatDateTime(e.lastOfferedAt, zone)}`;
}

/** "suggested for a step: timeout 30 s, 2 retries" from a handler's advertised defaults, or null. */
export function defaultsNote(e: HandlerCatalogueEntry | undefined): string | null {
  if (!e) return null;
  const parts = [e.timeoutSeconds != null ? `timeout ${e.timeoutSeconds} s` : '', e.maxRetries != null ? `${e.maxRetries} ${e.maxRetries === 1 ? 'retry' : 'retries'}` : ''].filter(Boolean);
  return parts.length ? `suggested for a step: ${parts.join(', ')}` : null;
}
