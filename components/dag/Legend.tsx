'use client';
// Legend of the dependency types, drawn with the same stroke/dash as the edges themselves.
import { DEP_TYPES } from '@/lib/dag';
import { EDGE_STYLES } from './model';

/**
 * Small one-row legend: a line sample + label per dependency type; the meaning (docs/design.md §4) is the tooltip.
 * A label never wraps ("on failure" broke in two on a phone); `compact` draws shorter samples, for a phone's canvas.
 */
export function EdgeLegend({ className = '', compact = false }: { className?: string; compact?: boolean }) {
  const sample = compact ? 18 : 34;
  return (
    <div className={`rounded-md border border-slate-200 bg-white/95 px-2.5 py-1.5 text-[11px] shadow-sm ${className}`} data-testid="dag-legend">
      <span className="sr-only">Dependency types</span>
      <ul className={`flex items-center ${compact ? 'gap-2' : 'gap-3'}`}>
        {DEP_TYPES.map((t) => {
          const look = EDGE_STYLES[t];
          return (
            <li key={t} className={`flex items-center whitespace-nowrap ${compact ? 'gap-1' : 'gap-2'}`} title={look.hint}>
              <svg width={sample} height="8" aria-hidden="true">
                <line x1="1" y1="4" x2={sample - 1} y2="4" stroke={look.stroke} strokeWidth="2" strokeDasharray={look.dash} strokeLinecap={t === 'on_failure' ? 'round' : undefined} />
              </svg>
              <span className="font-mono" style={{ color: look.stroke }}>
                {look.label}
              </span>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
