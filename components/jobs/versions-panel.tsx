'use client';

import { DisabledReason } from '../ui/disabled-reason';
import * as React from 'react';
import { useRouter } from 'next/navigation';
import { GitCompare, History, Undo2 } from 'lucide-react';
import { Button } from '../ui/button';
import { DataTable, STACK_FIRST_LINE } from '../ui/data-table';
import { ConfirmDialog } from '../ui/dialog';
import { EmptyState } from '../ui/empty-state';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { Tag } from '../status-badge';
import { diffValue, FieldDiffTable } from './field-diff-table';
import { RelativeTime } from '../time';
import { defaultComparePair, noConfigurationChange } from './compare-default';
import { sameConfigurationNote, versionDiffView, type SnapshotDiffLike } from './version-diff-model';
import { LoadOlderButton, useOlderPages, type ListPage } from '../load-older';

/** A row of the history (lib/jobs listVersions): `rollbackRefusal` says why a rollback to it would restore nothing, null when it would restore a configuration. */
export type VersionRow = { version: number; changeType: string; reason: string | null; createdBy: string; createdAt: string; rollbackRefusal: string | null };
export type DiffData = { from: number; to: number; diff: SnapshotDiffLike };
type R<T> = { ok: true; data: T } | { ok: false; error: string };

/**
 * Version history: who, when, change type, reason. Tick two versions and Compare to see
 * them side by side (changed fields, steps and edges); Rollback makes a chosen version's
 * configuration the newest version (optimistic lock on the version shown). On a version whose
 * configuration is the current one (a pause or resume after the last edit) Rollback is disabled
 * and says why, in the words the server refuses it with (lib/jobs/rollback-rule.ts). `firstPage` is the newest
 * versions (lib/jobs listVersions); "Load older versions" reads the next pages from GET /api/v1/jobs/:id/versions
 * by their cursor, down to v1.
 */
