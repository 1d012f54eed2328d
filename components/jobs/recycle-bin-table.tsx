'use client';

import { Link } from '@/components/ui/link';
import { Recycle } from 'lucide-react';
import { DataTable } from '../ui/data-table';
import { EmptyState } from '../ui/empty-state';
import { DeletedJobActions } from './deleted-job-actions';
import { RelativeTime } from '../time';
import { type JobRow } from './jobs-table';
import { scheduleSummary } from './schedule-summary';

type R<T> = { ok: true; data: T } | { ok: false; error: string; fields?: Record<string, string> };
type BinRow = JobRow & { deletedAt: string | null; deletedBy: string | null };

/** Deleted jobs with who/when and Restore / Purge (DeletedJobActions: confirm, a refused restore says why in place). */
export function RecycleBinTable({ rows, restore, purge }: { rows: BinRow[]; restore: (id: string) => Promise<R<{ id: string; key: string; notice?: string | null }>>; purge: (id: string) => Promise<R<{ key: string }>> }) {
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
            // styled as the jobs list's key: it is a link (to the job's read-only page), and should look like one
            <Link href={`/jobs/${j.id}`} className="text-indigo-700 hover:underline">
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
          cell: (j) => <DeletedJobActions jobId={j.id} jobKey={j.key} restore={restore} purge={purge} size="sm" afterPurge="refresh" />,
        },
      ]}
    />
  );
}
