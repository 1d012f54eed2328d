'use client';
// A table of changed fields (path, before, after): the version diff (versions-panel.tsx) and the conflict banner
// of the job form (job-form-banner.tsx) show changes the same way, each in its own colours.

/** One changed field: its path and its value before and after (undefined: absent on that side). */
export type FieldChange = { path: string; from: unknown; to: unknown };

/** A value as a diff cell shows it: — for none, a string as it is, anything else as JSON (`indent` spaces). */
export function diffValue(x: unknown, indent?: number): string {
  return x === undefined || x === null ? '—' : typeof x === 'string' ? x : JSON.stringify(x, null, indent);
}

const TONES = {
  /** the Versions tab: full width, red before, green after */
  versions: {
    table: 'w-full table-fixed border-collapse text-xs',
    head: 'text-left text-zinc-500',
    th: ['w-1/4 border-b border-zinc-200 py-1.5 pr-2 font-medium', 'border-b border-zinc-200 py-1.5 pr-2 font-medium', 'border-b border-zinc-200 py-1.5 font-medium'],
    row: 'align-top',
    td: [
      'border-b border-zinc-100 py-1 pr-2 break-all text-zinc-700',
      'border-b border-zinc-100 bg-red-50/60 px-2 py-1 whitespace-pre-wrap break-all text-red-900',
      'border-b border-zinc-100 bg-emerald-50/60 px-2 py-1 whitespace-pre-wrap break-all text-emerald-900',
    ],
    indent: 1,
  },
  /** the amber conflict banner: compact, one line per value */
  conflict: {
    table: 'mt-1.5 w-full max-w-2xl border-collapse text-left',
    head: 'text-amber-800/80',
    th: ['py-0.5 pr-3 font-medium', 'py-0.5 pr-3 font-medium', 'py-0.5 font-medium'],
    row: 'border-t border-amber-200',
    td: ['py-0.5 pr-3', 'max-w-[16rem] truncate py-0.5 pr-3', 'max-w-[16rem] truncate py-0.5'],
    indent: undefined,
  },
} as const;

/**
 * The table: header `labels` (field, before, after), one row per change, then one row per path in `changedOnly`
 * (changed, values not known).
 */
export function FieldDiffTable({ rows, labels, tone, changedOnly = [] }: {
  rows: FieldChange[];
  labels: readonly [string, string, string];
  tone: keyof typeof TONES;
  changedOnly?: string[];
}) {
  const t = TONES[tone];
  return (
    <table className={t.table}>
      <thead>
        <tr className={t.head}>
          {labels.map((l, i) => (
            <th key={i} className={t.th[i]}>{l}</th>
          ))}
        </tr>
      </thead>
      <tbody className="font-mono text-[11px]">
        {rows.map((r) => (
          <tr key={r.path} className={t.row}>
            <td className={t.td[0]}>{r.path}</td>
            <td className={t.td[1]} title={diffValue(r.from, t.indent)}>{diffValue(r.from, t.indent)}</td>
            <td className={t.td[2]} title={diffValue(r.to, t.indent)}>{diffValue(r.to, t.indent)}</td>
          </tr>
        ))}
        {changedOnly.map((p) => (
          <tr key={p} className={t.row}>
            <td className={t.td[0]}>{p}</td>
            <td className={t.td[1]} colSpan={2}>changed</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
