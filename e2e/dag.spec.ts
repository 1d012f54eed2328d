import { expect, test, type Locator, type Page } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { dragConnect, edgeLabelClearances, settledTransform, smallestCardText, zoomOf } from './helpers/dag.ts';

// Playwright: build a 3-step DAG by dragging two connections with the mouse, save, reload and
// see it persisted; try to close a cycle and see it refused; Run now and watch the run's nodes turn green.
// Selectors are the DAG editor's stable test ids (components/dag): dag-editor, dag-node-<key>,
// dag-handle-source-<key>, dag-handle-target-<key>, dag-save, dag-dirty, dag-alert, dag-edge-type-<type>,
// and run-node-<key> with data-status on the run page (components/dag/RunGraph).

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
const STEPS = ['extract', 'transform', 'load'] as const;

type JobView = { id: string; key: string; version: number; steps: { key: string; position: { x: number; y: number } }[]; edges: { from: string; to: string; type: string }[] };

/** A manual job with three unconnected builtin.noop steps, created through the REST API (Bearer token). */
async function createThreeStepJob(): Promise<JobView> {
  return api<JobView>('POST', '/jobs', {
    key: `e2e.dag.${uniq()}`,
    name: 'E2E DAG editor',
    schedule: { kind: 'manual' },
    steps: STEPS.map((key) => ({ key, handler: 'builtin.noop' })),
    edges: [],
  });
}

async function openGraphTab(page: Page, jobId: string): Promise<Locator> {
  await page.goto(`/jobs/${jobId}?tab=graph`);
  const editor = page.getByTestId('dag-editor');
  if (!(await editor.isVisible().catch(() => false))) {
    // The tab may not follow ?tab= in every build: fall back to clicking it.
    await page.getByRole('tab', { name: 'Graph' }).click();
  }
  await expect(editor).toBeVisible();
  for (const k of STEPS) await expect(page.getByTestId(`dag-node-${k}`)).toBeVisible();
  return editor;
}

test.beforeEach(async ({ page }) => {
  await login(page);
});

test('drag two connections, refuse a cycle, save, reload, run and watch the nodes turn green', async ({ page }, testInfo) => {
  // The whole journey, including a real run by the worker: more than the default 60 s on a loaded machine.
  test.setTimeout(120_000);
  const job = await createThreeStepJob();
  const editor = await openGraphTab(page, job.id);
  const edgesOnCanvas = editor.locator('.react-flow__edge');
  await expect(edgesOnCanvas).toHaveCount(0);

  // extract -> transform (hard, the default type), then transform -> load as a soft dependency.
  await expect(page.getByTestId('dag-edge-type-hard')).toHaveAttribute('aria-pressed', 'true');
  await dragConnect(page, page.getByTestId('dag-handle-source-extract'), page.getByTestId('dag-handle-target-transform'));
  await expect(edgesOnCanvas).toHaveCount(1);
  await page.getByTestId('dag-edge-type-soft').click();
  await dragConnect(page, page.getByTestId('dag-handle-source-transform'), page.getByTestId('dag-handle-target-load'));
  await expect(edgesOnCanvas).toHaveCount(2);
  await expect(page.getByTestId('dag-dirty')).toBeVisible();

  // load -> extract would close extract -> transform -> load -> extract: refused while dragging, with the reason,
  // and the drop explains itself in the alert banner.
  const cycle = 'Refused: would create a cycle load -> extract -> transform -> load';
  await dragConnect(page, page.getByTestId('dag-handle-source-load'), page.getByTestId('dag-handle-target-extract'), async () => {
    await expect(page.getByTestId('dag-connection-hint')).toContainText(cycle);
  });
  await expect(page.getByTestId('dag-connection-hint')).toBeHidden();
  const alert = page.getByTestId('dag-alert');
  await expect(alert).toBeVisible();
  await expect(alert).toHaveAttribute('role', 'alert');
  await expect(alert).toContainText(cycle);
  await expect(edgesOnCanvas).toHaveCount(2);

  // Save: a new job version; the unsaved indicator goes away.
  await page.getByTestId('dag-save').click();
  await expect(page.getByTestId('dag-dirty')).toBeHidden();
  await expect(page.getByTestId('dag-status')).toContainText('Saved');

  // Persisted on the server...
  const saved = await api<JobView>('GET', `/jobs/${job.id}`);
  expect(saved.version).toBeGreaterThan(job.version);
  expect(saved.edges.map((e) => `${e.from}>${e.to}:${e.type}`).sort()).toEqual(['extract>transform:hard', 'transform>load:soft']);

  // ...and after a reload the editor draws both edges again, not dirty.
  await page.reload();
  const reloaded = await openGraphTab(page, job.id);
  await expect(reloaded.locator('.react-flow__edge')).toHaveCount(2);
  await expect(page.getByTestId('dag-dirty')).toBeHidden();

  // Moving a box is layout, not configuration (docs/console.md "Versions and layout"): the save stores where it
  // sits and makes no new job version, and the editor says so.
  const box = (await page.getByTestId('dag-node-load').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2 + 90, { steps: 8 });
  await page.mouse.up();
  await expect(page.getByTestId('dag-dirty')).toBeVisible();
  await page.getByTestId('dag-save').click();
  await expect(page.getByTestId('dag-status')).toContainText('Saved the layout');
  await expect(page.getByTestId('dag-dirty')).toBeHidden();
  const laidOut = await api<JobView>('GET', `/jobs/${job.id}`);
  expect(laidOut.version).toBe(saved.version);
  const where = (j: JobView) => j.steps.find((s) => s.key === 'load')!.position;
  expect(where(laidOut)).not.toEqual(where(saved));

  // Run now: the run page shows the same graph read-only; every node turns green.
  await page.getByRole('button', { name: 'Run now', exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}/);
  for (const k of STEPS) {
    await expect(page.getByTestId(`run-node-${k}`)).toHaveAttribute('data-status', 'success', { timeout: 30_000 });
  }
  const shot = testInfo.outputPath('run-graph-green.png');
  await page.getByTestId('run-graph').screenshot({ path: shot });
  await testInfo.attach('run-graph-green', { path: shot, contentType: 'image/png' });
});

