'use client';

import * as React from 'react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { ArchiveRestore, Recycle, Trash2 } from 'lucide-react';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/dialog';
import { DataTable } from '../ui/data-table';
import { EmptyState } from '../ui/empty-state';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { RelativeTime } from '../time';
import { type JobRow } from './jobs-table';
import { scheduleSummary } from './schedule-summary';

type R<T> = { ok: true; data: T } | { ok: false; error: string; fields?: Record<string, string> };
type BinRow = JobRow & { deletedAt: string | null; deletedBy: string | null };

/** Deleted jobs with who/when and Restore / Purge (confirm). A restore refused because the key is taken says so in place. */
export function RecycleBinTable({ rows, restore, purge }: { rows: BinRow[]; restore: (id: string) => Promise<R<{ id: string; key: string }>>; purge: (id: string) => Promise<R<{ key: string }>> }) {
  const router = useRouter();
  const { toast } = useToast();
  const [errors, setErrors] = React.useState<Record<string, string>>({});
  const [busy, setBusy] = React.useState<string | null>(null);
  if (rows.length === 0) return <EmptyState icon={<Recycle />} title="The recycle bin is empty" description="Deleted jobs show up here until they are restored or purged." />;
  return (
    <DataTable
      testId="recycle-bin-table"
      rows={rows}
      rowKey={(j) => j.id}
      rowProps={(j) => ({ 'data-testid': 'recycle-bin-row', 'data-job-key': j.key })}
      columns={[
        {
          key: 'key',
          header: 'Key',
          className: 'font-mono text-xs',
          cell: (j) => (
            <Link href={`/jobs/${j.id}`} className="hover:underline">
              {j.key}
            </Link>
          ),
        },
        { key: 'name', header: 'Name', cell: (j) => j.name },
        { key: 'schedule', header: 'Schedule', className: 'font-mono text-xs text-zinc-600', cell: (j) => scheduleSummary(j.schedule) },
        { key: 'deletedBy', header: 'Deleted by', className: 'text-xs', cell: (j) => j.deletedBy ?? '—' },
        { key: 'deletedAt', header: 'Deleted', className: 'text-xs', cell: (j) => <RelativeTime value={j.deletedAt} /> },
        {
          key: 'actions',
          header: null,
          className: 'text-right',
          cell: (j) => (
            <div className="flex items-center justify-end gap-2">
              {errors[j.id] ? (
                <span role="alert" className="max-w-xs text-xs text-red-700" data-testid="restore-error">
                  {errors[j.id]}
                </span>
              ) : null}
              <RoleGate>
                <Button
                  size="sm"
                  disabled={busy === j.id}
                  onClick={async () => {
                    setBusy(j.id);
                    const r = await restore(j.id);
                    setBusy(null);
                    if (r.ok) {
                      setErrors((e) => ({ ...e, [j.id]: '' }));
                      toast({ kind: 'success', title: `${r.data.key} restored` });
                      router.refresh();
                    } else {
                      const msg = r.fields?.key ? `Key ${j.key} is now used by another job: rename or delete that job first.` : r.error;
                      setErrors((e) => ({ ...e, [j.id]: msg }));
                      toast({ kind: 'error', title: 'Restore failed', description: msg });
                    }
                  }}
                >
                  <ArchiveRestore /> Restore
                </Button>
              </RoleGate>
              <RoleGate>
                <ConfirmDialog
                  trigger={
                    <Button size="sm" variant="danger-outline" disabled={busy === j.id}>
                      <Trash2 /> Purge
                    </Button>
                  }
                  title={`Purge ${j.key} for good?`}
                  description="The job, its steps and version history are deleted permanently. Its runs and task logs stay. This cannot be undone."
                  confirmLabel="Purge"
                  onConfirm={async () => {
                    const r = await purge(j.id);
                    if (r.ok) {
                      toast({ kind: 'success', title: `${r.data.key} purged` });
                      router.refresh();
                    } else toast({ kind: 'error', title: 'Purge failed', description: r.error });
                  }}
                />
              </RoleGate>
            </div>
          ),
        },
      ]}
    />
  );
}
