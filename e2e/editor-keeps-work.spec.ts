import { expect, test, type Locator, type Page } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { centreOf, dragConnect, ensureReachable } from './helpers/dag.ts';

// The DAG editor keeps the operator's work: every way out of the page asks first, every edit can be undone and
// redone from the keyboard, palette items can be dragged to a drop point, new steps never land on top of others,
// and a refusal message never moves the canvas under the pointer.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

type JobView = { id: string; key: string; version: number; steps: { key: string }[]; edges: { from: string; to: string }[] };

/** A manual job with three unconnected builtin.noop steps laid out in a row, created through the REST API. */
async function createJob(): Promise<JobView> {
  return api<JobView>('POST', '/jobs', {
    key: `e2e.keep.${uniq()}`,
    name: 'E2E editor keeps work',
    schedule: { kind: 'manual' },
    steps: ['extract', 'transform', 'load'].map((key, i) => ({ key, handler: 'builtin.noop', position: { x: i * 280, y: 0 } })),
    edges: [],
  });
}

async function openGraph(page: Page, jobId: string): Promise<Locator> {
  await page.goto(`/jobs/${jobId}?tab=graph`);
  const editor = page.getByTestId('dag-editor');
  await expect(editor).toBeVisible();
  await expect(page.getByTestId('dag-node-load')).toBeVisible();
  return editor;
}

/** Drags a step card by the mouse (from its centre, by dx/dy screen px). */
async function dragNode(page: Page, node: Locator, dx: number, dy: number): Promise<void> {
  await ensureReachable(page, node);
  const c = await centreOf(node);
  await page.mouse.move(c.x, c.y);
  await page.mouse.down();
  await page.mouse.move(c.x + dx, c.y + dy, { steps: 12 });
  await page.mouse.up();
}

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && a.x + a.width > b.x && a.y < b.y + b.height && a.y + a.height > b.y;

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page);
});

test('Ctrl+Z / Ctrl+Shift+Z undo and redo a drag, a connection, a field edit and a delete', async ({ page }) => {
  const job = await createJob();
  const editor = await openGraph(page, job.id);
  const dirty = page.getByTestId('dag-dirty');
  const edges = editor.locator('.react-flow__edge');
  const load = page.getByTestId('dag-node-load');

  // A drag is one step: undo puts the card back where it was and the editor is clean again.
  const before = (await load.boundingBox())!;
  await dragNode(page, load, 0, 140);
  await expect(dirty).toBeVisible();
  const moved = (await load.boundingBox())!;
  expect(moved.y - before.y).toBeGreaterThan(80);
  await page.keyboard.press('Control+z');
  await expect(dirty).toBeHidden();
  await expect.poll(async () => Math.round((await load.boundingBox())!.y)).toBe(Math.round(before.y));
  await page.keyboard.press('Control+Shift+z');
  await expect(dirty).toBeVisible();
  await expect.poll(async () => Math.round((await load.boundingBox())!.y)).toBe(Math.round(moved.y));
  await page.keyboard.press('Control+z');
  await expect(dirty).toBeHidden();

  // A connection dragged with the mouse, undone and redone.
  await dragConnect(page, page.getByTestId('dag-handle-source-extract'), page.getByTestId('dag-handle-target-transform'));
  await expect(edges).toHaveCount(1);
  await page.keyboard.press('Control+z');
  await expect(edges).toHaveCount(0);
  await page.keyboard.press('Control+Shift+z');
  await expect(edges).toHaveCount(1);

  // Typing in the side panel is one step, undone with the toolbar button and with the keyboard in the field.
  await page.getByTestId('dag-node-transform').click();
  const name = page.getByTestId('dag-step-panel').getByLabel('Name', { exact: true });
  await name.fill('');
  await name.pressSequentially('Clean up');
  await expect(page.getByTestId('dag-node-transform')).toContainText('Clean up');
  await name.press('Control+z');
  await expect(name).toHaveValue('');
  await expect(page.getByTestId('dag-node-transform')).not.toContainText('Clean');
  await page.getByTestId('dag-redo').click();
  await expect(page.getByTestId('dag-node-transform')).toContainText('Clean up');

  // Delete with the keyboard removes the step and its edge; one Ctrl+Z brings both back.
  await page.getByTestId('dag-node-extract').click();
  await page.keyboard.press('Delete');
  await expect(page.getByTestId('dag-node-extract')).toHaveCount(0);
  await expect(edges).toHaveCount(0);
  await page.keyboard.press('Control+z');
  await expect(page.getByTestId('dag-node-extract')).toBeVisible();
  await expect(edges).toHaveCount(1);

  // Undo all the way back: clean, Save disabled.
  for (let i = 0; i < 2; i++) await page.getByTestId('dag-undo').click();
  await expect(page.getByTestId('dag-undo')).toBeDisabled();
  await expect(dirty).toBeHidden();
  await expect(page.getByTestId('dag-save')).toBeDisabled();
});

