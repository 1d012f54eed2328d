import { expect, test, type Locator } from '@playwright/test';
import { api, runReaches } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { E2E_ADMIN } from './helpers/env.ts';
import { settledTransform } from './helpers/dag.ts';
import { expectFitsScreen } from './helpers/layout.ts';

// The console on a phone-sized screen (390 px): the sidebar gives its width to the page and the top
// bar's menu opens the same navigation (components/shell/mobile-nav.tsx); no page is wider than the
// screen, so nothing needs a sideways scroll of the whole page (wide tables scroll inside their card).

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await login(page);
});

test('390 px: the menu opens the navigation, follows a link and closes; the sidebar is back at 1280 px', async ({ page }) => {
  await page.goto('/');
  const sidebar = page.locator('nav[aria-label="Main"]').first();
  await expect(sidebar).toBeHidden();
  await page.getByRole('button', { name: 'Open navigation' }).click();
  const menu = page.getByRole('dialog', { name: 'Navigation' });
  await expect(menu).toBeVisible();
  await menu.getByRole('link', { name: 'Runs' }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(menu).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Runs', level: 1 })).toBeVisible();

  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByRole('button', { name: 'Open navigation' })).toBeHidden();
  await expect(sidebar).toBeVisible();
  await expect(sidebar.getByRole('link', { name: 'Workers' })).toBeVisible();
});

// The same rule at 1280 px is checked on every page by e2e/console-errors.spec.ts, which visits them
// all at that width anyway.
test('390 px: no page is wider or taller than the screen (only the content scrolls), the top bar keeps Sign out', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.narrow.390.${Date.now().toString(36)}`, name: 'Narrow screen', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  // a pause and a resume: versions whose Rollback is disabled with a screen-reader reason
  await api('POST', `/jobs/${job.id}/pause`, {});
  await api('POST', `/jobs/${job.id}/resume`, {});
  const run = await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {});
  for (const path of ['/', '/jobs', '/runs', '/logs?q=narrow', '/workers', '/stats', '/alarms', '/recycle-bin', `/jobs/${job.id}`, `/jobs/${job.id}?tab=versions`, `/runs/${run.id}`]) {
    await page.goto(path);
    await expectFitsScreen(page, path);
  }
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
});

test('390 px: the DAG editor stacks its palette, canvas and selection, and the canvas keeps the screen width', async ({ page }) => {
  const steps = ['main', 'transform', 'load'];
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.narrow.dag.${Date.now().toString(36)}`,
    name: 'Narrow DAG',
    schedule: { kind: 'manual' },
    steps: steps.map((key) => ({ key, handler: 'builtin.noop' })),
    edges: [{ from: 'main', to: 'transform' }, { from: 'transform', to: 'load' }],
  });
  await page.goto(`/jobs/${job.id}?tab=graph`);
  await expect(page.getByTestId('dag-editor')).toBeVisible();
  const canvas = page.getByTestId('dag-editor').locator('.react-flow').first();
  const box = (await canvas.boundingBox())!;
  expect(box.width).toBeGreaterThan(300);
  expect(box.height).toBeGreaterThan(300);
  for (const k of steps) await expect(page.getByTestId(`dag-node-${k}`)).toBeVisible();
});

