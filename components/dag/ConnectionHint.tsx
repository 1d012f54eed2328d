'use client';
// Below the canvas: the edge legend, or, while a dragged connection hovers a handle it may not end on, the reason.
import { useConnection, useReactFlow } from '@xyflow/react';
import { CircleAlert } from 'lucide-react';
import { EdgeLegend } from './Legend';
import { connectionRefusal, type DepEdge, type StepNode } from './model';

/**
 * The edge legend; while a connection is dragged over a handle it may not end on, the reason instead (the cycle it
 * would close, by step key), in the same spot below the graph so it never covers a step. Back to the legend as
 * soon as the pointer leaves that handle or the drag ends (a drop there also puts the reason in the alert banner).
 * `compact`: the legend's phone form (EdgeLegend). Must render inside <ReactFlow> (useConnection reads its store).
 */
export function LegendOrConnectionHint({ compact = false }: { compact?: boolean }) {
  const { getNodes, getEdges } = useReactFlow<StepNode, DepEdge>();
  const reason = useConnection((c) => {
    if (!c.inProgress || c.isValid !== false || !c.toNode || !c.toHandle) return null;
    return connectionRefusal(getNodes(), getEdges(), { nodeId: c.fromNode.id, type: c.fromHandle.type }, { nodeId: c.toNode.id, type: c.toHandle.type });
  });
  if (!reason) return <EdgeLegend compact={compact} />;
  return (
    <div role="status" data-testid="dag-connection-hint" className="pointer-events-none flex items-center gap-1.5 rounded-md border border-red-300 bg-red-50 px-2.5 py-1.5 text-xs font-medium text-red-900 shadow-sm">
      <CircleAlert className="size-3.5 shrink-0" /> {reason}
    </div>
  );
}