test('a handler dragged from the palette lands where it is dropped; clicks place new steps beside the selection, never on another', async ({ page }) => {
  const job = await createJob();
  await openGraph(page, job.id);
  const pane = (await page.locator('.react-flow__pane').boundingBox())!;

  // Drag builtin.echo from the palette and drop it below "transform".
  const transform = (await page.getByTestId('dag-node-transform').boundingBox())!;
  const drop = { x: transform.x + transform.width / 2, y: Math.min(transform.y + transform.height + 120, pane.y + pane.height - 140) };
  await page.getByTestId('dag-palette-builtin.echo').dragTo(page.locator('.react-flow__pane'), { targetPosition: { x: drop.x - pane.x, y: drop.y - pane.y } });
  const echo = page.getByTestId('dag-node-echo');
  await expect(echo).toBeVisible();
  const echoBox = (await echo.boundingBox())!;
  expect(Math.abs(echoBox.x + echoBox.width / 2 - drop.x)).toBeLessThan(40);
  expect(Math.abs(echoBox.y + echoBox.height / 2 - drop.y)).toBeLessThan(40);
  await expect(page.getByTestId('dag-dirty')).toBeVisible();

  // With "extract" selected, three clicks on the palette add three steps to its right, none covering another.
  await page.getByTestId('dag-node-extract').click();
  const extract = (await page.getByTestId('dag-node-extract').boundingBox())!;
  await page.getByTestId('dag-palette-builtin.noop').click();
  const first = (await page.getByTestId('dag-node-noop').boundingBox())!;
  expect(first.x).toBeGreaterThan(extract.x + extract.width - 1);
  await page.getByTestId('dag-palette-builtin.noop').click();
  await page.getByTestId('dag-palette-builtin.noop').click();
  await expect(page.getByTestId('dag-node-noop-3')).toBeVisible();
  const boxes = await page.locator('.react-flow__node').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as { x: number; y: number; width: number; height: number }));
  expect(boxes).toHaveLength(7);
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlaps(boxes[i]!, boxes[j]!), `steps ${i} and ${j} overlap`).toBe(false);
  await page.getByTestId('dag-editor').screenshot({ path: 'e2e/__screenshots__/dag-editor-palette-drop.png' });
});

test('a refused connection explains itself without moving the canvas', async ({ page }) => {
  const job = await api<JobView>('POST', '/jobs', {
    key: `e2e.keep.${uniq()}`,
    name: 'E2E refusal',
    schedule: { kind: 'manual' },
    steps: ['a', 'b'].map((key, i) => ({ key, handler: 'builtin.noop', position: { x: i * 280, y: 80 } })),
    edges: [{ from: 'a', to: 'b', type: 'hard' }],
  });
  await page.goto(`/jobs/${job.id}?tab=graph`);
  await expect(page.getByTestId('dag-node-b')).toBeVisible();
  const canvas = page.locator('.react-flow');
  const before = await canvas.boundingBox();
  const nodeBefore = await page.getByTestId('dag-node-a').boundingBox();
  await dragConnect(page, page.getByTestId('dag-handle-source-b'), page.getByTestId('dag-handle-target-a'));
  await expect(page.getByTestId('dag-alert')).toContainText('Refused: would create a cycle b -> a -> b');
  expect(await canvas.boundingBox()).toEqual(before);
  expect(await page.getByTestId('dag-node-a').boundingBox()).toEqual(nodeBefore);
  // Starting the next drag clears the old refusal; the graph still does not move.
  const from = await centreOf(page.getByTestId('dag-handle-source-a'));
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x + 30, from.y + 30, { steps: 5 });
  await expect(page.getByTestId('dag-alert')).toBeHidden();
  expect(await page.getByTestId('dag-node-a').boundingBox()).toEqual(nodeBefore);
  await page.mouse.up();
});

