'use client';

import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { BellRing } from 'lucide-react';
import type { SilenceView } from '@/lib/alarms/silences';
import { Button } from '../ui/button';
import { RoleGate } from '../role';
import { ZonedTime } from '../time';
import { useToast } from '../ui/toast';
import { getJson } from '../api';
import { LoadOlderButton, type ListPage } from '../load-older';
import type { UnsilenceAction } from './alarm-dialogs';

/**
 * The silences in force (live from GET /api/v1/alarms/silences every 5 s), each with who set it, until when, and
 * Unsilence (operator+). Renders nothing when there is none. `initial` is the first page (lib/alarms listSilences);
 * "Load older silences" reads the next pages by their cursor (every loaded page is refreshed with the first).
 */
export function SilencesPanel({ initial, unsilence }: { initial: ListPage<SilenceView>; unsilence: UnsilenceAction }) {
  const qc = useQueryClient();
  const { toast } = useToast();
  const q = useInfiniteQuery({
    queryKey: ['alarm-silences'],
    queryFn: ({ signal, pageParam }) => getJson<ListPage<SilenceView>>(`/api/v1/alarms/silences${pageParam ? `?cursor=${encodeURIComponent(pageParam)}` : ''}`, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
    initialData: { pages: [initial], pageParams: [null] },
    refetchInterval: 5_000,
  });
  const rows = q.data?.pages.flatMap((p) => p.items) ?? [];
  const pager = {
    hasOlder: q.hasNextPage,
    loading: q.isFetchingNextPage,
    error: q.isFetchNextPageError ? (q.error?.message ?? 'Could not load older silences') : null,
    loadOlder: () => void q.fetchNextPage(),
  };
  if (rows.length === 0) return null;
  const end = async (s: SilenceView) => {
    const r = await unsilence(s.id);
    if (r.ok) {
      toast({ kind: 'success', title: 'Unsilenced', description: 'Alarms falling due from now on are sent again.' });
      void qc.invalidateQueries({ queryKey: ['alarm-silences'] });
      void qc.invalidateQueries({ queryKey: ['alarms'] });
    } else toast({ kind: 'error', title: 'Not unsilenced', description: r.error });
  };
  return (
    <section data-testid="silences" aria-label="Silences in force" className="mb-3 rounded-lg border border-zinc-200 bg-white">
      <h2 className="border-b border-zinc-100 px-3 py-2 text-xs font-medium text-zinc-600">Silenced now — no notification is sent for these; alarms are still recorded</h2>
      <ul className="divide-y divide-zinc-100">
        {rows.map((s) => (
          <li key={s.id} data-testid="silence-row" className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2 text-[13px]">
            <span className="font-medium text-zinc-800">
              {s.type ? `${s.type.replace('_', ' ')} alarms` : 'every alarm'}
              {s.jobId ? (
                <>
                  {' '}
                  of job <span className="font-mono">{s.jobKey ?? s.jobId.slice(0, 8)}</span>
                </>
              ) : (
                ' of every job'
              )}
            </span>
            <span className="text-zinc-600">
              until <ZonedTime value={s.until} />
            </span>
            <span className="text-xs text-zinc-500">by {s.createdBy}</span>
            {s.note ? <span className="text-xs text-zinc-600">“{s.note}”</span> : null}
            <span className="ml-auto">
              <RoleGate>
                <Button size="sm" onClick={() => end(s)}>
                  <BellRing /> Unsilence
                </Button>
              </RoleGate>
            </span>
          </li>
        ))}
      </ul>
      <LoadOlderButton pager={pager} label="Load older silences" testId="silences-load-older" />
    </section>
  );
}
