import { describe, expect, it } from 'vitest';
import { COMPACT_KEY_MIN_PX, COMPACT_KEY_PX, COMPACT_ZOOM, FIRST_VIEW_MIN_ZOOM, cardHeight, compactCard, CANVAS_MIN_ZOOM, EDITOR_NARROW_BOTTOM, EDITOR_PADDING, FIT_VIEW_OPTIONS, LEGIBLE_ZOOM, MAX_FIT_ZOOM, NARROW_CANVAS_WIDTH, RUN_CANVAS_HEIGHT, RUN_PADDING, cardTitle, fitPadding, fitViewOptionsFor, initialViewport, isNarrowCanvas, minZoomFor, panToShow, runCanvasHeight, type Rect } from './canvas';

const pad = { top: 20, right: 20, bottom: 20, left: 20 };
const canvas = { width: 1040, height: 440 }; // 1000 x 400 inside the padding

describe('initialViewport (first view of a graph)', () => {
  const cases: { name: string; bounds: { x: number; y: number; width: number; height: number }; zoom: number; x: number; y: number }[] = [
    // fits at 1: the fit zoom (capped at MAX_FIT_ZOOM: 1000/500 = 2 -> 1.25), centred
    { name: 'small graph, capped zoom, centred', bounds: { x: 0, y: 0, width: 500, height: 100 }, zoom: MAX_FIT_ZOOM, x: 20 + (1000 - 625) / 2, y: 20 + (400 - 125) / 2 },
    // fits between the limits: exactly the fit zoom
    { name: 'fits at 0.95', bounds: { x: 0, y: 0, width: 1000 / 0.95, height: 100 }, zoom: 0.95, x: 20, y: 20 + (400 - 95) / 2 },
    // a 5-rank DAG (1520 px) in a 1000 px canvas: the whole of it, compact (it used to open at 0.92 from its left edge, its last ranks off screen)
    { name: 'a 5-rank DAG: fitted whole, compact, centred', bounds: { x: 20, y: 20, width: 1520, height: 300 }, zoom: 1000 / 1520, x: 20 - 20 * (1000 / 1520), y: 20 + (400 - 300 * (1000 / 1520)) / 2 - 20 * (1000 / 1520) },
    // too wide even at the first view's floor (a phone's canvas, a big graph): cards in full, from its roots on the left
    { name: 'too wide at the floor: legible zoom, roots on the left', bounds: { x: 20, y: 20, width: 6000, height: 300 }, zoom: LEGIBLE_ZOOM, x: 20 - 20 * LEGIBLE_ZOOM, y: 20 + (400 - 300 * LEGIBLE_ZOOM) / 2 - 20 * LEGIBLE_ZOOM },
    { name: 'too tall as well: top-left', bounds: { x: -100, y: -50, width: 9000, height: 3000 }, zoom: LEGIBLE_ZOOM, x: 20 + 100 * LEGIBLE_ZOOM, y: 20 + 50 * LEGIBLE_ZOOM },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const v = initialViewport(c.bounds, canvas, pad);
      expect(v.zoom).toBeCloseTo(c.zoom, 6);
      expect(v.x).toBeCloseTo(c.x, 6);
      expect(v.y).toBeCloseTo(c.y, 6);
    });
  }

  it('a 10-step chain (3,080 px) opens whole in the editor at 1440 x 900 (an 808 x 590 canvas), every key at 10px or more', () => {
    const v = initialViewport({ x: 0, y: 0, width: 3080, height: 76 }, { width: 808, height: 590 }, EDITOR_PADDING);
    expect(v.x + 3080 * v.zoom).toBeLessThanOrEqual(808 - EDITOR_PADDING.right + 0.5);
    expect(v.x).toBeGreaterThanOrEqual(EDITOR_PADDING.left - 0.5);
    const c = compactCard(v.zoom, cardHeight('Step step_10'), 'step_10'.length)!;
    expect(c.fontPx * v.zoom).toBeGreaterThanOrEqual(COMPACT_KEY_MIN_PX);
  });
});