test('add a step from the palette, connect it and delete it with the keyboard', async ({ page }) => {
  const job = await createThreeStepJob();
  await openGraphTab(page, job.id);
  const palette = page.getByTestId('dag-palette');
  await expect(palette).toBeVisible();
  await page.getByTestId('dag-palette-builtin.noop').click();
  // Auto key: the handler's last segment ("noop"), selected and shown in the side panel.
  const added = page.getByTestId('dag-node-noop');
  await expect(added).toBeVisible();
  await expect(page.getByTestId('dag-step-panel')).toBeVisible();
  await expect(page.getByTestId('dag-dirty')).toBeVisible();

  // Backspace while typing in the panel edits the field, it does not delete the step.
  const keyField = page.getByTestId('dag-step-panel').getByLabel('Key', { exact: true });
  await keyField.fill('noop2');
  await keyField.press('Backspace');
  await expect(page.getByTestId('dag-node-noop')).toBeVisible();

  // Invalid payload JSON is shown next to the field and blocks the save.
  const payload = page.getByTestId('dag-step-panel').getByLabel('Payload (JSON object)', { exact: true });
  await payload.fill('{ not json');
  await expect(page.getByTestId('dag-step-panel')).toContainText('Invalid JSON');
  await page.getByTestId('dag-save').click();
  await expect(page.getByTestId('dag-alert')).toContainText('Fix the highlighted fields');
  // each problem names its field by the panel's label, not the input's property name ("(payload)")
  await expect(page.getByTestId('dag-alert')).toContainText('Step "noop", Payload (JSON object): Invalid JSON');
  await payload.fill('{"n": 1}');

  // Connect it: load -> noop, dragged like the others.
  const edgesOnCanvas = page.getByTestId('dag-editor').locator('.react-flow__edge');
  await dragConnect(page, page.getByTestId('dag-handle-source-load'), page.getByTestId('dag-handle-target-noop'));
  await expect(edgesOnCanvas).toHaveCount(1);

  // Delete the selected step with the keyboard (focus on the canvas node, not in an input).
  await added.click();
  await page.keyboard.press('Delete');
  await expect(page.getByTestId('dag-node-noop')).toHaveCount(0);
  await expect(edgesOnCanvas).toHaveCount(0);
  // Back to the saved graph: nothing to save.
  await expect(page.getByTestId('dag-dirty')).toBeHidden();
});

/** The demo's shape (README: demo.db-migration): 7 steps in 5 ranks, laid out by dagre since no step has a position. */
const SEVEN_STEPS = {
  steps: ['extract', 'transform', 'validate_a', 'validate_b', 'validate_c', 'rebuild_index', 'compensate'].map((key) => ({ key, handler: 'builtin.noop' })),
  edges: [
    { from: 'extract', to: 'transform', type: 'hard' },
    { from: 'transform', to: 'validate_a', type: 'hard' },
    { from: 'transform', to: 'validate_b', type: 'soft' },
    { from: 'transform', to: 'validate_c', type: 'hard' },
    { from: 'validate_a', to: 'rebuild_index', type: 'hard' },
    { from: 'validate_b', to: 'rebuild_index', type: 'hard' },
    { from: 'validate_c', to: 'rebuild_index', type: 'hard' },
    { from: 'rebuild_index', to: 'compensate', type: 'on_failure' },
  ],
};

