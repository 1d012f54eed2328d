// Viewport settings shared by the editor and the run graph. The canvas carries overlays — Controls bottom-left,
// the legend bottom-centre (the editor's; the run graph's sits in its card header; on a phone's canvas bottom-right,
// where the MiniMap is left out), the MiniMap bottom-right (and
// the run graph's status summary top-left) — and fitView
// must keep every card and handle clear of them: a handle under the (pannable) MiniMap turns a drag-to-connect
// into a drag of the MiniMap, which pans the canvas away instead of connecting.
// Pure: no React Flow runtime here, so the viewport rules below are unit-tested (canvas.test.ts).
import type { FitViewOptions } from '@xyflow/react';

/** Size of the MiniMap in px (React Flow's default 200x150 covers too much of a 480px-tall canvas). */
export const MINIMAP_SIZE = { width: 160, height: 100 } as const;

/** React Flow's margin around panels (`.react-flow__panel { margin: 15px }`). */
const PANEL_MARGIN = 15;

/** Room in screen px kept free of cards on each side of the canvas (the overlays above). */
export type CanvasPadding = { top: number; right: number; bottom: number; left: number };

/** The editor's canvas: the bottom band is left to the MiniMap/legend, the left edge to the Controls. */
export const EDITOR_PADDING: CanvasPadding = { top: 24, right: 24, bottom: MINIMAP_SIZE.height + PANEL_MARGIN + 12, left: 26 + PANEL_MARGIN + 16 };
/** The run graph's canvas, whose status summary sits top-left; its bottom band is the MiniMap's and the Controls'. */
export const RUN_PADDING: CanvasPadding = { ...EDITOR_PADDING, top: 48 };

/**
 * The zoom at which the cards' smallest text (12px: StepNodeView, RunGraph) reads at 11px on screen; the run graph's
 * box is made tall enough for its rows at this zoom (runCanvasHeight).
 */
export const LEGIBLE_ZOOM = 0.92;

/**
 * Below this zoom a card's 12px text reads under 9.6px: cards switch to their compact look (compactCard), the step
 * key alone, large, on the card's own colours (the run graph's status colour), and edges drop their type labels.
 */
export const COMPACT_ZOOM = 0.8;

/** On-screen size in px of a compact card's key: COMPACT_KEY_PX, down to COMPACT_KEY_MIN_PX for a key that fits only so. */
export const COMPACT_KEY_PX = 13;
export const COMPACT_KEY_MIN_PX = 10;

/**
 * The smallest zoom a graph is first shown at. Down to it the whole graph is shown, compact below COMPACT_ZOOM: a
 * 10-step chain (3,080 px) fits the editor's canvas at 1440 x 900 (808 px wide, about 0.24), every key reading at
 * 10px or more. A graph too big even at this zoom (a phone's canvas, a very big graph), which no first view shows
 * whole, starts at LEGIBLE_ZOOM at its roots (left), its cards in full, and the MiniMap, panning or Fit show the rest.
 */
export const FIRST_VIEW_MIN_ZOOM = 0.22;

/** A step card's height in flow px before it is measured: with its step name line, or without (StepNodeView, RunGraph). */
export function cardHeight(name: string | undefined): number {
  return name ? 77 : 61;
}

/** A card's width in flow px, and the room its compact key has inside it. */
export const CARD_WIDTH = 200;
const COMPACT_KEY_ROOM = CARD_WIDTH - 12;
/** A medium-weight sans character's average width, in em, for the fit of a compact key (a slight overestimate). */
const CHAR_EM = 0.62;

/**
 * The compact look of a card `height` flow px tall whose key has `keyLength` characters at `zoom`, or null at
 * COMPACT_ZOOM and above: the key's font size in flow px and how many lines of it fit in the card. The key reads at
 * COMPACT_KEY_PX on screen, smaller (not below COMPACT_KEY_MIN_PX) where that lets it fit whole; a key longer still is
 * cut, and its card's tooltip names it whole (cardTitle). The zoom is taken in steps of 0.02, rounded down, so
 * zooming re-renders the cards at each step only, not at every wheel tick.
 */