describe('compactCard (a card zoomed out)', () => {
  it('is null at COMPACT_ZOOM and above: the card shows its details', () => {
    expect(compactCard(COMPACT_ZOOM, 77, 8)).toBeNull();
    expect(compactCard(1, 77, 8)).toBeNull();
  });
  it('a short key reads at COMPACT_KEY_PX on screen', () => {
    const c = compactCard(0.5, 77, 6)!;
    expect(c.fontPx * 0.5).toBeGreaterThanOrEqual(COMPACT_KEY_PX);
    expect(c.fontPx * 0.5).toBeLessThan(COMPACT_KEY_PX + 1);
  });
  it('a longer key gets smaller type and a second line, never below COMPACT_KEY_MIN_PX', () => {
    const c = compactCard(0.34, 77, 'extract_orders'.length)!;
    expect(c.lines).toBe(2);
    expect(c.fontPx * 0.34).toBeGreaterThanOrEqual(COMPACT_KEY_MIN_PX);
    expect(c.fontPx * 0.34).toBeLessThan(COMPACT_KEY_PX);
    const long = compactCard(0.3, 61, 80)!;
    expect(long.fontPx * 0.3).toBeGreaterThanOrEqual(COMPACT_KEY_MIN_PX);
    expect(long.fontPx * 1.15 * long.lines).toBeLessThanOrEqual(61 - 8);
  });
  it('changes only at steps of 0.02 of zoom, so a wheel tick re-renders no card', () => {
    expect(compactCard(0.401, 77, 6)).toEqual(compactCard(0.419, 77, 6));
  });
});

describe('panToShow (a new step off screen)', () => {
  const vp = { x: 0, y: 0, zoom: 1 };
  it('leaves a rect already in view', () => {
    expect(panToShow(vp, { x: 100, y: 100, width: 200, height: 64 }, canvas, pad)).toBeNull();
  });
  it('pans left just enough for a rect past the right edge, same zoom', () => {
    expect(panToShow(vp, { x: 900, y: 100, width: 200, height: 64 }, canvas, pad)).toEqual({ x: -80, y: 0, zoom: 1 });
  });
  it('pans right and down for a rect above-left of the view', () => {
    expect(panToShow({ x: 0, y: 0, zoom: 2 }, { x: -50, y: -10, width: 100, height: 50 }, canvas, pad)).toEqual({ x: 120, y: 40, zoom: 2 });
  });
  it('keeps the top-left corner of a rect bigger than the room (and below the top padding)', () => {
    expect(panToShow(vp, { x: 500, y: 0, width: 2000, height: 64 }, canvas, pad)).toEqual({ x: -480, y: 20, zoom: 1 });
  });
});

describe('runCanvasHeight (the run graph grows with its rows)', () => {
  it('a one-row chain keeps the smallest height', () => {
    expect(runCanvasHeight(61)).toBe(RUN_CANVAS_HEIGHT.min);
  });
  it('four rows of cards get the room to show them all at the legible zoom, above the MiniMap band', () => {
    const graph = 4 * 77 + 3 * 40;
    const h = runCanvasHeight(graph);
    expect(h).toBeGreaterThan(RUN_CANVAS_HEIGHT.min);
    const v = initialViewport({ x: 0, y: 0, width: 900, height: graph }, { width: 1000, height: h }, RUN_PADDING);
    expect(v.zoom).toBeCloseTo(LEGIBLE_ZOOM, 2);
    expect(v.y + graph * v.zoom).toBeLessThanOrEqual(h - RUN_PADDING.bottom + 0.5);
  });
  it('a very tall graph stops at the largest height', () => {
    expect(runCanvasHeight(5_000)).toBe(RUN_CANVAS_HEIGHT.max);
  });
});