type Box = { x: number; y: number; width: number; height: number };
const inside = (b: Box, width: number) => b.x >= 0 && b.x + b.width <= width;
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test('390 px: a worker is a compact card, its Drain button in view without a sideways scroll, its handlers a count that opens them', async ({ page }) => {
  await page.goto('/workers');
  // the e2e worker: online, so it offers Drain, and it lists every handler it runs
  const row = page.getByTestId('worker-row').filter({ has: page.getByRole('button', { name: 'Drain' }) }).first();
  await expect(row).toBeVisible();
  const drain = row.getByRole('button', { name: 'Drain' });
  const d = (await drain.boundingBox())!;
  expect(inside(d, 390), JSON.stringify(d)).toBe(true);
  const name = (await row.locator('td').first().boundingBox())!;
  expect(overlaps(name, d)).toBe(false);
  const scrolls = await page.getByTestId('workers-table').evaluate((t) => ({ box: t.parentElement!.scrollWidth > t.parentElement!.clientWidth, table: t.scrollWidth > t.clientWidth }));
  expect(scrolls).toEqual({ box: false, table: false });

  const toggle = row.getByTestId('worker-handlers-toggle');
  await expect(toggle).toHaveText(/^\d+ handlers$/);
  const chip = row.getByText('builtin.noop', { exact: true });
  await expect(chip).toBeHidden();
  const closed = (await row.boundingBox())!;
  expect(closed.height).toBeLessThan(200);
  await page.screenshot({ path: test.info().outputPath('workers-390.png') });
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(chip).toBeVisible();
  expect(inside((await chip.boundingBox())!, 390)).toBe(true);
  await toggle.click();
  await expect(chip).toBeHidden();

  // at 1280 px the table is as it was: a header line, the chips in their column, no count
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByTestId('workers-table').locator('thead th').first()).toBeVisible();
  await expect(toggle).toBeHidden();
  await expect(chip).toBeVisible();
  const cells = await row.locator('td').evaluateAll((tds) => tds.map((td) => Math.round(td.getBoundingClientRect().top)));
  expect(new Set(cells).size, 'one table row: every cell starts on the same line').toBe(1);
});

test('390 px: the job header\'s actions form an even grid, Run now first, each button whole and none overlapping', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.narrow.header.${Date.now().toString(36)}`, name: 'Narrow header', schedule: { kind: 'cron', cron: '0 3 * * *', timezone: 'UTC' }, handler: 'builtin.noop' });
  await page.goto(`/jobs/${job.id}`);
  const actions = page.getByTestId('job-actions');
  await expect(actions.getByRole('button', { name: 'Run now', exact: true })).toBeVisible();
  const names = ['Run now', 'Run with payload…', 'Pause', 'Backfill', 'Edit', 'Delete'];
  const boxes: Box[] = [];
  for (const n of names) {
    const control = n === 'Edit' ? actions.getByRole('link', { name: n }) : actions.getByRole('button', { name: n, exact: true });
    await expect(control, n).toBeVisible();
    const b = (await control.boundingBox())!;
    expect(inside(b, 390), `${n}: ${JSON.stringify(b)}`).toBe(true);
    boxes.push(b);
  }
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) expect(overlaps(boxes[i]!, boxes[j]!), `${names[i]} / ${names[j]}`).toBe(false);
  // two rows: Run now (and its payload button) with Pause, then Backfill, Edit and Delete of one width each
  const [run, payload, pause, backfill, edit, del] = boxes as [Box, Box, Box, Box, Box, Box];
  expect(new Set([run.y, payload.y, pause.y].map(Math.round)).size).toBe(1);
  expect(new Set([backfill.y, edit.y, del.y].map(Math.round)).size).toBe(1);
  expect(backfill.y).toBeGreaterThan(run.y + run.height - 1);
  for (const b of [edit, del, pause]) expect(Math.abs(b.width - backfill.width)).toBeLessThanOrEqual(1);
  expect(run.x).toBeLessThanOrEqual(backfill.x + 1);
  await page.screenshot({ path: test.info().outputPath('job-header-390.png'), clip: { x: 0, y: 0, width: 390, height: 300 } });

  // at 1280 px the actions are one row, as they were
  await page.setViewportSize({ width: 1280, height: 800 });
  const ys = [];
  for (const n of names) {
    const control = n === 'Edit' ? actions.getByRole('link', { name: n }) : actions.getByRole('button', { name: n, exact: true });
    ys.push(Math.round((await control.boundingBox())!.y));
  }
  expect(new Set(ys).size, ys.join(' ')).toBe(1);
});

test('390 px: the time axes of the overview and of a run\'s Timeline write labels that do not overlap', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.narrow.axes.${Date.now().toString(36)}`, name: 'Narrow axes', schedule: { kind: 'cron', cron: '*/10 * * * *', timezone: 'UTC' }, handler: 'builtin.noop' });
  const run = await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {});
  await runReaches(run.id, 'success');
  const boxes = async (testId: string) => {
    const out: { x: number; right: number }[] = [];
    for (const label of await page.getByTestId(testId).all()) {
      if (!(await label.isVisible())) continue;
      const b = (await label.boundingBox())!;
      out.push({ x: b.x, right: b.x + b.width });
    }
    return out.sort((a, b) => a.x - b.x);
  };
  for (const [path, testId, atLeast] of [['/', 'next-fires-tick', 3], [`/runs/${run.id}`, 'gantt-tick', 2]] as const) {
    await page.goto(path);
    await expect(page.getByTestId(testId).first()).toBeAttached();
    const shown = await boxes(testId);
    expect(shown.length, path).toBeGreaterThanOrEqual(atLeast);
    for (let i = 1; i < shown.length; i++) expect(shown[i]!.x, `${path}: label ${i} starts after label ${i - 1} ends`).toBeGreaterThanOrEqual(shown[i - 1]!.right);
    for (const b of shown) expect(b.right, path).toBeLessThanOrEqual(390);
  }
});

