'use client';
// The DAG editor's canvas: React Flow with its background, controls, minimap and legend, the banner laid over it,
// and the empty-graph note. Gestures arrive through use-canvas-edits.ts; state through use-dag-editor.ts.
import type { RefObject } from 'react';
import { Background, Controls, MiniMap, Panel, ReactFlow, useStore, type EdgeTypes, type NodeTypes } from '@xyflow/react';
import { EDITOR_NARROW_BOTTOM, EDITOR_PADDING, MINIMAP_SIZE, fitViewOptionsFor, isNarrowCanvas } from './canvas';
import { LegendOrConnectionHint } from './ConnectionHint';
import { DepEdgeView } from './DepEdgeView';
import { EditorBanner, type Banner } from './EditorBanner';
import { EdgeLegend } from './Legend';
import type { DepEdge, StepNode, StepNodeData } from './model';
import { StepNodeView } from './StepNodeView';
import type { CanvasEdits } from './use-canvas-edits';
import { useInitialView, useZoomFloor } from './use-initial-view';

// Declared once at module level: a new object per render would make React Flow remount every node and edge.
const nodeTypes: NodeTypes = { step: StepNodeView };
const edgeTypes: EdgeTypes = { dep: DepEdgeView };

/** Props of {@link DagCanvas}. */
export type DagCanvasProps = {
  nodes: StepNode[];
  edges: DepEdge[];
  readOnly: boolean;
  edits: CanvasEdits;
  banner: Banner | null;
  onDismissBanner(): void;
  canvasRef: RefObject<HTMLDivElement | null>;
};

/** The canvas between the palette and the selection panel. */
export function DagCanvas({ nodes, edges, readOnly, edits, banner, onDismissBanner, canvasRef }: DagCanvasProps) {
  useInitialView(EDITOR_PADDING);
  const width = useStore((s) => s.width);
  // A phone's canvas has no MiniMap; its legend, shorter, sits bottom-right, clear of the Controls (canvas.ts).
  const narrow = isNarrowCanvas(width);
  // Fit and zooming out reach the whole graph, however big (canvas.ts minZoomFor)
  const minZoom = useZoomFloor(nodes, EDITOR_PADDING, EDITOR_NARROW_BOTTOM);
  return (
    <div className="relative min-w-0 flex-1 max-md:h-[360px] max-md:flex-none" ref={canvasRef} onDragOver={edits.onDragOver} onDrop={edits.onDrop}>
      {/* Over the canvas, never above it: showing or clearing a message must not move the graph under the pointer. */}
      <EditorBanner banner={banner} onDismiss={onDismissBanner} className="absolute inset-x-2 top-2 z-10" />
      <ReactFlow<StepNode, DepEdge>
        nodes={nodes}
        edges={edges}
        {...edits.flow}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        edgesReconnectable={false}
        // Delete and Backspace both delete; React Flow ignores them while focus is in an input/textarea/select.
        deleteKeyCode={readOnly ? null : ['Delete', 'Backspace']}
        minZoom={minZoom}
        maxZoom={2}
        connectionRadius={28}
        attributionPosition="top-right"
      >
        <Background gap={20} size={1} color="var(--color-slate-300, #cbd5e1)" />
        <Controls showInteractive={false} fitViewOptions={fitViewOptionsFor(width, EDITOR_PADDING, EDITOR_NARROW_BOTTOM, minZoom)} />
        {narrow ? null : <MiniMap pannable zoomable style={MINIMAP_SIZE} nodeStrokeWidth={3} nodeColor={(n) => ((n.data as StepNodeData).errors ? '#fca5a5' : '#c7d2fe')} />}
        <Panel position={narrow ? 'bottom-right' : 'bottom-center'}>{readOnly ? <EdgeLegend compact={narrow} /> : <LegendOrConnectionHint compact={narrow} />}</Panel>
      </ReactFlow>
      {nodes.length === 0 ? (
        <div className="pointer-events-none absolute inset-0 flex items-center justify-center text-sm text-slate-500">
          {readOnly ? 'This job has no steps.' : 'Add a step from the palette on the left.'}
        </div>
      ) : null}
    </div>
  );
}
