'use client';
// The first view of a React Flow canvas (editor and run graph): initialViewport (canvas.ts) once every card has
// been measured. Instead of the `fitView` prop, whose minZoom either shrinks a 5-rank DAG's text to about 6px or,
// raised, centres a big graph on its middle steps. Must run inside a ReactFlowProvider.
import { useLayoutEffect, useRef } from 'react';
import { useNodesInitialized, useReactFlow, useStore } from '@xyflow/react';
import { initialViewport, type CanvasPadding } from './canvas';

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