test('a 7-step graph opens whole and readable: compact cards, keys at 10px or more, its roots right of the Controls', async ({ page }, info) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const job = await api<JobView>('POST', '/jobs', { key: `e2e.dag.legible.${uniq()}`, name: 'Legible', schedule: { kind: 'manual' }, ...SEVEN_STEPS });
  await page.goto(`/jobs/${job.id}?tab=graph`);
  const editor = page.getByTestId('dag-editor');
  const root = page.getByTestId('dag-node-extract');
  await expect(root).toBeVisible();
  // it used to open at 0.92 from its roots, its last ranks off the canvas
  await expect.poll(() => allCardsInside(editor, '.react-flow__node')).toBe(true);
  // fitView's minZoom of 0.5 drew this graph's 11-13px text at about 6px; zoomed out, a card shows its key alone
  await expect(editor.locator('[data-compact-card]')).toHaveCount(7);
  await expect.poll(() => smallestCardText(editor)).toBeGreaterThanOrEqual(10);
  const pane = (await editor.locator('.react-flow').boundingBox())!;
  const b = (await root.boundingBox())!;
  expect(b.x).toBeGreaterThanOrEqual(pane.x + 40);
  // zoomed in past COMPACT_ZOOM (components/dag/canvas.ts) the cards show their details again
  for (let i = 0; i < 3; i++) await editor.locator('.react-flow__controls-zoomin').click();
  await expect(editor.locator('[data-compact-card]')).toHaveCount(0);
  await expect(root).toContainText('builtin.noop');
  await editor.screenshot({ path: info.outputPath('editor-legible.png') });
});

test('edge type labels stay clear of the arrowheads, also between cards placed close together', async ({ page }, info) => {
  // Cards 80px apart (the default rank gap is 120): the middle of the edge is 32px from the tip, "on failure" is ~76px wide.
  // At 1440 px the graph opens above COMPACT_ZOOM (components/dag/canvas.ts), where the edges carry their labels.
  await page.setViewportSize({ width: 1440, height: 900 });
  const job = await api<JobView>('POST', '/jobs', {
    key: `e2e.dag.labels.${uniq()}`,
    name: 'Edge labels',
    schedule: { kind: 'manual' },
    steps: [
      { key: 'load', handler: 'builtin.noop', position: { x: 0, y: 0 } },
      { key: 'undo', handler: 'builtin.noop', position: { x: 280, y: 0 } },
      { key: 'report', handler: 'builtin.noop', position: { x: 560, y: 120 } },
    ],
    edges: [
      { from: 'load', to: 'undo', type: 'on_failure' },
      { from: 'undo', to: 'report', type: 'soft' },
    ],
  });
  await page.goto(`/jobs/${job.id}?tab=graph`);
  const editor = page.getByTestId('dag-editor');
  await expect(editor.locator('[data-edge-id]')).toHaveCount(2);
  const zoom = zoomOf(await settledTransform(editor.locator('.react-flow__viewport')));
  // the arrowhead is 9 x 14.4 px at zoom 1 (model.ts withEdgeType: 18 stroke widths, 2px stroke)
  for (const c of await edgeLabelClearances(editor)) {
    expect(c.clearX >= 9 * zoom || c.clearY >= 7.2 * zoom, `label of ${c.id}: ${JSON.stringify(c)}`).toBe(true);
  }
  await editor.screenshot({ path: info.outputPath('edge-labels.png') });
});

test('palette clicks put each new step on screen, never on another, without moving the view off the steps already seen', async ({ page }) => {
  // A new user added three steps beside a first one: they used to line up to the right, the view panning after
  // them, until the first steps were off the canvas.
  const job = await api<JobView>('POST', '/jobs', {
    key: `e2e.dag.palette.${uniq()}`,
    name: 'Palette placement',
    schedule: { kind: 'manual' },
    steps: [{ key: 'only', handler: 'builtin.noop' }],
    edges: [],
  });
  await page.goto(`/jobs/${job.id}?tab=graph`);
  const editor = page.getByTestId('dag-editor');
  const viewport = editor.locator('.react-flow__viewport');
  await expect(page.getByTestId('dag-node-only')).toBeVisible();
  // the first view is set once the card is measured: wait until it holds still
  const before = await settledTransform(viewport);
  const pane = (await editor.locator('.react-flow').boundingBox())!;
  type Box = { x: number; y: number; width: number; height: number };
  const box = (k: string) => page.getByTestId(`dag-node-${k}`).evaluate((e) => e.getBoundingClientRect().toJSON() as Box);
  const onScreen = (b: Box) => b.x >= pane.x && b.y >= pane.y && b.x + b.width <= pane.x + pane.width && b.y + b.height <= pane.y + pane.height;

  await page.getByTestId('dag-node-only').click();
  const add = page.getByTestId('dag-palette-builtin.noop');
  const keys = ['only', 'noop', 'noop-2', 'noop-3'];
  for (const key of keys.slice(1)) {
    await add.click();
    await expect(page.getByTestId(`dag-node-${key}`)).toBeVisible();
  }
  // the view did not move, and every step, the first one too, is on screen, none covering another
  expect(await viewport.evaluate((e) => getComputedStyle(e).transform)).toBe(before);
  const all = await Promise.all(keys.map(async (k) => ({ k, b: await box(k) })));
  for (const { k, b } of all) expect(onScreen(b), `${k} off the canvas: ${JSON.stringify(b)}`).toBe(true);
  for (let i = 0; i < all.length; i++)
    for (let j = i + 1; j < all.length; j++) {
      const [a, b] = [all[i]!.b, all[j]!.b];
      expect(a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height, `${all[i]!.k} covers ${all[j]!.k}`).toBe(false);
    }
});