describe('fitViewOptionsFor and minZoomFor (the Fit buttons)', () => {
  const canvas1440 = { width: 880, height: 560 }; // the editor's canvas at 1440 x 900, between the palette and the panel
  // a chain of n steps laid out left to right (lib/dag layoutDag: 200 px cards, 120 px between ranks)
  const chain = (n: number): Rect => ({ x: 0, y: 0, width: n * 200 + (n - 1) * 120, height: 72 });
  const fits = (bounds: Rect, size: { width: number; height: number }, zoom: number) =>
    bounds.width * zoom <= size.width - EDITOR_PADDING.left - EDITOR_PADDING.right && bounds.height * zoom <= size.height - EDITOR_PADDING.top - EDITOR_PADDING.bottom;

  it('a 10-step DAG fits the editor at 1440 x 900 (a floor of 0.5 left half of it off the canvas)', () => {
    const minZoom = minZoomFor(chain(10), canvas1440, EDITOR_PADDING);
    const o = fitViewOptionsFor(canvas1440.width, EDITOR_PADDING, EDITOR_NARROW_BOTTOM, minZoom);
    expect(fits(chain(10), canvas1440, o.minZoom!)).toBe(true);
  });
  it('any size the API allows fits: 500 steps in a chain, or a step dragged far away', () => {
    for (const bounds of [chain(500), { x: -1e6, y: -1e6, width: 2e6, height: 2e6 }]) {
      const minZoom = minZoomFor(bounds, canvas1440, EDITOR_PADDING);
      expect(minZoom).toBeGreaterThan(0);
      expect(fits(bounds, canvas1440, fitViewOptionsFor(canvas1440.width, EDITOR_PADDING, EDITOR_NARROW_BOTTOM, minZoom).minZoom!)).toBe(true);
    }
  });
  it('a graph that fits above CANVAS_MIN_ZOOM keeps that floor; so does an unmeasured or empty canvas', () => {
    expect(minZoomFor(chain(3), canvas1440, EDITOR_PADDING)).toBe(CANVAS_MIN_ZOOM);
    expect(minZoomFor(chain(500), { width: 0, height: 0 }, EDITOR_PADDING)).toBe(CANVAS_MIN_ZOOM);
    expect(minZoomFor(null, canvas1440, EDITOR_PADDING)).toBe(CANVAS_MIN_ZOOM);
    expect(FIT_VIEW_OPTIONS.maxZoom).toBe(MAX_FIT_ZOOM);
  });
  it('keeps the MiniMap band on a wide canvas and before the canvas is measured', () => {
    for (const width of [0, NARROW_CANVAS_WIDTH, 1000]) {
      expect(fitViewOptionsFor(width, EDITOR_PADDING, EDITOR_NARROW_BOTTOM).padding).toEqual(FIT_VIEW_OPTIONS.padding);
    }
  });
  it('on a phone-wide canvas keeps only the legend band at the bottom', () => {
    const o = fitViewOptionsFor(340, EDITOR_PADDING, EDITOR_NARROW_BOTTOM);
    expect(o.minZoom).toBeLessThanOrEqual(0.1);
    expect(o.padding).toMatchObject({ bottom: `${EDITOR_NARROW_BOTTOM}px`, left: `${EDITOR_PADDING.left}px`, right: `${EDITOR_PADDING.right}px` });
    expect(fitPadding(340, EDITOR_PADDING, EDITOR_NARROW_BOTTOM).bottom).toBe(EDITOR_NARROW_BOTTOM);
  });
  it('isNarrowCanvas: measured and below NARROW_CANVAS_WIDTH', () => {
    expect([0, 340, NARROW_CANVAS_WIDTH - 1, NARROW_CANVAS_WIDTH].map(isNarrowCanvas)).toEqual([false, true, true, false]);
  });
});

describe('cardTitle (a step card\'s tooltip)', () => {
  it('names the step whole: key, name, then the handler or status', () => {
    expect(cardTitle('validate-shard-0', 'Validate shard 0', 'sql')).toBe('validate-shard-0 — Validate shard 0 · sql');
    expect(cardTitle('load', undefined, 'success')).toBe('load · success');
    expect(cardTitle('load', '', '')).toBe('load');
  });
});