test('390 px: the job page\'s tab strip scrolls inside itself, fades the side with more tabs and shows the active tab; at 1280 px it is one plain row', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.narrow.tabs.${Date.now().toString(36)}`, name: 'Narrow tabs', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await page.goto(`/jobs/${job.id}`);
  const strip = page.getByRole('tablist', { name: 'Job sections' });
  await expect(strip.getByRole('tab', { name: 'Overview' })).toBeVisible();
  const state = () =>
    strip.evaluate((el) => ({
      scrolls: el.scrollWidth > el.clientWidth,
      moreStart: el.hasAttribute('data-more-start'),
      moreEnd: el.hasAttribute('data-more-end'),
      mask: getComputedStyle(el).maskImage,
    }));
  // more tabs than fit: the right edge fades, the left does not
  await expect.poll(state).toMatchObject({ scrolls: true, moreStart: false, moreEnd: true });
  expect((await state()).mask).toContain('gradient');
  const within = async (name: string) => {
    const t = (await strip.getByRole('tab', { name }).boundingBox())!;
    const s = (await strip.boundingBox())!;
    return t.x >= s.x - 0.5 && t.x + t.width <= s.x + s.width + 0.5;
  };
  expect(await within('Versions')).toBe(false);
  await page.screenshot({ path: test.info().outputPath('job-tabs-390.png'), clip: { x: 0, y: 0, width: 390, height: 400 } });
  // scrolled to its end: the left edge fades instead
  await strip.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
  await expect.poll(state).toMatchObject({ moreStart: true, moreEnd: false });
  // a link to the last tab opens with that tab in view
  await page.goto(`/jobs/${job.id}?tab=versions`);
  await expect(strip.getByRole('tab', { name: 'Versions' })).toHaveAttribute('data-state', 'active');
  await expect.poll(() => within('Versions')).toBe(true);

  await page.setViewportSize({ width: 1280, height: 800 });
  await expect.poll(state).toEqual({ scrolls: false, moreStart: false, moreEnd: false, mask: 'none' });
});

test('390 px: a run\'s tasks and the runs list are cards, each cell inside the screen, Duration included; at 1280 px they are table rows', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.narrow.tasks.${Date.now().toString(36)}`,
    name: 'Narrow tasks',
    schedule: { kind: 'manual' },
    steps: [{ key: 'extract-with-a-long-step-key', handler: 'builtin.noop' }, { key: 'load', handler: 'builtin.echo' }],
    edges: [{ from: 'extract-with-a-long-step-key', to: 'load' }],
  });
  const run = await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {});
  await runReaches(run.id, 'success');
  for (const [path, table, rows] of [[`/runs/${run.id}`, 'tasks-table', 2], [`/runs?jobId=${job.id}`, 'runs-table', 1]] as const) {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(path);
    const t = page.getByTestId(table);
    await expect(t.locator('tbody tr')).toHaveCount(rows);
    await expect(t.locator('thead th').first()).toBeHidden();
    for (const row of await t.locator('tbody tr').all()) {
      for (const cell of await row.locator('td').all()) {
        if (!(await cell.isVisible())) continue;
        const b = (await cell.boundingBox())!;
        expect(inside(b, 390), `${path}: ${await cell.getAttribute('data-label')} ${JSON.stringify(b)}`).toBe(true);
      }
      const duration = row.locator('td[data-label="duration"]');
      await expect(duration, path).toBeVisible();
      await expect(duration, path).toHaveText(/\d/);
    }
    const scrolls = await t.evaluate((el) => el.parentElement!.scrollWidth > el.parentElement!.clientWidth);
    expect(scrolls, `${path}: the table's box does not scroll`).toBe(false);
    await t.screenshot({ path: test.info().outputPath(`${table}-390.png`) });

    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(t.locator('thead th').first()).toBeVisible();
    const tops = await t.locator('tbody tr').first().locator('td:visible').evaluateAll((tds) => tds.map((td) => Math.round(td.getBoundingClientRect().top)));
    expect(new Set(tops).size, `${path}: one table row at 1280 px`).toBe(1);
  }
});

