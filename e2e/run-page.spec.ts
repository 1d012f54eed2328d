import { expect, test, type Page } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { edgeLabelClearances, settledTransform, smallestCardText, zoomOf } from './helpers/dag.ts';

// The run page reads like the graph: tasks in DAG order (parents first), and the mouse wheel over the run graph
// scrolls the page instead of zooming the graph away (Ctrl+wheel zooms).

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

/**
 * A run of a fresh two-step manual job whose first step `load` fails with no retries left
 * (builtin.fail, maxRetries 0), so its `report` step never starts; resolves once the run has failed.
 */
async function failedUpstreamRun(keyPrefix: string, name: string): Promise<Run> {
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `${keyPrefix}.${uniq()}`,
    name,
    schedule: { kind: 'manual' },
    policy: { maxRetries: 0 },
    steps: [
      { key: 'load', handler: 'builtin.fail' },
      { key: 'report', handler: 'builtin.noop' },
    ],
    edges: [{ from: 'load', to: 'report', type: 'hard' }],
  });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('failed');
  return run;
}
type Run = { id: string; status: string };

test('tasks in DAG order; the wheel over the graph scrolls the page, Ctrl+wheel zooms', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 700 });
  // Listed alphabetically the table would read alpha, mid, zeta; the graph runs zeta -> mid -> alpha.
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.runpage.${uniq()}`,
    name: 'DAG order',
    schedule: { kind: 'manual' },
    steps: [
      { key: 'alpha', handler: 'builtin.noop' },
      { key: 'mid', handler: 'builtin.noop' },
      { key: 'zeta', handler: 'builtin.noop' },
    ],
    edges: [
      { from: 'zeta', to: 'mid', type: 'hard' },
      { from: 'mid', to: 'alpha', type: 'hard' },
    ],
  });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('success');
  await login(page);
  await page.goto(`/runs/${run.id}`);
  const firstCells = page.getByTestId('tasks-table').locator('tbody tr td:first-child');
  await expect(firstCells).toHaveText(['zeta', 'mid', 'alpha']);

  const graph = page.getByTestId('run-graph');
  await expect(graph).toBeVisible();
  const viewport = graph.locator('.react-flow__viewport');
  await expect(graph.locator('.react-flow__node')).toHaveCount(3);
  const transform = await settledTransform(viewport);
  const main = page.locator('main');
  const box = (await graph.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const before = await main.evaluate((m) => m.scrollTop);
  await page.mouse.wheel(0, 300);
  await expect.poll(() => main.evaluate((m) => m.scrollTop)).toBeGreaterThan(before);
  expect(await viewport.evaluate((e) => getComputedStyle(e).transform)).toBe(transform);

  // Ctrl+wheel zooms the graph.
  const b2 = (await graph.boundingBox())!;
  await page.mouse.move(b2.x + b2.width / 2, b2.y + b2.height / 2);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -200);
  await page.keyboard.up('Control');
  await expect.poll(() => viewport.evaluate((e) => getComputedStyle(e).transform)).not.toBe(transform);

  // The job page lists its steps in the same order.
  await page.goto(`/jobs/${job.id}`);
  await expect(page.getByTestId('steps-table').locator('tbody tr td:first-child')).toHaveText(['zeta', 'mid', 'alpha']);
});

test('the run Gantt shows each task waiting and running on one time axis, in DAG order', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.gantt.${uniq()}`,
    name: 'Gantt',
    schedule: { kind: 'manual' },
    steps: [
      { key: 'load', handler: 'builtin.sleep', payload: { ms: 400 } },
      { key: 'extract', handler: 'builtin.sleep', payload: { ms: 600 } },
    ],
    edges: [{ from: 'extract', to: 'load', type: 'hard' }],
  });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('success');
  await login(page);
  await page.goto(`/runs/${run.id}`);
  const rows = page.getByTestId('gantt-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute('data-step', 'extract');
  await expect(rows.nth(1)).toHaveAttribute('data-step', 'load');
  // "load" starts after "extract" ends: its run bar lies to the right of extract's.
  const ex = (await rows.nth(0).getByTestId('gantt-run').boundingBox())!;
  const ld = (await rows.nth(1).getByTestId('gantt-run').boundingBox())!;
  expect(ld.x).toBeGreaterThanOrEqual(ex.x + ex.width - 2);
  await expect(rows.nth(1).getByTestId('gantt-run')).toHaveAttribute('title', /^attempt 1 of 1, success, ran \d/);
  await page.getByTestId('run-gantt').screenshot({ path: 'e2e/__screenshots__/run-gantt.png' });

  // The run's Duration and the Timeline's total say what each counts, and their parts add up: the Timeline also
  // counts the wait before the first task started.
  await expectCaptionAgreesWithDuration(page);
});