export function compactCard(zoom: number, height: number, keyLength: number): { fontPx: number; lines: number } | null {
  if (!(zoom < COMPACT_ZOOM)) return null;
  const step = Math.max(0.02, Math.floor(zoom * 50) / 50);
  const linesAt = (font: number) => Math.max(1, Math.floor((height - 8) / (font * 1.15)));
  const fits = (font: number) => Math.max(1, keyLength) * CHAR_EM * font <= COMPACT_KEY_ROOM * linesAt(font);
  let fontPx = Math.ceil(COMPACT_KEY_PX / step);
  const smallest = Math.ceil(COMPACT_KEY_MIN_PX / step);
  while (fontPx > smallest && !fits(fontPx)) fontPx--;
  return { fontPx, lines: linesAt(fontPx) };
}
/** The largest zoom a graph is first shown or fitted at: a 1-3 step graph is not blown up. */
export const MAX_FIT_ZOOM = 1.25;

const px = (n: number) => `${n}px` as const;
const pxPadding = (p: CanvasPadding) => ({ top: px(p.top), right: px(p.right), bottom: px(p.bottom), left: px(p.left) });

/**
 * The smallest zoom of a canvas whose whole graph fits above it. Below it a card is a speck; a graph that fits only
 * lower (the API takes 500 steps, at any position) lowers it: see minZoomFor.
 */
export const CANVAS_MIN_ZOOM = 0.1;

/** What the Fit buttons do: show the whole graph, however big (the zoom floor comes from fitViewOptionsFor's caller). */
export const FIT_VIEW_OPTIONS = { padding: pxPadding(EDITOR_PADDING), minZoom: CANVAS_MIN_ZOOM, maxZoom: MAX_FIT_ZOOM } satisfies FitViewOptions;

/**
 * Canvases narrower than this (px) are a phone's: a 160 px MiniMap and a centred legend cannot both fit in the
 * bottom band (the legend covered the MiniMap at 390 px), so the MiniMap is left out and Fit keeps only the
 * legend's band at the bottom.
 */
export const NARROW_CANVAS_WIDTH = 560;

/** Whether a canvas `width` px wide (0 before it is measured) is narrow (NARROW_CANVAS_WIDTH). */
export function isNarrowCanvas(width: number): boolean {
  return width > 0 && width < NARROW_CANVAS_WIDTH;
}

/** The bands Fit keeps free of cards on a canvas `width` px wide: `padding`, with only `narrowBottom` px at a phone's bottom. */
export function fitPadding(width: number, padding: CanvasPadding, narrowBottom: number): CanvasPadding {
  return isNarrowCanvas(width) ? { ...padding, bottom: narrowBottom } : padding;
}

/**
 * The zoom floor of a canvas of `size` (screen px) showing cards that span `bounds` (flow px), Fit's bands
 * `padding`: CANVAS_MIN_ZOOM, or the zoom at which the whole graph fits when that is lower, so that Fit and
 * zooming out always reach every step. A fixed floor did not: at 0.5 a 10-step chain (some 3,200 px) overflowed
 * the editor at 1440 x 900, and no fixed floor covers 500 steps placed anywhere. Before the canvas is measured,
 * or with no cards, CANVAS_MIN_ZOOM.
 */
export function minZoomFor(bounds: Rect | null, size: { width: number; height: number }, padding: CanvasPadding): number {
  if (!bounds || !size.width || !size.height || bounds.width <= 0 || bounds.height <= 0) return CANVAS_MIN_ZOOM;
  const availW = Math.max(1, size.width - padding.left - padding.right);
  const availH = Math.max(1, size.height - padding.top - padding.bottom);
  const fit = Math.min(availW / bounds.width, availH / bounds.height);
  return Math.min(CANVAS_MIN_ZOOM, fit);
}

/**
 * What Fit does on a canvas `width` px wide with the overlays of `padding`, for a canvas whose zoom floor is
 * `minZoom` (minZoomFor): the whole graph, as far down as it needs, never above MAX_FIT_ZOOM; on a narrow canvas
 * (no MiniMap) the bottom band keeps only `narrowBottom` px (the legend's, or none).
 */
export function fitViewOptionsFor(width: number, padding: CanvasPadding, narrowBottom: number, minZoom: number = CANVAS_MIN_ZOOM): FitViewOptions {
  return { ...FIT_VIEW_OPTIONS, padding: pxPadding(fitPadding(width, padding, narrowBottom)), minZoom };
}