test('390 px: the overview\'s latest failures, a job\'s steps and versions and the API tokens are cards, every cell and button inside the screen', async ({ page }) => {
  const tag = Date.now().toString(36);
  const job = await api<{ id: string; version: number }>('POST', '/jobs', { key: `e2e.narrow.cards.${tag}`, name: 'Narrow cards', schedule: { kind: 'manual' }, handler: 'builtin.fail', payload: { message: 'a failure with a message long enough to need the whole width of a phone and more' } });
  // a configuration change, so that an earlier version offers Rollback
  const edited = await api<{ version: number }>('PATCH', `/jobs/${job.id}`, { name: 'Narrow cards, edited', expectedVersion: job.version });
  expect(edited.version).toBeGreaterThan(job.version);
  const run = await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {});
  await runReaches(run.id, 'failed');
  const admin = (await api<{ items: { id: string; email: string }[] }>('GET', '/users')).items.find((u) => u.email === E2E_ADMIN.email)!;
  await api('POST', '/tokens', { name: `e2e narrow token ${tag}`, scope: 'read', ownerId: admin.id });
  // the tokens page is the admin's: sign in again as the admin
  await page.context().clearCookies();
  await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
  for (const [path, table, button] of [
    ['/', 'latest-failures', null],
    [`/jobs/${job.id}`, 'steps-table', null],
    [`/jobs/${job.id}?tab=versions`, 'versions-table', 'Rollback'],
    ['/settings/tokens', 'tokens-table', 'Revoke'],
  ] as const) {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(path);
    const t = page.getByTestId(table);
    await expect(t.locator('tbody tr').first(), path).toBeVisible();
    await expect(t.locator('thead th').first(), path).toBeHidden();
    for (const cell of await t.locator('tbody tr').first().locator('td').all()) {
      if (!(await cell.isVisible())) continue;
      const b = (await cell.boundingBox())!;
      expect(inside(b, 390), `${path}: ${JSON.stringify(b)} ${await cell.textContent()}`).toBe(true);
    }
    if (button) {
      const b = t.getByRole('button', { name: button }).first();
      await expect(b, path).toBeVisible();
      expect(inside((await b.boundingBox())!, 390), `${path}: ${button}`).toBe(true);
    }
    await t.screenshot({ path: test.info().outputPath(`${table}-390.png`) });
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(t.locator('thead th').first(), path).toBeVisible();
  }
});