/**
 * The Timeline's caption splits its total into the wait before the first task started and the run's Duration, which
 * reads exactly as the Timing card's; returns the caption's parts in ms.
 */
async function expectCaptionAgreesWithDuration(page: Page): Promise<{ total: number; queued: number; ran: number }> {
  const duration = page.getByTestId('run-duration');
  await expect(duration).toContainText("first task's start → run's end");
  const caption = await page.getByTestId('gantt-caption').innerText();
  const m = /: (.+?) in all, (.+?) queued before the first task started \+ (.+?) from that start to the run's end \(the run's Duration\)$/.exec(caption);
  expect(m, caption).not.toBeNull();
  expect(m![3], caption).toBe((await duration.evaluate((e) => e.firstChild!.textContent!)).trim());
  const [total, queued, ran] = m!.slice(1).map(ms) as [number, number, number];
  expect(Math.abs(queued + ran - total), caption).toBeLessThanOrEqual(15); // each part rounded on its own
  return { total, queued, ran };
}

test('after a retry the Timeline draws both attempts of the task, the earlier one muted, and its span matches the run\'s Duration', async ({ page }) => {
  // fails on its first attempt, succeeds on the retry one backoff (1 s, no jitter) later
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.gantt.retry.${uniq()}`,
    name: 'Gantt retry',
    schedule: { kind: 'manual' },
    handler: 'builtin.flaky',
    payload: { failTimes: 1 },
    policy: { maxRetries: 1, backoff: { baseSeconds: 1, factor: 1, maxSeconds: 1, jitter: 0 } },
  });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('success');
  const done = await api<Run & { startedAt: string; finishedAt: string }>('GET', `/runs/${run.id}`);
  await login(page);
  await page.goto(`/runs/${run.id}`);
  const bars = page.locator('[data-testid="gantt-row"][data-step="main"] [data-testid="gantt-run"]');
  await expect(bars).toHaveCount(2);
  await expect(page.locator('[data-testid="gantt-row"][data-step="main"] [data-testid="gantt-wait"]')).toHaveCount(2);
  const [first, second] = [bars.nth(0), bars.nth(1)];
  await expect(first).toHaveAttribute('data-attempt', '1');
  await expect(first).toHaveAttribute('data-outcome', 'failed');
  await expect(first).not.toHaveAttribute('data-current', /.*/);
  await expect(first).toHaveAttribute('title', /^attempt 1 of 2, failed, ran \d.*: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} .* → \d{4}-/);
  await expect(second).toHaveAttribute('data-attempt', '2');
  await expect(second).toHaveAttribute('data-current', 'true');
  await expect(second).toHaveAttribute('title', /^attempt 2 of 2, success, ran \d/);
  // the earlier attempt looks different from the one that decided the task, and lies before it
  const colour = (l: typeof first) => l.evaluate((e) => getComputedStyle(e).backgroundColor);
  expect(await colour(first)).not.toBe(await colour(second));
  const [b1, b2] = [(await first.boundingBox())!, (await second.boundingBox())!];
  expect(b2.x).toBeGreaterThanOrEqual(b1.x + b1.width - 1);
  // the first bar starts where the run started (its Duration's start), the last ends by the run's end
  expect(Number(await first.getAttribute('data-start'))).toBe(Date.parse(done.startedAt));
  expect(Number(await second.getAttribute('data-end'))).toBeLessThanOrEqual(Date.parse(done.finishedAt));
  const { queued, ran } = await expectCaptionAgreesWithDuration(page);
  expect(ran).toBeGreaterThanOrEqual(1_000); // the backoff between the attempts is inside the run's Duration
  // on the axis, the first bar's left edge sits at the caption's queued share of the chart
  const track = (await page.locator('[data-testid="gantt-row"][data-step="main"] > div').nth(1).boundingBox())!;
  const axisEnd = ms((await page.getByTestId('gantt-tick').last().innerText()).replace(/^\+/, ''));
  expect(Math.abs(b1.x - (track.x + (queued / axisEnd) * track.width))).toBeLessThanOrEqual(3);
  await page.getByTestId('run-gantt').screenshot({ path: test.info().outputPath('run-gantt-retry.png') });
});

/** A duration as lib/time/format.ts formatDuration writes it (`850 ms`, `1.25 s`, `12.3 s`, `4m 05s`), in ms. */
function ms(text: string): number {
  const t = text.trim();
  let m = /^(\d+) ms$/.exec(t);
  if (m) return Number(m[1]);
  m = /^([\d.]+) s$/.exec(t);
  if (m) return Number(m[1]) * 1000;
  m = /^(\d+)m (\d+)s$/.exec(t);
  if (m) return (Number(m[1]) * 60 + Number(m[2])) * 1000;
  throw new Error(`not a duration: ${t}`);
}

test('a run skipped by the block strategy shows its steps as skipped, not pending', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.runpage.skip.${uniq()}`,
    name: 'Skipped run graph',
    schedule: { kind: 'manual' },
    policy: { blockStrategy: 'discard_later' },
    steps: [
      { key: 'first', handler: 'builtin.sleep', payload: { ms: 20_000 } },
      { key: 'second', handler: 'builtin.noop' },
    ],
    edges: [{ from: 'first', to: 'second', type: 'hard' }],
  });
  const active = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  const skipped = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  expect(skipped.status).toBe('skipped');
  await login(page);
  await page.goto(`/runs/${skipped.id}`);
  for (const key of ['first', 'second']) {
    await expect(page.getByTestId(`run-node-${key}`)).toHaveAttribute('data-status', 'skipped');
    // no task, so no attempt was made: never "#1" as if attempt 1 had been skipped
    await expect(page.getByTestId(`run-node-attempt-${key}`)).toHaveText('no attempt');
  }
  await expect(page.getByTestId('run-graph')).not.toContainText('#1');
  await api('POST', `/runs/${active.id}/cancel`, {});
});

