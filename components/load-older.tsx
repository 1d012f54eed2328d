'use client';

import * as React from 'react';
import { ChevronDown } from 'lucide-react';
import { Button } from './ui/button';
import { getJson } from './api';

/** A page of a keyset-paged list as the REST door answers it (lib/api/cursor.ts Page). */
export type ListPage<T> = { items: T[]; nextCursor: string | null };

/**
 * Older pages of a list the server rendered the first page of: `loadOlder` fetches `url(cursor)`
 * (a GET /api/v1 list taking the previous page's `nextCursor` as `cursor`) and appends its rows,
 * until `nextCursor` is null. Rows already shown (by `keyOf`) are not repeated. Remount (a React
 * `key`) to start again from a new first page.
 */
export function useOlderPages<T>(first: ListPage<T>, url: (cursor: string) => string, keyOf: (row: T) => string) {
  const [older, setOlder] = React.useState<T[]>([]);
  const [cursor, setCursor] = React.useState<string | null>(first.nextCursor);
  const [loading, setLoading] = React.useState(false);
  const [error, setError] = React.useState<string | null>(null);
  const items = React.useMemo(() => {
    const seen = new Set(first.items.map(keyOf));
    return [...first.items, ...older.filter((r) => !seen.has(keyOf(r)))];
  }, [first.items, older, keyOf]);
  const loadOlder = async () => {
    if (!cursor || loading) return;
    setLoading(true);
    setError(null);
    try {
      const page = await getJson<ListPage<T>>(url(cursor));
      setOlder((o) => [...o, ...page.items]);
      setCursor(page.nextCursor);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setLoading(false);
    }
  };
  return { items, hasOlder: cursor !== null, loading, error, loadOlder };
}

/** The "Load older" button under a paged list (nothing once the oldest row is shown), with the error of a failed load. */
export function LoadOlderButton({ pager, label, testId }: { pager: { hasOlder: boolean; loading: boolean; error: string | null; loadOlder: () => void }; label: string; testId: string }) {
  if (!pager.hasOlder) return null;
  return (
    <div className="flex items-center gap-3 border-t border-zinc-100 px-3 py-2">
      <Button size="sm" variant="ghost" onClick={pager.loadOlder} disabled={pager.loading} data-testid={testId}>
        <ChevronDown /> {pager.loading ? 'Loading…' : label}
      </Button>
      {pager.error ? (
        <span role="alert" className="text-xs text-red-700">
          {pager.error}
        </span>
      ) : null}
    </div>
  );
}
