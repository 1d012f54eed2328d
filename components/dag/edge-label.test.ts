import { describe, expect, it } from 'vitest';
import { getBezierPath, Position } from '@xyflow/system';
import { ARROW_REACH, bezierPoints, edgeLabelPoint, edgeLabelSize } from './edge-label';

/** React Flow's path for an edge from a right handle at (sx, sy) to a left handle at (tx, ty). */
const edge = (sx: number, sy: number, tx: number, ty: number) =>
  getBezierPath({ sourceX: sx, sourceY: sy, sourcePosition: Position.Right, targetX: tx, targetY: ty, targetPosition: Position.Left });

/** True when the label box centred on `p` stays clear of the arrowhead ending at (tx, ty) from the left. */
const clearOfArrow = (p: { x: number; y: number }, size: { width: number; height: number }, tx: number, ty: number) =>
  p.x + size.width / 2 <= tx - ARROW_REACH.back || Math.abs(p.y - ty) >= size.height / 2 + ARROW_REACH.side;

describe('edgeLabelPoint', () => {
  it('parses the bezier React Flow draws', () => {
    const [path] = edge(0, 0, 120, 40);
    expect(bezierPoints(path)).toEqual([{ x: 0, y: 0 }, { x: 60, y: 0 }, { x: 60, y: 40 }, { x: 120, y: 40 }]);
    expect(bezierPoints('M0,0 L10,10')).toBeNull();
  });

  it('keeps the middle of a long edge', () => {
    const [path, mx, my] = edge(0, 0, 300, 0);
    expect(edgeLabelPoint(path, edgeLabelSize('hard'), 'left', { x: mx, y: my })).toEqual({ x: 150, y: 0 });
  });

  const cases: { name: string; label: string; from: [number, number]; to: [number, number] }[] = [
    // cards 80px apart: the path runs from 8px right of one card to 8px left of the next
    { name: '"on failure" between close cards', label: 'on failure', from: [0, 0], to: [64, 0] },
    { name: '"on failure" across the default rank gap (120px)', label: 'on failure', from: [0, 0], to: [104, 0] },
    { name: '"hard" on a short edge', label: 'hard', from: [0, 0], to: [40, 0] },
    { name: '"on failure" between cards 40px apart: off the line', label: 'on failure', from: [0, 0], to: [24, 0] },
    { name: 'fan-in edge with a small rise', label: 'on failure', from: [0, 10], to: [90, 0] },
  ];
  for (const c of cases) {
    it(`moves off the arrowhead: ${c.name}`, () => {
      const [path, mx, my] = edge(...c.from, ...c.to);
      const size = edgeLabelSize(c.label);
      // the middle overlapped the arrowhead before (that is the fault), the label point does not
      expect(clearOfArrow({ x: mx, y: my }, size, ...c.to)).toBe(false);
      const p = edgeLabelPoint(path, size, 'left', { x: mx, y: my });
      expect(clearOfArrow(p, size, ...c.to)).toBe(true);
      // nor over the source handle (a 16px dot ending where the path starts), where it slipped under the card
      expect(p.x - size.width / 2 >= c.from[0] || Math.abs(p.y - c.from[1]) >= size.height / 2 + 8).toBe(true);
    });
  }

  it('falls back to the given point for a path that is not one bezier', () => {
    expect(edgeLabelPoint('M0,0 L10,10', edgeLabelSize('hard'), 'left', { x: 5, y: 5 })).toEqual({ x: 5, y: 5 });
  });
});