test('a running step\'s in-edges keep their type\'s look; the tasks table names each dependency\'s type and shows no attempt for a step that never ran', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.runpage.edges.${uniq()}`,
    name: 'Edge looks',
    schedule: { kind: 'manual' },
    steps: [
      { key: 'first', handler: 'builtin.noop' },
      { key: 'slow', handler: 'builtin.sleep', payload: { ms: 30_000 } },
      { key: 'side', handler: 'builtin.sleep', payload: { ms: 30_000 } },
      { key: 'cleanup', handler: 'builtin.noop' },
    ],
    edges: [
      { from: 'first', to: 'slow', type: 'hard' },
      { from: 'first', to: 'side', type: 'soft' },
      { from: 'first', to: 'cleanup', type: 'on_failure' },
    ],
  });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  type Detail = Run & { tasks: { stepKey: string; status: string }[] };
  const statusOf = async (key: string) => (await api<Detail>('GET', `/runs/${run.id}`)).tasks.find((t) => t.stepKey === key)?.status;
  await expect.poll(() => statusOf('slow'), { timeout: 30_000 }).toBe('running');
  await expect.poll(() => statusOf('side'), { timeout: 30_000 }).toBe('running');
  await login(page);
  await page.goto(`/runs/${run.id}`);
  const graph = page.getByTestId('run-graph');
  // the two edges into running steps pulse; the hard one stays solid, the soft one dashed
  const active = graph.locator('path.tf-edge-active');
  await expect(active).toHaveCount(2);
  const dashes = (await active.evaluateAll((ps) => ps.map((p) => getComputedStyle(p).strokeDasharray))).sort();
  expect(dashes[0]).toBe('7px, 5px');
  expect(dashes[1]).toBe('none');
  await expect(page.locator('[data-edge-label="hard"][data-edge-active="true"]')).toHaveCount(1);
  await expect(page.locator('[data-edge-label="on_failure"][data-edge-active="true"]')).toHaveCount(0);

  await expect(page.getByTestId('task-parents-slow')).toHaveText('first (hard)');
  await expect(page.getByTestId('task-parents-side')).toHaveText('first (soft)');
  await expect(page.getByTestId('task-parents-cleanup')).toHaveText('first (on failure)');
  await expect(page.getByTestId('task-attempt-cleanup')).toHaveText('no attempt'); // skipped by design, never ran
  await expect(page.getByTestId('task-attempt-first')).toHaveText('attempt 1 of 1');
  await api('POST', `/runs/${run.id}/cancel`, {});
});

test('a run whose reason names another run links to it (a serial_execution run queued behind the first)', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.runlink.${uniq()}`,
    name: 'Queued behind',
    schedule: { kind: 'manual' },
    handler: 'builtin.sleep',
    payload: { ms: 20_000 },
    policy: { blockStrategy: 'serial_execution' },
  });
  const first = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  const second = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await login(page);
  await page.goto(`/runs/${second.id}`);
  const link = page.getByTestId('run-text-link');
  await expect(link).toHaveText(first.id);
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/runs/${first.id}$`));
  await api('POST', `/runs/${second.id}/cancel`, {});
  await api('POST', `/runs/${first.id}/cancel`, {});
});

test('a task that never started reads "no attempt" in its section, as in the tasks table', async ({ page }) => {
  const run = await failedUpstreamRun('e2e.noattempt', 'Upstream fails');
  await login(page);
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId('task-section-report')).toContainText(/no attempt · \d+ state change/);
  await expect(page.getByTestId('task-section-load')).toContainText(/attempt 1 of 1 · \d+ state change/);
});

test('the run graph opens readable: card text at least 9.6px on screen (keys alone below that zoom), first steps in view, labels off the arrowheads', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.runpage.legible.${uniq()}`,
    name: 'Legible run graph',
    schedule: { kind: 'manual' },
    steps: ['extract', 'transform', 'validate_a', 'validate_b', 'rebuild_index', 'compensate'].map((key) => ({ key, handler: 'builtin.noop' })),
    edges: [
      { from: 'extract', to: 'transform', type: 'hard' },
      { from: 'transform', to: 'validate_a', type: 'hard' },
      { from: 'transform', to: 'validate_b', type: 'soft' },
      { from: 'validate_a', to: 'rebuild_index', type: 'hard' },
      { from: 'validate_b', to: 'rebuild_index', type: 'hard' },
      { from: 'rebuild_index', to: 'compensate', type: 'on_failure' },
    ],
  });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('success');
  await login(page);
  await page.goto(`/runs/${run.id}`);
  const graph = page.getByTestId('run-graph');
  await expect(page.getByTestId('run-node-extract')).toBeVisible();
  // fitView's minZoom of 0.5 let this graph's text shrink to 7-8px; below 0.8 the cards show their keys alone (canvas.ts COMPACT_ZOOM)
  await expect.poll(() => smallestCardText(graph)).toBeGreaterThanOrEqual(9.6);
  const pane = (await graph.boundingBox())!;
  const first = (await page.getByTestId('run-node-extract').boundingBox())!;
  expect(first.x).toBeGreaterThanOrEqual(pane.x);
  expect(first.x + first.width).toBeLessThanOrEqual(pane.x + pane.width);
  const zoom = zoomOf(await settledTransform(graph.locator('.react-flow__viewport')));
  for (const c of await edgeLabelClearances(graph)) {
    expect(c.clearX >= 9 * zoom || c.clearY >= 7.2 * zoom, `label of ${c.id}: ${JSON.stringify(c)}`).toBe(true);
  }
  await graph.screenshot({ path: test.info().outputPath('run-graph-legible.png') });
});

