'use client';

import Link from 'next/link';
import type { JobAuditView } from '@/lib/jobs/list-job-audit';
import { CardHeader } from '../ui/card';
import { Tag } from '../status-badge';
import { formatUtc } from '../time';

const LABEL: Record<JobAuditView['action'], string> = { backfill: 'Backfill', mark_success: 'Mark success', clear: 'Clear' };

function what(a: JobAuditView): string {
  const d = a.detail as Record<string, unknown>;
  if (a.action === 'backfill') {
    return `${formatUtc(String(d.from))} – ${formatUtc(String(d.to))}: ${d.created} run${d.created === 1 ? '' : 's'} created, ${d.skipped} slot${d.skipped === 1 ? '' : 's'} skipped`;
  }
  if (a.action === 'mark_success') return `step ${d.stepKey}: ${d.fromStatus} → success (attempt ${d.attempt})`;
  return `step ${d.stepKey} and downstream: ${Array.isArray(d.cleared) ? d.cleared.join(', ') : ''}`;
}

/** The job's recovery history (backfill, mark success, clear; docs/recovery.md), newest first. */
export function RecoveryHistory({ items }: { items: JobAuditView[] }) {
  return (
    <>
      <CardHeader title="Recovery history" description="Backfills, tasks marked success and tasks cleared, with who and why." />
      {items.length === 0 ? (
        <p className="px-4 pb-4 text-[13px] text-zinc-500">No recovery action yet.</p>
      ) : (
        <table className="w-full text-[13px]" data-testid="recovery-history">
          <thead>
            <tr>
              <th>When</th>
              <th>Action</th>
              <th>By</th>
              <th>What</th>
              <th>Reason</th>
            </tr>
          </thead>
          <tbody>
            {items.map((a) => (
              <tr key={a.id}>
                <td className="whitespace-nowrap text-xs">{formatUtc(a.createdAt)}</td>
                <td><Tag>{LABEL[a.action]}</Tag></td>
                <td className="text-xs">{a.actor}</td>
                <td className="text-xs">
                  {a.runId ? <Link href={`/runs/${a.runId}`} className="hover:underline">{what(a)}</Link> : what(a)}
                </td>
                <td className="text-xs text-zinc-600">{a.reason ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
