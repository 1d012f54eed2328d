import { Tag } from '../status-badge';

type Step = { key: string; name?: string; handler: string; payload: Record<string, unknown>; timeoutSeconds: number | null; maxRetries: number | null; resourceKey: string | null };
type Edge = { from: string; to: string; type: string };

/** Read-only list of a job's steps and edges (shown on the Overview; the Graph tab draws them). */
export function StepsTable({ steps, edges }: { steps: Step[]; edges: Edge[] }) {
  const parents = (k: string) => edges.filter((e) => e.to === k);
  return (
    <table className="tf-table" data-testid="steps-table">
      <thead>
        <tr>
          <th>Step</th>
          <th>Handler</th>
          <th>Depends on</th>
          <th>Timeout / retries</th>
          <th>Resource</th>
          <th>Payload</th>
        </tr>
      </thead>
      <tbody>
        {steps.map((s) => (
          <tr key={s.key}>
            <td className="font-mono text-xs">{s.key}</td>
            <td>
              <Tag mono>{s.handler}</Tag>
            </td>
            <td className="text-xs">
              {parents(s.key).length === 0 ? (
                <span className="text-zinc-400">—</span>
              ) : (
                parents(s.key).map((e) => (
                  <span key={e.from} className="mr-2 font-mono">
                    {e.from}
                    {e.type !== 'hard' ? <span className="text-zinc-500"> ({e.type})</span> : null}
                  </span>
                ))
              )}
            </td>
            <td className="text-xs text-zinc-600">
              {s.timeoutSeconds != null ? `${s.timeoutSeconds}s` : 'job default'} / {s.maxRetries != null ? `${s.maxRetries} retries` : 'job default'}
            </td>
            <td className="font-mono text-xs">{s.resourceKey ?? '—'}</td>
            <td className="max-w-[22rem] truncate font-mono text-[11px] text-zinc-600" title={JSON.stringify(s.payload)}>
              {JSON.stringify(s.payload)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
