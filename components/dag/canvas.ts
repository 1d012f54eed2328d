// Viewport settings shared by the editor and the run graph. The canvas carries overlays — Controls bottom-left,
// the legend bottom-centre, the MiniMap bottom-right (and the run graph's status summary top-left) — and fitView
// must keep every card and handle clear of them: a handle under the (pannable) MiniMap turns a drag-to-connect
// into a drag of the MiniMap, which pans the canvas away instead of connecting.
import type { FitViewOptions } from '@xyflow/react';

/** Size of the MiniMap in px (React Flow's default 200x150 covers too much of a 480px-tall canvas). */
export const MINIMAP_SIZE = { width: 160, height: 100 } as const;

/** React Flow's margin around panels (`.react-flow__panel { margin: 15px }`). */
const PANEL_MARGIN = 15;

/**
 * fitView for a canvas with the overlays above: the bottom band is left to the MiniMap/legend, the left edge to the
 * Controls. `minZoom` keeps cards legible (and handles at least ~8px) on big graphs — the MiniMap shows the rest;
 * `maxZoom` keeps a 1-3 step graph from being blown up.
 */
export const FIT_VIEW_OPTIONS = {
  padding: { top: '24px', right: '24px', bottom: `${MINIMAP_SIZE.height + PANEL_MARGIN + 12}px`, left: `${26 + PANEL_MARGIN + 16}px` },
  minZoom: 0.5,
  maxZoom: 1.25,
} satisfies FitViewOptions;

/** The same for the run graph, whose status summary sits top-left. */
export const RUN_FIT_VIEW_OPTIONS = {
  ...FIT_VIEW_OPTIONS,
  padding: { ...FIT_VIEW_OPTIONS.padding, top: '48px' },
} satisfies FitViewOptions;
