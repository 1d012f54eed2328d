'use client';
// The compact look of a step card at low zoom (canvas.ts compactCard): the key alone, large enough to read, laid over
// the card's own content, which is hidden but keeps its size, so the card, its handles and its edges do not move when
// the zoom crosses COMPACT_ZOOM. Must run inside a ReactFlowProvider.
import { Fragment } from 'react';
import { useStore } from '@xyflow/react';
import { compactCard, COMPACT_ZOOM } from './canvas';

type Compact = ReturnType<typeof compactCard>;
const same = (a: Compact, b: Compact) => a?.fontPx === b?.fontPx && a?.lines === b?.lines;

/** The compact look of a card `height` flow px tall showing `key` at the canvas's zoom, or null (re-renders only when it changes). */
export function useCompactCard(height: number, key: string): Compact {
  return useStore((s) => compactCard(s.transform[2], height, key.length), same);
}

/** Whether the canvas is zoomed out below COMPACT_ZOOM (the edges' labels are left out then). */
export function useZoomedOut(): boolean {
  return useStore((s) => s.transform[2] < COMPACT_ZOOM);
}

/** The key over the card, `className` its colour; `compact` from useCompactCard. */
export function CompactKey({ text, compact, className }: { text: string; compact: NonNullable<Compact>; className?: string }) {
  return (
    <div className="pointer-events-none absolute inset-0 flex items-center justify-center overflow-hidden px-1" data-compact-card="">
      <span
        className={`overflow-hidden text-center font-medium [overflow-wrap:anywhere] ${className ?? ''}`}
        style={{ fontSize: compact.fontPx, lineHeight: 1.15, display: '-webkit-box', WebkitBoxOrient: 'vertical', WebkitLineClamp: compact.lines }}
      >
        {/* a long key breaks after its separators first (extract_ / orders), anywhere only when it must */}
        {text.split(/(?<=[_.\-])/).map((part, i) => (
          <Fragment key={i}>
            {i > 0 ? <wbr /> : null}
            {part}
          </Fragment>
        ))}
      </span>
    </div>
  );
}
