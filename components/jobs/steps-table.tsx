import { dagListOrder } from '@/lib/dag';
import { DataTable } from '../ui/data-table';
import { Tag } from '../status-badge';
import { Truncate } from '../ui/truncate';

type Step = { key: string; name?: string; handler: string; payload: Record<string, unknown>; timeoutSeconds: number | null; maxRetries: number | null; resourceKey: string | null };
type Edge = { from: string; to: string; type: string };

/**
 * Read-only list of a job's steps and edges in DAG order, parents first (shown on the Overview; the Graph tab draws them).
 * From 768 px each step is one line: a long step key or parent list is cut with an ellipsis (whole on hover), the
 * limits never wrap, and the Payload takes the room left, so no column is pushed past the card's edge.
 */
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
        { key: 'step', header: 'Step', className: 'font-mono text-xs', cell: (s) => <Truncate text={s.key} className="md:max-w-[16rem] max-md:whitespace-normal max-md:break-all" /> },
        { key: 'handler', header: 'Handler', cell: (s) => <Tag mono>{s.handler}</Tag> },
        {
          key: 'parents',
          header: 'Depends on',
          label: 'depends on',
          className: 'text-xs max-md:basis-full',
          cell: (s) =>
            parents(s.key).length === 0 ? (
              <span className="text-zinc-500">—</span>
            ) : (
              <Truncate
                text={parents(s.key).map((e) => (e.type !== 'hard' ? `${e.from} (${e.type})` : e.from)).join(', ')}
                className="md:max-w-[18rem] max-md:whitespace-normal max-md:break-all"
              >
                {parents(s.key).map((e) => (
                  <span key={e.from} className="mr-2 font-mono">
                    {e.from}
                    {e.type !== 'hard' ? <span className="text-zinc-500"> ({e.type})</span> : null}
                  </span>
                ))}
              </Truncate>
            ),
        },
        {
          key: 'limits',
          header: 'Timeout / retries',
          label: 'timeout / retries',
          className: 'whitespace-nowrap text-xs text-zinc-600',
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
          // the column takes the table's remaining width (width 100%, max-width 0) and its text is cut to it
          className: 'font-mono text-[11px] text-zinc-600 md:w-full md:max-w-0 max-md:min-w-0 max-md:max-w-full max-md:basis-full',
          cell: (s) => <Truncate text={JSON.stringify(s.payload)} />,
        },
      ]}
    />
  );
}
