'use client';

import { Link } from '@/components/ui/link';
import type { JobAuditView } from '@/lib/jobs/list-job-audit';
import { CardHeader } from '../ui/card';
import { DataTable } from '../ui/data-table';
import { Tag } from '../status-badge';
import { formatDateTime } from '@/lib/time/format';
import { useDisplayZone } from '../display-zone';
import { LoadOlderButton, useOlderPages, type ListPage } from '../load-older';

const LABEL: Record<JobAuditView['action'], string> = { backfill: 'Backfill', mark_success: 'Mark success', clear: 'Clear' };

function what(a: JobAuditView, zone: string): string {
  const d = a.detail as Record<string, unknown>;
  if (a.action === 'backfill') {
    return `${formatDateTime(String(d.from), zone, { zone: true })} – ${formatDateTime(String(d.to), zone, { zone: true })}: ${d.created} run${d.created === 1 ? '' : 's'} created, ${d.skipped} slot${d.skipped === 1 ? '' : 's'} skipped`;
  }
  if (a.action === 'mark_success') return `step ${d.stepKey}: ${d.fromStatus} → success (attempt ${d.attempt})`;
  return `step ${d.stepKey} and downstream: ${Array.isArray(d.cleared) ? d.cleared.join(', ') : ''}`;
}

/**
 * The job's recovery history (backfill, mark success, clear; docs/recovery.md), newest first, times in the
 * display zone. `firstPage` is the newest entries (lib/jobs listJobAudit); "Load older" reads the next pages
 * from GET /api/v1/jobs/:id/audit by their cursor, down to the oldest entry.
 */
export function RecoveryHistory({ jobId, firstPage }: { jobId: string; firstPage: ListPage<JobAuditView> }) {
  const zone = useDisplayZone();
  const pager = useOlderPages(firstPage, (cursor) => `/api/v1/jobs/${encodeURIComponent(jobId)}/audit?limit=50&cursor=${encodeURIComponent(cursor)}`, (a) => a.id);
  const items = pager.items;
  return (
    <>
      <CardHeader title="Recovery history" description="Backfills, tasks marked success and tasks cleared, with who and why." />
      {items.length === 0 ? (
        <p className="px-4 pb-4 text-[13px] text-zinc-500">No recovery action yet.</p>
      ) : (
        <DataTable
          testId="recovery-history"
          rows={items}
          rowKey={(a) => a.id}
          columns={[
            { key: 'when', header: 'When', className: 'whitespace-nowrap text-xs', cell: (a) => formatDateTime(a.createdAt, zone, { zone: true }) },
            { key: 'action', header: 'Action', cell: (a) => <Tag>{LABEL[a.action]}</Tag> },
            { key: 'by', header: 'By', className: 'text-xs', cell: (a) => a.actor },
            {
              key: 'what',
              header: 'What',
              className: 'text-xs',
              cell: (a) =>
                a.runId ? (
                  <Link href={`/runs/${a.runId}`} className="hover:underline">
                    {what(a, zone)}
                  </Link>
                ) : (
                  what(a, zone)
                ),
            },
            { key: 'reason', header: 'Reason', className: 'text-xs text-zinc-600', cell: (a) => a.reason ?? '—' },
          ]}
        />
      )}
      <LoadOlderButton pager={pager} label="Load older entries" testId="recovery-history-load-older" />
    </>
  );
}