export function VersionsPanel({ jobId, currentVersion, firstPage, diff, rollback }: { jobId: string; currentVersion: number; firstPage: ListPage<VersionRow>; diff: (id: string, from: number, to: number) => Promise<R<DiffData>>; rollback: (id: string, input: { version: number; expectedVersion?: number }) => Promise<R<{ version: number }>> }) {
  const pager = useOlderPages(firstPage, (cursor) => `/api/v1/jobs/${encodeURIComponent(jobId)}/versions?limit=200&cursor=${encodeURIComponent(cursor)}`, (v) => String(v.version));
  const versions = pager.items;
  const [picked, setPicked] = React.useState<number[]>(() => defaultComparePair(firstPage.items));
  const [result, setResult] = React.useState<DiffData | null>(null);
  const [loading, setLoading] = React.useState(false);
  const { toast } = useToast();
  const router = useRouter();

  const nothingToCompare = noConfigurationChange(versions);
  if (versions.length === 0) return <EmptyState icon={<History />} title="No versions recorded" />;
  const toggle = (v: number) => setPicked((p) => (p.includes(v) ? p.filter((x) => x !== v) : [...p, v].slice(-2)));
  const compare = async () => {
    const [a, b] = [...picked].sort((x, y) => x - y);
    if (a === undefined || b === undefined) return;
    setLoading(true);
    const r = await diff(jobId, a, b);
    setLoading(false);
    if (r.ok) setResult(r.data);
    else toast({ kind: 'error', title: 'Diff failed', description: r.error });
  };

  return (
    <div className="space-y-4">
      <div className="flex items-center gap-2 px-3 pt-3">
        <DisabledReason reason={loading ? 'Loading…' : picked.length !== 2 && 'Tick two versions to compare'}>
          <Button size="sm" onClick={compare}>
            <GitCompare /> Compare {picked.length === 2 ? `v${Math.min(...picked)} ↔ v${Math.max(...picked)}` : '(pick two)'}
          </Button>
        </DisabledReason>
        {/* the hint applies until a diff is open, or again once the ticks no longer make a pair */}
        {!result || picked.length !== 2 ? <span className="text-xs text-zinc-500">Tick two versions to compare them side by side.</span> : null}
      </div>
      {nothingToCompare && !result ? (
        <p className="mx-3 rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 text-xs text-zinc-600" data-testid="versions-nothing-to-compare">
          {nothingToCompare}
        </p>
      ) : null}
      <DataTable
        testId="versions-table"
        // below 768 px a card per version: tick, version, change and Rollback first, then who, when and why
        stack
        rows={versions}
        rowKey={(v) => String(v.version)}
        rowProps={() => ({ className: STACK_FIRST_LINE })}
        columns={[
          {
            key: 'pick',
            header: null,
            headerClassName: 'w-8',
            className: 'max-md:-order-4',
            cell: (v) => <input type="checkbox" aria-label={`Compare version ${v.version}`} checked={picked.includes(v.version)} onChange={() => toggle(v.version)} className="size-3.5 accent-indigo-600" />,
          },
          {
            key: 'version',
            header: 'Version',
            className: 'font-mono text-xs max-md:-order-3',
            cell: (v) => (
              <>
                v{v.version}
                {v.version === currentVersion ? <span className="ml-1.5 text-[11px] text-emerald-700">current</span> : null}
              </>
            ),
          },
          { key: 'change', header: 'Change', className: 'max-md:-order-3 max-md:flex-1', cell: (v) => <Tag>{v.changeType}</Tag> },
          { key: 'by', header: 'By', label: 'by', className: 'text-xs', cell: (v) => v.createdBy },
          { key: 'when', header: 'When', className: 'text-xs', cell: (v) => <RelativeTime value={v.createdAt} /> },
          { key: 'reason', header: 'Reason', label: 'reason', className: 'max-w-[20rem] truncate text-xs text-zinc-600 max-md:min-w-0 max-md:max-w-full max-md:basis-full max-md:empty:hidden', title: (v) => v.reason ?? undefined, cell: (v) => v.reason ?? '' },
          {
            key: 'actions',
            header: null,
            className: 'text-right max-md:-order-2 max-md:empty:hidden',
            cell: (v) =>
              v.version !== currentVersion ? (
                <RoleGate>
                  <DisabledReason reason={v.rollbackRefusal}>
                    <ConfirmDialog
                      trigger={
                        <Button size="sm" variant="ghost">
                          <Undo2 /> Rollback
                        </Button>
                      }
                      danger={false}
                      title={`Roll back to v${v.version}?`}
                      description={`The configuration of v${v.version} becomes a new version v${currentVersion + 1}. Status (active/paused) is kept. History is never rewritten.`}
                      confirmLabel="Rollback"
                      onConfirm={async () => {
                        const r = await rollback(jobId, { version: v.version, expectedVersion: currentVersion });
                        if (r.ok) {
                          toast({ kind: 'success', title: `Rolled back to v${v.version} (now v${r.data.version})` });
                          router.refresh();
                        } else toast({ kind: 'error', title: 'Rollback failed', description: r.error });
                      }}
                    />
                  </DisabledReason>
                </RoleGate>
              ) : null,
          },
        ]}
      />
      <LoadOlderButton pager={pager} label="Load older versions" testId="versions-load-older" />
      {result ? <DiffView data={result} /> : null}
    </div>
  );
}


/** Side-by-side diff of two configurations, by section (version-diff-model.ts); the status change, if any, on a line apart. */
function DiffView({ data }: { data: DiffData }) {
  const view = versionDiffView(data.diff);
  return (
    <div className="border-t border-zinc-100 px-3 pb-3" data-testid="version-diff">
      <h3 className="py-2 text-[13px] font-semibold">
        v{data.from} ↔ v{data.to} · {view.count} configuration change{view.count === 1 ? '' : 's'}
      </h3>
      {view.status && view.count > 0 ? (
        <p className="pb-2 text-xs text-zinc-600" data-testid="version-diff-status">
          Status: {diffValue(view.status.from)} → {diffValue(view.status.to)} (not part of the configuration; Rollback keeps the current status)
        </p>
      ) : null}
      {view.count === 0 ? (
        <p className="rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 text-xs text-zinc-600" data-testid="version-diff-empty">
          {sameConfigurationNote(data.from, data.to, view.status)}
        </p>
      ) : (
        <div className="space-y-3">
          {view.sections.map((s) => (
            <section key={s.title} aria-label={s.title}>
              <h4 className="pb-1 text-xs font-semibold text-zinc-700">
                {s.title} <span className="font-normal text-zinc-500">· {s.rows.length}</span>
              </h4>
              <FieldDiffTable rows={s.rows} labels={['Field', `v${data.from}`, `v${data.to}`]} tone="versions" />
            </section>
          ))}
        </div>
      )}
    </div>
  );
}