test('unsaved changes: tabs, links and Back ask in the console\'s dialog, reload with the browser\'s; Keep editing keeps the work, Leave goes', async ({ page }) => {
  const job = await createJob();
  const editor = await openGraph(page, job.id);
  const dirty = page.getByTestId('dag-dirty');
  const dialog = page.getByRole('alertdialog');
  // Inside the app nothing asks with the browser's own confirm(); only reload does (beforeunload).
  const native: string[] = [];
  page.on('dialog', (d) => {
    native.push(d.type());
    void d.dismiss();
  });
  await dragConnect(page, page.getByTestId('dag-handle-source-extract'), page.getByTestId('dag-handle-target-transform'));
  await expect(dirty).toBeVisible();

  // The job's own tabs.
  await page.getByRole('tab', { name: 'Overview' }).click();
  await expect(page.getByRole('alertdialog', { name: 'Unsaved changes' })).toContainText('The graph has unsaved changes. Leave and discard them?');
  await dialog.getByRole('button', { name: 'Keep editing' }).click();
  await expect(dialog).toBeHidden();
  await expect(editor).toBeVisible();
  await expect(dirty).toBeVisible();

  // A link in the sidebar.
  await page.getByRole('link', { name: 'Runs', exact: true }).first().click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Keep editing' }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}`));
  await expect(dirty).toBeVisible();

  // The browser's Back button; Escape keeps the work as Keep editing does.
  await page.goBack();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}\\?tab=graph`));
  await expect(dirty).toBeVisible();
  await expect(editor.locator('.react-flow__edge')).toHaveCount(1);
  expect(native).toEqual([]);

  // Reload: the browser's own prompt, the only one a browser allows there.
  await page.reload({ timeout: 5_000 }).catch(() => undefined);
  await expect.poll(() => native).toEqual(['beforeunload']);
  await expect(dirty).toBeVisible();

  // Discard asks in the same dialog; Keep editing keeps the edge, Discard drops it.
  await page.getByTestId('dag-discard').click();
  await expect(page.getByRole('alertdialog', { name: 'Discard your unsaved changes to the graph?' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Keep editing' }).click();
  await expect(dialog).toBeHidden();
  await expect(editor.locator('.react-flow__edge')).toHaveCount(1);
  await page.getByTestId('dag-discard').click();
  await dialog.getByRole('button', { name: 'Discard', exact: true }).click();
  await expect(editor.locator('.react-flow__edge')).toHaveCount(0);
  await expect(dirty).toBeHidden();

  // Edit again and agree to leave through a tab: the Overview shows, nothing was saved.
  await dragConnect(page, page.getByTestId('dag-handle-source-transform'), page.getByTestId('dag-handle-target-load'));
  await expect(dirty).toBeVisible();
  await page.getByRole('tab', { name: 'Overview' }).click();
  await dialog.getByRole('button', { name: 'Leave', exact: true }).click();
  await expect(editor).toBeHidden();
  expect((await api<JobView>('GET', `/jobs/${job.id}`)).edges).toEqual([]);

  // Edit again and agree to leave through a sidebar link: the runs list opens.
  await page.getByRole('tab', { name: 'Graph' }).click();
  await expect(page.getByTestId('dag-node-load')).toBeVisible();
  await dragConnect(page, page.getByTestId('dag-handle-source-extract'), page.getByTestId('dag-handle-target-load'));
  await expect(dirty).toBeVisible();
  await page.getByRole('link', { name: 'Runs', exact: true }).first().click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Leave', exact: true }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(dialog).toBeHidden();
  expect((await api<JobView>('GET', `/jobs/${job.id}`)).edges).toEqual([]);
  expect(native).toEqual(['beforeunload']);
});

test('a job-page tab asks exactly once after a graph edit: Keep editing stays on the graph with the edit, Leave leaves', async ({ page }) => {
  const job = await createJob();
  const editor = await openGraph(page, job.id);
  const dirty = page.getByTestId('dag-dirty');
  const dialog = page.getByRole('alertdialog');
  await page.getByTestId('dag-node-extract').click();
  await page.keyboard.press('Delete');
  await expect(page.getByTestId('dag-node-extract')).toHaveCount(0);
  await expect(dirty).toBeVisible();
  const native: string[] = [];
  page.on('dialog', (d) => {
    native.push(d.type());
    void d.dismiss();
  });

  await page.getByRole('tab', { name: 'Overview' }).click();
  await expect(dialog).toContainText('Leave and discard them?');
  await dialog.getByRole('button', { name: 'Keep editing' }).click();
  await expect(dialog).toBeHidden();
  // A second question would come right after the first: give it the time to show.
  await page.waitForTimeout(500);
  await expect(dialog).toBeHidden();
  await expect(editor).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Graph' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('dag-node-extract')).toHaveCount(0);
  await expect(dirty).toBeVisible();

  await page.getByRole('tab', { name: 'Overview' }).click();
  await dialog.getByRole('button', { name: 'Leave', exact: true }).click();
  await expect(editor).toBeHidden();
  await expect(page.getByRole('tab', { name: 'Overview' })).toHaveAttribute('aria-selected', 'true');
  await page.waitForTimeout(500);
  await expect(dialog).toBeHidden();
  expect(native).toEqual([]);
  expect((await api<JobView>('GET', `/jobs/${job.id}`)).steps).toHaveLength(3);
});