test('390 px: Fit shows every step of a DAG inside the canvas, in the editor and on the run page; the legend covers no MiniMap and keeps each label on one line', async ({ page }) => {
  // The shape a new user's job had (main, then noop and sleep side by side, both into flaky): three ranks, wider than a phone.
  const steps = ['main', 'noop', 'sleep', 'flaky'];
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.narrow.fit.${Date.now().toString(36)}`,
    name: 'Narrow fit',
    schedule: { kind: 'manual' },
    steps: steps.map((key) => ({ key, handler: 'builtin.noop' })),
    edges: [
      { from: 'main', to: 'noop', type: 'hard' },
      { from: 'main', to: 'sleep', type: 'hard' },
      { from: 'noop', to: 'flaky', type: 'soft' },
      { from: 'sleep', to: 'flaky', type: 'hard' },
    ],
  });
  const run = await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {});
  const still = settledTransform;
  const allInside = async (canvas: Locator, where: string) => {
    const pane = (await canvas.boundingBox())!;
    const parts = await canvas.locator('.react-flow__node, .react-flow__handle').evaluateAll((els) => els.map((e) => ({ id: e.closest('.react-flow__node')?.getAttribute('data-id') ?? '', box: e.getBoundingClientRect().toJSON() as Box })));
    expect(parts.length).toBeGreaterThanOrEqual(steps.length * 3);
    for (const p of parts) {
      expect(p.box.x, `${where}: ${p.id} cut off at the left`).toBeGreaterThanOrEqual(pane.x);
      expect(p.box.x + p.box.width, `${where}: ${p.id} cut off at the right`).toBeLessThanOrEqual(pane.x + pane.width);
      expect(p.box.y, `${where}: ${p.id} cut off at the top`).toBeGreaterThanOrEqual(pane.y);
      expect(p.box.y + p.box.height, `${where}: ${p.id} cut off at the bottom`).toBeLessThanOrEqual(pane.y + pane.height);
    }
  };

  // The editor: toolbar Fit, then the legend.
  await page.goto(`/jobs/${job.id}?tab=graph`);
  const editor = page.getByTestId('dag-editor');
  const canvas = editor.locator('.react-flow').first();
  for (const k of steps) await expect(page.getByTestId(`dag-node-${k}`)).toBeAttached();
  await page.getByTestId('dag-fit').click();
  await still(canvas.locator('.react-flow__viewport'));
  await allInside(canvas, 'editor');
  const legend = editor.getByTestId('dag-legend');
  await expect(legend).toBeVisible();
  const key = (await legend.boundingBox())!;
  const minimaps = await canvas.locator('.react-flow__minimap').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as Box));
  for (const m of minimaps) expect(overlaps(key, m), 'legend over the MiniMap').toBe(false);
  expect(overlaps(key, (await canvas.locator('.react-flow__controls').boundingBox())!), 'legend over the Controls').toBe(false);
  // one line: every label as tall as the shortest
  const heights = await legend.locator('li').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
  expect(Math.max(...heights) - Math.min(...heights), `legend labels wrap: ${heights}`).toBeLessThan(2);

  // The run page: the Controls' fit button, and the Graph card's description is not a narrow column beside the legend.
  await runReaches(run.id, 'success');
  await page.goto(`/runs/${run.id}`);
  const graph = page.getByTestId('run-graph');
  for (const k of steps) await expect(page.getByTestId(`run-node-${k}`)).toBeAttached();
  await graph.locator('.react-flow__controls-fitview').click();
  await still(graph.locator('.react-flow__viewport'));
  await allInside(graph, 'run graph');
  const description = page.getByText('Click a step to jump to its log');
  const d = (await description.boundingBox())!;
  expect(d.height, 'Graph description wraps into a narrow column').toBeLessThan(24);
});
