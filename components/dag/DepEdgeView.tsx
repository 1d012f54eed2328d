'use client';
// Dependency edge: one look per type (hard solid dark, soft dashed, on_failure red dotted) and a small label on
// the path, so the type is readable without the legend and in black-and-white screenshots. The label keeps clear of
// the arrowhead (edge-label.ts).
import { memo, useMemo } from 'react';
import { BaseEdge, EdgeLabelRenderer, getBezierPath, type EdgeProps } from '@xyflow/react';
import { edgeLabelPoint, edgeLabelSize } from './edge-label';
import { EDGE_STYLES, type DepEdge } from './model';
import { useZoomedOut } from './CompactKey';

/** Custom edge for `type: 'dep'`; `data.type` picks the style from {@link EDGE_STYLES}. */
export const DepEdgeView = memo(function DepEdgeView(props: EdgeProps<DepEdge>) {
  const { id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data, selected, markerEnd } = props;
  const type = data?.type ?? 'hard';
  const active = data?.active === true;
  const look = EDGE_STYLES[type];
  // zoomed out a label is a speck over the line; the line's own look (solid, dashed, red dotted) still tells the type
  const zoomedOut = useZoomedOut();
  const [path, midX, midY] = getBezierPath({ sourceX, sourceY, sourcePosition, targetX, targetY, targetPosition });
  const { x: labelX, y: labelY } = useMemo(
    () => edgeLabelPoint(path, edgeLabelSize(look.label), targetPosition, { x: midX, y: midY }),
    [path, look.label, targetPosition, midX, midY],
  );
  return (
    <>
      <BaseEdge
        id={id}
        path={path}
        markerEnd={markerEnd}
        interactionWidth={18}
        className={active ? 'tf-edge-active' : undefined}
        style={{
          stroke: look.stroke,
          strokeWidth: selected ? 3.5 : active ? 3 : 2,
          strokeDasharray: look.dash ?? 'none',
          strokeLinecap: type === 'on_failure' ? 'round' : undefined,
          filter: selected ? 'drop-shadow(0 0 3px rgb(99 102 241 / 0.8))' : active ? 'drop-shadow(0 0 3px rgb(14 165 233 / 0.9))' : undefined,
        }}
      />
      {zoomedOut ? null : (
        <EdgeLabelRenderer>
          <div
            className="nodrag nopan pointer-events-none absolute rounded border bg-white px-1 py-px font-mono text-[11px] leading-tight"
            style={{
              transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)`,
              color: look.stroke,
              borderColor: selected ? '#6366f1' : look.stroke,
            }}
            data-edge-label={type}
            data-edge-id={id}
            data-edge-active={active ? 'true' : undefined}
          >
            {look.label}
          </div>
        </EdgeLabelRenderer>
      )}
    </>
  );
});
