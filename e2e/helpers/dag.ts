import { expect, type Locator, type Page } from '@playwright/test';

// Mouse helpers for the DAG editor's canvas (components/dag), shared by the editor specs.

/**
 * Makes sure the mouse can really reach a handle: inside the canvas pane and not covered by an overlay (MiniMap,
 * Controls, legend). Pressing the mouse on a covered handle drags the overlay instead — a pannable MiniMap pans the
 * canvas away — so an unreachable handle fails here, named. Off the canvas or covered (e.g. after a banner above
 * the canvas pushed the graph down) it first fits the graph, as an operator would; never scrollIntoView, which
 * scrolls React Flow's overflow-hidden pane so that the canvas no longer matches its own coordinates.
 */
export async function ensureReachable(page: Page, handle: Locator): Promise<void> {
  await expect(handle).toBeVisible();
  const reachable = async (timeout: number) => {
    const pane = await page.locator('.react-flow').boundingBox();
    const b = await handle.boundingBox();
    const inside = !!b && !!pane && b.x >= pane.x && b.y >= pane.y && b.x + b.width <= pane.x + pane.width && b.y + b.height <= pane.y + pane.height;
    // Actionability without acting: visible, stable (no fit animation running), and a click at its centre hits it.
    return inside && (await handle.hover({ trial: true, timeout }).then(() => true, () => false));
  };
  if (await reachable(2_000)) return;
  await page.getByTestId('dag-fit').click();
  if (!(await reachable(5_000))) throw new Error(`${handle} is outside the canvas or covered by an overlay, even after Fit`);
}

export async function centreOf(handle: Locator): Promise<{ x: number; y: number }> {
  const box = await handle.boundingBox();
  if (!box) throw new Error(`${handle} has no box`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/**
 * Drags a connection the way an operator does:
 * mouse down exactly on the source handle's centre, move in 20 steps, mouse up on the target handle's centre.
 * `whileHeld` runs with the pointer over the target and the button still down (what the canvas shows mid-drag).
 */
export async function dragConnect(page: Page, from: Locator, to: Locator, whileHeld?: () => Promise<void>): Promise<void> {
  await ensureReachable(page, from);
  await ensureReachable(page, to);
  await ensureReachable(page, from); // a Fit for `to` moved `from` too
  const a = await centreOf(from);
  const b = await centreOf(to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 20 });
  try {
    await whileHeld?.();
  } finally {
    await page.mouse.up();
  }
}


/**
 * The smallest text shown inside the React Flow cards under `canvas`, in screen px: each visible text element's font
 * size times the viewport's zoom (a compact card keeps its details in place, hidden: components/dag/CompactKey.tsx).
 */
export async function smallestCardText(canvas: Locator): Promise<number> {
  return canvas.evaluate((root) => {
    const vp = root.querySelector<HTMLElement>('.react-flow__viewport')!;
    const zoom = new DOMMatrix(getComputedStyle(vp).transform).a;
    let min = Infinity;
    for (const el of root.querySelectorAll<HTMLElement>('.react-flow__node *')) {
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      const ownText = [...el.childNodes].some((c) => c.nodeType === Node.TEXT_NODE && c.textContent!.trim() !== '');
      if (ownText) min = Math.min(min, parseFloat(getComputedStyle(el).fontSize) * zoom);
    }
    return min;
  });
}

/**
 * For each edge label under `canvas`: how far (screen px) its box stays from the arrowhead's tip, the end of its
 * edge's path; negative when it reaches over the tip (a label beside the tip, above or below the arrowhead, counts
 * as clear: `clearY` is its vertical distance).
 */
export async function edgeLabelClearances(canvas: Locator): Promise<{ id: string; clearX: number; clearY: number }[]> {
  return canvas.evaluate((root) =>
    [...root.querySelectorAll<HTMLElement>('[data-edge-id]')].map((label) => {
      const id = label.dataset.edgeId!;
      const path = root.querySelector<SVGPathElement>(`.react-flow__edge[data-id="${CSS.escape(id)}"] path.react-flow__edge-path`)!;
      const end = path.getPointAtLength(path.getTotalLength()).matrixTransform(path.getScreenCTM()!);
      const box = label.getBoundingClientRect();
      return { id, clearX: end.x - box.right, clearY: Math.max(box.top - end.y, end.y - box.bottom) };
    }),
  );
}

/**
 * Waits until a React Flow viewport (`.react-flow__viewport`) holds still — two reads of its
 * transform in a row alike, a poll interval apart — and answers that transform. The first view is
 * set once the cards are measured (fitView), which may come a moment after they show: a transform
 * read before that is not the one the page settles on.
 */
export async function settledTransform(viewport: Locator): Promise<string> {
  let last = '';
  await expect.poll(async () => {
    const t = await viewport.evaluate((e) => getComputedStyle(e).transform);
    const same = t === last;
    last = t;
    return same;
  }).toBe(true);
  return last;
}

/** The zoom of a CSS transform as settledTransform answers it (`matrix(a, …)`: a; `none`: 1). */
export function zoomOf(transform: string): number {
  const m = /^matrix\(([^,]+),/.exec(transform);
  return m ? Number(m[1]) : 1;
}

