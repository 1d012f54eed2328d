'use client';
// The first view of a React Flow canvas (editor and run graph): initialViewport (canvas.ts) once every card has
// been measured. Instead of the `fitView` prop, whose minZoom either shrinks a 5-rank DAG's text to about 6px or,
// raised, centres a big graph on its middle steps. Must run inside a ReactFlowProvider.
import { useLayoutEffect, useMemo, useRef } from 'react';
import { getNodesBounds, useNodesInitialized, useReactFlow, useStore, type Node } from '@xyflow/react';
import { fitPadding, initialViewport, minZoomFor, type CanvasPadding } from './canvas';

/** Sets the viewport once per mounted canvas, when its nodes are first measured (an empty canvas keeps the default). */
export function useInitialView(padding: CanvasPadding): void {
  const measured = useNodesInitialized();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const { getNodes, getNodesBounds, setViewport } = useReactFlow();
  const done = useRef(false);
  // Layout effect: the corrected view is applied before the browser paints the measured cards.
  useLayoutEffect(() => {
    if (done.current || !measured || !width || !height) return;
    const nodes = getNodes();
    if (nodes.length === 0) return;
    done.current = true;
    void setViewport(initialViewport(getNodesBounds(nodes), { width, height }, padding));
  }, [measured, width, height, padding, getNodes, getNodesBounds, setViewport]);
}

/**
 * The zoom floor of a canvas showing `nodes` (minZoomFor in canvas.ts), for React Flow's `minZoom` and the Fit
 * button's options alike: React Flow clamps a fitView to its own minZoom too, so the two move together. Must run
 * inside a ReactFlowProvider.
 */
export function useZoomFloor(nodes: Node[], padding: CanvasPadding, narrowBottom: number): number {
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const bounds = useMemo(() => (nodes.length ? getNodesBounds(nodes) : null), [nodes]);
  return minZoomFor(bounds, { width, height }, fitPadding(width, padding, narrowBottom));
}