/** Whether every card under `canvas` lies inside its React Flow pane. */
async function allCardsInside(canvas: Locator, cards: string): Promise<boolean> {
  const pane = (await canvas.locator('.react-flow').boundingBox())!;
  const boxes = await canvas.locator(cards).evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ x: r.x, y: r.y, w: r.width, h: r.height })));
  return boxes.length > 0 && boxes.every((b) => b.x >= pane.x - 1 && b.y >= pane.y - 1 && b.x + b.w <= pane.x + pane.width + 1 && b.y + b.h <= pane.y + pane.height + 1);
}

test('a 10-step chain opens whole at 1440 x 900, compact and readable, and Fit shows it whole again, in the editor and in the run graph', async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const keys = Array.from({ length: 10 }, (_, i) => `s${i + 1}`);
  const job = await api<JobView>('POST', '/jobs', {
    key: `e2e.dag.fit.${uniq()}`,
    name: 'Ten steps',
    schedule: { kind: 'manual' },
    steps: keys.map((key) => ({ key, handler: 'builtin.noop' })),
    edges: keys.slice(1).map((to, i) => ({ from: keys[i]!, to, type: 'hard' })),
  });
  await page.goto(`/jobs/${job.id}?tab=graph`);
  const editor = page.getByTestId('dag-editor');
  await expect(page.getByTestId('dag-node-s1')).toBeVisible();
  // the first view shows the whole chain, some 3,080 px (it opened at 0.92 from s1, seven steps off the canvas) ...
  await expect.poll(() => allCardsInside(editor, '.react-flow__node')).toBe(true);
  // ... compact: each card its key alone, large enough to read; the edges' type labels are left out at that zoom
  await expect(editor.locator('[data-compact-card]')).toHaveCount(10);
  await expect.poll(() => smallestCardText(editor)).toBeGreaterThanOrEqual(10);
  await expect(editor.locator('[data-edge-label]')).toHaveCount(0);
  // hovering a card names its step whole
  await expect(page.getByTestId('dag-node-s10').locator('[title]').first()).toHaveAttribute('title', 's10 · builtin.noop');
  await editor.locator('.react-flow__controls-zoomin').click();
  await expect.poll(() => allCardsInside(editor, '.react-flow__node')).toBe(false);
  // at Fit's old floor (zoom 0.5) the chain left its last steps off the canvas
  await page.getByTestId('dag-fit').click();
  await expect.poll(() => allCardsInside(editor, '.react-flow__node')).toBe(true);
  // the canvas's own Fit button (Controls) does the same
  await editor.locator('.react-flow__controls-zoomin').click();
  await expect.poll(() => allCardsInside(editor, '.react-flow__node')).toBe(false);
  await editor.locator('.react-flow__controls-fitview').click();
  await expect.poll(() => allCardsInside(editor, '.react-flow__node')).toBe(true);

  const run = await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {});
  await page.goto(`/runs/${run.id}`);
  const graph = page.getByTestId('run-graph');
  await expect(graph.getByTestId('run-node-s1')).toBeVisible();
  await expect.poll(() => allCardsInside(graph, '.react-flow__node')).toBe(true);
  await expect.poll(() => smallestCardText(graph)).toBeGreaterThanOrEqual(10);
  await graph.locator('.react-flow__controls-zoomin').click();
  await graph.locator('.react-flow__controls-fitview').click();
  await expect.poll(() => allCardsInside(graph, '.react-flow__node')).toBe(true);
  await expect(graph.getByTestId('run-node-s10').locator('[title]').first()).toHaveAttribute('title', /^s10 · /);
});