/** The editor's bottom band on a narrow canvas: its legend (one row, 28 px) and React Flow's panel margin. */
export const EDITOR_NARROW_BOTTOM = 28 + PANEL_MARGIN + 12;
/** The run graph's bottom band on a narrow canvas: only the Controls, which sit in the left band. */
export const RUN_NARROW_BOTTOM = 24;

export type Rect = { x: number; y: number; width: number; height: number };
export type Viewport = { x: number; y: number; zoom: number };

/** The run graph's canvas height range in px: the smallest keeps a short chain from floating in a tall box, the largest keeps the tasks table near. */
export const RUN_CANVAS_HEIGHT = { min: 360, max: 640 } as const;

/**
 * Height in px of the run graph's canvas for a graph `graphHeight` flow px tall: the graph at LEGIBLE_ZOOM plus the
 * padded bands, so that its first view shows every row above the MiniMap's band instead of under the MiniMap; within
 * RUN_CANVAS_HEIGHT (a taller graph starts at its top and the MiniMap or panning reach the rest).
 */
export function runCanvasHeight(graphHeight: number, padding: CanvasPadding = RUN_PADDING, range: { min: number; max: number } = RUN_CANVAS_HEIGHT): number {
  const needed = Math.ceil(Math.max(0, graphHeight) * LEGIBLE_ZOOM + padding.top + padding.bottom);
  return Math.min(range.max, Math.max(range.min, needed));
}

/**
 * The first view of a graph whose cards span `bounds` (flow px) on a canvas of `size` (screen px): the whole graph,
 * centred, at the zoom that fits it between FIRST_VIEW_MIN_ZOOM and MAX_FIT_ZOOM. A graph that does not fit at
 * FIRST_VIEW_MIN_ZOOM starts at LEGIBLE_ZOOM at its left edge (where an LR layout has its roots) and, if too tall
 * too, at its top: at the floor its keys would be cut and it would not be whole either.
 */
export function initialViewport(bounds: Rect, size: { width: number; height: number }, padding: CanvasPadding): Viewport {
  const availW = Math.max(1, size.width - padding.left - padding.right);
  const availH = Math.max(1, size.height - padding.top - padding.bottom);
  const fit = Math.min(availW / Math.max(1, bounds.width), availH / Math.max(1, bounds.height));
  const zoom = fit < FIRST_VIEW_MIN_ZOOM ? LEGIBLE_ZOOM : Math.min(MAX_FIT_ZOOM, fit);
  const axis = (start: number, extent: number, pad: number, avail: number) =>
    extent * zoom <= avail ? pad + (avail - extent * zoom) / 2 - start * zoom : pad - start * zoom;
  return { x: axis(bounds.x, bounds.width, padding.left, availW), y: axis(bounds.y, bounds.height, padding.top, availH), zoom };
}

/**
 * The viewport moved (never zoomed) just enough that `rect` (flow px) lies inside the padded canvas; null when it
 * already does. A rect bigger than the room keeps its top-left corner in view.
 */
export function panToShow(viewport: Viewport, rect: Rect, size: { width: number; height: number }, padding: CanvasPadding): Viewport | null {
  const { zoom } = viewport;
  const shift = (start: number, extent: number, offset: number, pad: number, avail: number) => {
    const a = start * zoom + offset; // the rect's screen start
    const b = a + extent * zoom;
    if (a < pad) return pad - a;
    if (b > pad + avail) return Math.max(pad - a, pad + avail - b);
    return 0;
  };
  const dx = shift(rect.x, rect.width, viewport.x, padding.left, size.width - padding.left - padding.right);
  const dy = shift(rect.y, rect.height, viewport.y, padding.top, size.height - padding.top - padding.bottom);
  return dx === 0 && dy === 0 ? null : { x: viewport.x + dx, y: viewport.y + dy, zoom };
}

/**
 * A step card's tooltip: its key, name and `detail` (the editor's handler, the run graph's status), whole. A compact
 * card (compactCard) shows only its key, and a key or name too long for its card is cut at any zoom; hovering a card
 * reads it.
 */
export function cardTitle(key: string, name: string | undefined, detail: string | undefined): string {
  return [[key, name].filter(Boolean).join(' — '), detail].filter(Boolean).join(' · ');
}