test('the Gantt axis of a very short run: round, distinct labels, none overlapping, the last one inside the chart', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.gantt.short.${uniq()}`,
    name: 'Short run',
    schedule: { kind: 'manual' },
    steps: [
      { key: 'one', handler: 'builtin.noop' },
      { key: 'two', handler: 'builtin.noop' },
    ],
    edges: [],
  });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('success');
  await login(page);
  await page.goto(`/runs/${run.id}`);
  const gantt = page.getByTestId('run-gantt');
  await expect(gantt.getByTestId('gantt-row')).toHaveCount(2);
  const ticks = gantt.getByTestId('gantt-tick');
  const labels = await ticks.allInnerTexts();
  expect(labels.length).toBeGreaterThanOrEqual(2);
  expect(new Set(labels).size, labels.join(' ')).toBe(labels.length);
  const boxes = await ticks.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
  for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.left, labels.join(' ')).toBeGreaterThanOrEqual(boxes[i - 1]!.right);
  // not cut off by the card (overflow hidden): the last label ends inside the row's chart area
  const bar = (await gantt.getByTestId('gantt-row').first().locator('div').nth(1).boundingBox())!;
  expect(boxes[boxes.length - 1]!.right).toBeLessThanOrEqual(bar.x + bar.width + 0.5);
  expect(boxes[0]!.left).toBeGreaterThanOrEqual(bar.x - 0.5);
});

test('an operator\'s Retry task beyond a budget of one attempt reads the same truthful attempt in the table, the section, the graph and the timeline', async ({ page }) => {
  type Detail = Run & { tasks: { id: string; stepKey: string; status: string; attempt: number }[] };
  const run = await failedUpstreamRun('e2e.opretry', 'Operator retry');
  const detail = () => api<Detail>('GET', `/runs/${run.id}`);
  const load = (await detail()).tasks.find((t) => t.stepKey === 'load')!;
  await api('POST', `/tasks/${load.id}/retry`, {});
  await expect.poll(async () => { const d = await detail(); return [d.status, d.tasks.find((t) => t.stepKey === 'load')!.attempt]; }, { timeout: 30_000 }).toEqual(['failed', 2]);

  await login(page);
  await page.goto(`/runs/${run.id}`);
  const text = 'attempt 2 (1 automatic + 1 by operator)';
  await expect(page.getByTestId('task-attempt-load')).toHaveText(text);
  await expect(page.getByTestId('tasks-table')).not.toContainText('2 / 1');
  await expect(page.getByTestId('task-section-load')).toContainText(`${text} ·`);
  await expect(page.getByTestId('run-node-attempt-load')).toHaveText('attempt 2');
  await expect(page.getByTestId('run-node-attempt-load')).toHaveAttribute('title', /1 automatic \(at most 1 automatic: max retries 0\) and 1 started by an operator/);
  const loadBars = page.locator('[data-testid="gantt-row"][data-step="load"] [data-testid="gantt-run"]');
  await expect(loadBars).toHaveCount(2);
  await expect(loadBars.nth(0)).toHaveAttribute('title', /^attempt 1 of 1, failed, ran /);
  await expect(loadBars.nth(1)).toHaveAttribute('title', new RegExp(`^${text.replace(/[()+]/g, '\\$&')}, dead, ran `));
  await expect(page.getByTestId('run-node-attempt-report')).toHaveText('no attempt');

  // At 1280 px the row has room for the whole attempt: it is not cut with an ellipsis.
  await page.setViewportSize({ width: 1280, height: 800 });
  const attempt = page.getByTestId('task-attempt-load');
  await expect(attempt).toHaveText(text);
  expect(await attempt.evaluate((e) => e.scrollWidth - e.clientWidth), 'attempt cut at 1280 px').toBeLessThanOrEqual(0);
});

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

test('at 1280-1440 px the run graph\'s MiniMap and edge legend cover neither each other nor the graph', async ({ page }) => {
  // The demo DAG's shape (prisma/seed.ts demo.db-migration): four cards in one column under "transform".
  const shards = [0, 1, 2];
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.runpage.overlays.${uniq()}`,
    name: 'Overlays',
    schedule: { kind: 'manual' },
    steps: [
      { key: 'extract', name: 'Extract legacy orders', handler: 'builtin.noop' },
      { key: 'transform', name: 'Transform to orders_v2', handler: 'builtin.noop' },
      ...shards.map((s) => ({ key: `validate-shard-${s}`, name: `Validate shard ${s}`, handler: 'builtin.noop' })),
      { key: 'rebuild-index', name: 'Rebuild index', handler: 'builtin.noop' },
      { key: 'rollback', name: 'Compensate: drop orders_v2', handler: 'builtin.noop' },
    ],
    edges: [
      { from: 'extract', to: 'transform', type: 'hard' },
      ...shards.map((s) => ({ from: 'transform', to: `validate-shard-${s}`, type: 'hard' })),
      ...shards.map((s) => ({ from: `validate-shard-${s}`, to: 'rebuild-index', type: 'hard' })),
      { from: 'transform', to: 'rollback', type: 'on_failure' },
    ],
  });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('success');
  await login(page);
  for (const width of [1280, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/runs/${run.id}`);
    const graph = page.getByTestId('run-graph');
    await expect(page.getByTestId('run-node-extract')).toBeVisible();
    const minimap = graph.locator('.react-flow__minimap');
    const legend = page.getByTestId('dag-legend');
    await expect(minimap).toBeVisible();
    await expect(legend).toBeVisible();
    // the first view is set once the cards are measured: wait until it holds still
    await settledTransform(graph.locator('.react-flow__viewport'));
    const pane = (await graph.boundingBox())!;
    const map = (await minimap.boundingBox())!;
    const key = (await legend.boundingBox())!;
    expect(overlaps(key, map), `${width}: legend over the MiniMap`).toBe(false);
    expect(overlaps(key, pane), `${width}: legend over the canvas`).toBe(false);
    const cards = await graph.locator('.react-flow__node, [data-edge-label]').evaluateAll((els) =>
      els.map((e) => ({ name: e.getAttribute('data-id') ?? e.getAttribute('data-edge-label') ?? '', box: e.getBoundingClientRect().toJSON() as Box })),
    );
    expect(cards.length).toBeGreaterThanOrEqual(7);
    for (const c of cards) {
      expect(overlaps(c.box, map), `${width}: ${c.name} under the MiniMap`).toBe(false);
      // every row of the graph is in view, none cut off by the bottom of the canvas
      if (c.box.x < pane.x + pane.width) expect(c.box.y + c.box.height, `${width}: ${c.name} below the canvas`).toBeLessThanOrEqual(pane.y + pane.height);
    }
  }
});

test('the tasks table keeps every cell on one line at 1440 and 1280 px, long text whole on hover', async ({ page }) => {
  const longKey = 'validate_customer_orders_shard_0';
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.runpage.table.${uniq()}`,
    name: 'Tasks table',
    schedule: { kind: 'manual' },
    policy: { maxRetries: 0 },
    steps: [
      { key: 'extract_legacy_orders', handler: 'builtin.noop' },
      { key: 'transform_to_orders_v2', handler: 'builtin.noop' },
      { key: longKey, handler: 'builtin.fail' },
      { key: 'report', handler: 'builtin.noop' },
    ],
    edges: [
      { from: 'extract_legacy_orders', to: longKey, type: 'hard' },
      { from: 'transform_to_orders_v2', to: longKey, type: 'soft' },
      { from: longKey, to: 'report', type: 'hard' },
    ],
  });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('failed');
  await login(page);
  const table = page.getByTestId('tasks-table');
  for (const width of [1440, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/runs/${run.id}`);
    await expect(table.locator('tbody tr')).toHaveCount(4);
    // the dead task's row has its three buttons: Retry task, Mark success, Clear downstream
    const row = table.locator('tbody tr').filter({ has: page.getByTestId(`task-status-${longKey}`) });
    for (const name of ['Retry task', 'Mark success', 'Clear downstream']) await expect(row.getByRole('button', { name })).toBeVisible();
    // one line per cell: a cell wraps when a piece of its visible text starts below the bottom of its first line
    const wrapped = await table.locator('tbody td').evaluateAll((tds) =>
      tds
        .map((td) => {
          const rects: DOMRect[] = [];
          const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            if (!n.textContent!.trim() || n.parentElement!.getBoundingClientRect().width <= 1) continue; // blank, or an icon button's screen-reader label
            const r = document.createRange();
            r.selectNodeContents(n);
            rects.push(...[...r.getClientRects()].filter((b) => b.width > 0 && b.height > 0));
          }
          rects.sort((a, b) => a.top - b.top);
          const wraps = rects.some((b) => b.top >= rects[0]!.bottom - 1);
          return wraps ? `${td.closest('tr')!.querySelector('td')!.textContent}: ${td.textContent}` : null;
        })
        .filter(Boolean),
    );
    expect(wrapped, `${width} px`).toEqual([]);
    expect(await table.evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth), `${width} px`).toBeLessThanOrEqual(0);
    // cut text is whole on hover
    await expect(row.locator('td').first().locator('[title]')).toHaveAttribute('title', longKey);
    await expect(page.getByTestId(`task-parents-${longKey}`).locator('xpath=..')).toHaveAttribute('title', 'extract_legacy_orders (hard), transform_to_orders_v2 (soft)');
    // the Worker column gives way below 1400 px
    if (width < 1400) await expect(table.getByRole('columnheader', { name: 'Worker' })).toBeHidden();
    else await expect(table.getByRole('columnheader', { name: 'Worker' })).toBeVisible();
  }
});
