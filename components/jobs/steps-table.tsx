import { dagListOrder } from '@/lib/dag';
import { DataTable } from '../ui/data-table';
import { Tag } from '../status-badge';

type Step = { key: string; name?: string; handler: string; payload: Record<string, unknown>; timeoutSeconds: number | null; maxRetries: number | null; resourceKey: string | null };
type Edge = { from: string; to: string; type: string };

/** Read-only list of a job's steps and edges in DAG order, parents first (shown on the Overview; the Graph tab draws them). */
export function StepsTable({ steps, edges }: { steps: Step[]; edges: Edge[] }) {
  const parents = (k: string) => edges.filter((e) => e.to === k);
  const byKey = new Map(steps.map((s) => [s.key, s]));
  const ordered = dagListOrder(steps.map((s) => s.key), edges).map((k) => byKey.get(k)!);
  return (
    <DataTable
      testId="steps-table"
      // below 768 px a card per step: its key and handler first, then the rest after their labels
      stack
      rows={ordered}
      rowKey={(s) => s.key}
      columns={[
        { key: 'step', header: 'Step', className: 'font-mono text-xs max-md:break-all', cell: (s) => s.key },
        { key: 'handler', header: 'Handler', cell: (s) => <Tag mono>{s.handler}</Tag> },
        {
          key: 'parents',
          header: 'Depends on',
          label: 'depends on',
          className: 'text-xs max-md:basis-full',
          cell: (s) =>
            parents(s.key).length === 0 ? (
              <span className="text-zinc-400">—</span>
            ) : (
              parents(s.key).map((e) => (
                <span key={e.from} className="mr-2 font-mono">
                  {e.from}
                  {e.type !== 'hard' ? <span className="text-zinc-500"> ({e.type})</span> : null}
                </span>
              ))
            ),
        },
        {
          key: 'limits',
          header: 'Timeout / retries',
          label: 'timeout / retries',
          className: 'text-xs text-zinc-600',
          cell: (s) => (
            <>
              {s.timeoutSeconds != null ? `${s.timeoutSeconds}s` : 'job default'} / {s.maxRetries != null ? `${s.maxRetries} retries` : 'job default'}
            </>
          ),
        },
        { key: 'resource', header: 'Resource', label: 'resource', className: 'font-mono text-xs', cell: (s) => s.resourceKey ?? '—' },
        {
          key: 'payload',
          header: 'Payload',
          label: 'payload',
          className: 'max-w-[22rem] truncate font-mono text-[11px] text-zinc-600 max-md:min-w-0 max-md:max-w-full max-md:basis-full',
          title: (s) => JSON.stringify(s.payload),
          cell: (s) => JSON.stringify(s.payload),
        },
      ]}
    />
  );
}
