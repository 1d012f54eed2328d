// Where a dependency edge's type label sits (DepEdgeView). At the middle of the path it covered the arrowhead
// whenever the label was about as long as half the edge: "on failure" between cards placed close together, or
// any label on a selected edge, whose arrowhead grows with the stroke. Pure, unit-tested in edge-label.test.ts.

/** Side of the card a handle sits on (React Flow's Position values). */
export type Side = 'left' | 'right' | 'top' | 'bottom';

/** The label's box in px: 11px monospace (0.6em a character) with 4px padding and a 1px border each side. */
export function edgeLabelSize(text: string): { width: number; height: number } {
  return { width: Math.ceil(text.length * 6.6) + 10, height: 18 };
}

/**
 * How far the arrowhead reaches back from the path's end and to each side of it (px). Its marker (model.ts
 * withEdgeType) is 18 stroke widths for a 20-unit box whose head is 5 units long and 8 wide: 4.5 and 3.6 times the
 * stroke, which is 3.5 on a selected edge. Beyond the end lies the editor's 16px handle dot (StepNodeView).
 */
export const ARROW_REACH = { back: 18, side: 14, handle: 16 } as const;
/** Free room kept between the label and the arrowhead (px). */
const MARGIN = 4;

type Pt = { x: number; y: number };

/** The four points of React Flow's bezier path `M sx,sy C c1x,c1y c2x,c2y tx,ty`; null for any other path. */
export function bezierPoints(path: string): [Pt, Pt, Pt, Pt] | null {
  const n = path.match(/-?\d+(?:\.\d+)?(?:e-?\d+)?/gi)?.map(Number);
  if (!/^M/.test(path.trim()) || !/C/.test(path) || !n || n.length !== 8) return null;
  return [
    { x: n[0]!, y: n[1]! },
    { x: n[2]!, y: n[3]! },
    { x: n[4]!, y: n[5]! },
    { x: n[6]!, y: n[7]! },
  ];
}

const at = ([a, b, c, d]: [Pt, Pt, Pt, Pt], t: number): Pt => {
  const u = 1 - t;
  const w = [u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t] as const;
  return { x: w[0] * a.x + w[1] * b.x + w[2] * c.x + w[3] * d.x, y: w[0] * a.y + w[1] * b.y + w[2] * c.y + w[3] * d.y };
};

/** The zone near the path's end `tip` that the arrowhead and the target handle take, for a target on `side`. */
function arrowZone(tip: Pt, side: Side): { x0: number; x1: number; y0: number; y1: number } {
  const { back, side: s, handle } = ARROW_REACH;
  switch (side) {
    case 'left':
      return { x0: tip.x - back, x1: tip.x + handle, y0: tip.y - s, y1: tip.y + s };
    case 'right':
      return { x0: tip.x - handle, x1: tip.x + back, y0: tip.y - s, y1: tip.y + s };
    case 'top':
      return { x0: tip.x - s, x1: tip.x + s, y0: tip.y - back, y1: tip.y + handle };
    case 'bottom':
      return { x0: tip.x - s, x1: tip.x + s, y0: tip.y - handle, y1: tip.y + back };
  }
}

/**
 * The label's centre on the edge's bezier `path`: the middle of the path when the label there stays clear of the
 * arrowhead (with a margin), else the nearest point towards the source that does without reaching over the source
 * handle; on an edge too short for that, beside the middle, off the line by enough to clear the arrowhead. `side` is
 * the target handle's. Falls back to `fallback` (React Flow's own label point) for a path that is not one bezier.
 */
export function edgeLabelPoint(path: string, label: { width: number; height: number }, side: Side, fallback: Pt): Pt {
  const pts = bezierPoints(path);
  if (!pts) return fallback;
  const STEPS = 64;
  const samples: Pt[] = [];
  for (let i = 0; i <= STEPS; i++) samples.push(at(pts, i / STEPS));
  const tip = pts[3];
  const zone = arrowZone(tip, side);
  const hw = label.width / 2 + MARGIN;
  const hh = label.height / 2 + MARGIN;
  const clear = (p: Pt) => p.x + hw <= zone.x0 || p.x - hw >= zone.x1 || p.y + hh <= zone.y0 || p.y - hh >= zone.y1;
  // The middle by length, not by t: the path's control points make t=0.5 the middle only for symmetric edges.
  const lengths = [0];
  for (let i = 1; i <= STEPS; i++) lengths.push(lengths[i - 1]! + Math.hypot(samples[i]!.x - samples[i - 1]!.x, samples[i]!.y - samples[i - 1]!.y));
  const total = lengths[STEPS]!;
  let mid = 0;
  while (mid < STEPS && lengths[mid]! < total / 2) mid++;
  // Not closer to the source than half the label: it would cover the source handle and slip under its card.
  const nearest = Math.min(label.width / 2 + MARGIN, total / 2);
  for (let i = mid; i >= 0 && lengths[i]! >= nearest; i--) if (clear(samples[i]!)) return round(samples[i]!);
  const m = samples[mid]!;
  const away = (from: number, towards: number, reach: number) => (towards <= from ? from - reach : from + reach);
  return side === 'left' || side === 'right'
    ? round({ x: m.x, y: away(tip.y, m.y, hh + ARROW_REACH.side) })
    : round({ x: away(tip.x, m.x, hw + ARROW_REACH.side), y: m.y });
}

const round = (p: Pt): Pt => ({ x: Math.round(p.x * 10) / 10, y: Math.round(p.y * 10) / 10 });
