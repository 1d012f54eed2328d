import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// The jobs and runs lists as an operator uses them at 1440 px: per-row Run now / Pause, everything on screen,
// sorting by next fire with paused jobs last, runs found by id or error text, date filters on Enter, a range
// whose end precedes its start refused, and totals.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
type Job = { id: string; key: string };
type Run = { id: string; status: string };

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page);
});

test('jobs: the table fits 1440 px, rows have Run now and Pause, next-fire sorting puts paused jobs last', async ({ page }) => {
  const tag = `e2e.lists.${uniq()}`;
  const soon = await api<Job>('POST', '/jobs', { key: `${tag}.a-soon`, name: 'A rather long job name that should be truncated in the list view', schedule: { kind: 'interval', intervalSeconds: 600 }, handler: 'builtin.noop' });
  // "Later" fires daily at the Shanghai hour 12 h from now: its next fire is 11-12 h away whatever the time of
  // day the test runs, so "soon" (due in 10 minutes) is always first.
  const laterHour = (new Date().getUTCHours() + 8 + 12) % 24;
  const later = await api<Job>('POST', '/jobs', { key: `${tag}.b-later`, name: 'Later', schedule: { kind: 'cron', cron: `0 ${laterHour} * * *`, timezone: 'Asia/Shanghai' }, handler: 'builtin.noop' });
  const paused = await api<Job>('POST', '/jobs', { key: `${tag}.c-paused`, name: 'Paused', schedule: { kind: 'interval', intervalSeconds: 60 }, handler: 'builtin.noop' });
  await api('POST', `/jobs/${paused.id}/pause`, {});

  await page.goto(`/jobs?q=${encodeURIComponent(tag)}&sort=next_run_at&dir=asc`);
  const table = page.getByTestId('jobs-table');
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(3);
  // Paused last although its stored next fire (every minute) is the soonest.
  await expect(rows.nth(0)).toContainText(soon.key);
  await expect(rows.nth(1)).toContainText(later.key);
  await expect(rows.nth(2)).toContainText(paused.key);

  // Nothing is cut off: no horizontal scrolling, the last column on screen.
  const overflow = await table.evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  const created = await table.getByRole('columnheader', { name: 'Created' }).boundingBox();
  expect(created!.x + created!.width).toBeLessThanOrEqual(1440);
  await page.screenshot({ path: 'e2e/__screenshots__/jobs-list.png' });

  // At 1280 px the Created column gives way, so that every row's Run now and Pause stay inside the card.
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(table.getByRole('columnheader', { name: 'Created' })).toBeHidden();
  const card = (await table.evaluate((t) => t.parentElement!.getBoundingClientRect().toJSON())) as DOMRect;
  for (const name of [`Pause ${soon.key}`, `Run ${soon.key} now`, `Resume ${paused.key}`]) {
    const box = (await page.getByRole('button', { name }).boundingBox())!;
    expect(box.x + box.width, name).toBeLessThanOrEqual(card.right + 0.5);
  }
  expect(await table.evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth)).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1440, height: 900 });

  // Per-row Pause and Resume.
  await page.getByRole('button', { name: `Pause ${later.key}` }).click();
  await expect(rows.filter({ hasText: later.key })).toContainText('paused');
  await page.getByRole('button', { name: `Resume ${later.key}` }).click();
  await expect(rows.filter({ hasText: later.key })).toContainText('active');
  expect((await api<{ status: string }>('GET', `/jobs/${later.id}`)).status).toBe('active');

  // Per-row Run now opens the new run.
  await page.getByRole('button', { name: `Run ${soon.key} now` }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}/);
});

test('runs: search by run id or error text, searchable job filter, dates on Enter, From after To refused, totals', async ({ page }) => {
  const message = `disk ${uniq()} is full`;
  const failing = await api<Job>('POST', '/jobs', { key: `e2e.lists.fail.${uniq()}`, name: 'Failing export', schedule: { kind: 'manual' }, handler: 'builtin.fail', payload: { message } });
  const ok = await api<Job>('POST', '/jobs', { key: `e2e.lists.ok.${uniq()}`, name: 'Fine export', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  const bad = await api<Run>('POST', `/jobs/${failing.id}/trigger`, {});
  const good = await api<Run>('POST', `/jobs/${ok.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${bad.id}`)).status, { timeout: 30_000 }).toBe('failed');
  await expect.poll(async () => (await api<Run>('GET', `/runs/${good.id}`)).status, { timeout: 30_000 }).toBe('success');

  await page.goto('/runs');
  const rows = page.getByTestId('run-row');
  const total = page.getByTestId('runs-total');
  await expect(total).toContainText(/\d+ runs? match/);

  // Words of the error text find the failed run, and only it.
  const search = page.getByLabel('Search');
  await search.fill(message.split(' ')[1]!);
  await expect(rows).toHaveCount(1);
  await expect(page.locator(`[data-run-id="${bad.id}"]`)).toBeVisible();
  await expect(total).toContainText('1 run match');
  // The short id the console shows finds the run too.
  await search.fill(good.id.slice(0, 8));
  await expect(page.locator(`[data-run-id="${good.id}"]`)).toBeVisible();
  await expect(rows).toHaveCount(1);
  await search.fill('');
  await expect(total).not.toContainText('1 run match');

  // The job filter is searchable by name.
  const job = page.getByLabel('Job');
  await job.fill('Failing export');
  await job.press('Enter');
  await expect(page).toHaveURL(new RegExp(`jobId=${failing.id}`));
  await expect(rows).toHaveCount(1);

  // A date applies on Enter; a To before the From is refused with a message and not applied.
  const from = page.getByLabel('From', { exact: true });
  await from.fill('2020-01-02T00:00');
  await from.press('Enter');
  await expect(page).toHaveURL(/from=2020-01-0/);
  const to = page.getByLabel('To', { exact: true });
  await to.fill('2019-12-31T00:00');
  await to.press('Enter');
  await expect(page.getByTestId('filter-error')).toContainText('To must not be before the start of the range');
  await expect(page).not.toHaveURL(/to=/);
  await expect(rows).toHaveCount(1);
});

test('runs and jobs: every picker shows the filter the URL asks for, a list of values too; a refused one is marked beside the error', async ({ page }) => {
  // A list of statuses the API takes (`status=failed,timeout`) is shown as asked, not as "All", and refused nowhere.
  await page.goto('/runs?status=failed,timeout');
  const status = page.getByLabel('Status', { exact: true });
  await expect(status.locator('option:checked')).toHaveText('failed, timeout');
  await expect(status).not.toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('filter-refused')).toHaveCount(0);

  // A refused value: the picker shows it, invalid and described by its refusal, beside the error naming the field.
  for (const [path, label, value] of [['/runs?status=pendng', 'Status', 'pendng'], ['/runs?trigger=cron', 'Trigger', 'cron'], ['/jobs?kind=cronn', 'Schedule', 'cronn'], ['/jobs?status=activ', 'Status', 'activ']] as const) {
    await page.goto(path);
    // the error names the filter by its label, as the filter bar does
    await expect(page.getByRole('alert').filter({ hasText: `${label}: ` }), path).toBeVisible();
    const picker = page.getByLabel(label, { exact: true });
    await expect(picker.locator('option:checked'), path).toHaveText(value);
    await expect(picker, path).toHaveAttribute('aria-invalid', 'true');
    await expect(picker, path).toHaveAccessibleDescription(/^refused/);
  }
  // A date field cannot show text that is no date: its refusal quotes it.
  await page.goto('/runs?from=yesterday');
  await expect(page.getByRole('alert').filter({ hasText: 'from' })).toBeVisible();
  await expect(page.getByTestId('filter-refused')).toHaveText(/^refused: “yesterday”/);
  await expect(page.getByLabel('From', { exact: true })).toHaveAttribute('aria-invalid', 'true');
});

test('jobs: a job of several handlers reads "first +N more", and every cut text ends in an ellipsis with the whole text on hover', async ({ page }) => {
  const tag = `e2e.lists.cut.${uniq()}`;
  const name = 'A rather long job name that the list has to cut somewhere, with an ellipsis where it does';
  const cron = '0,5,10,15,20,25,30,35,40,45,50,55 0-23/2 1-31 1-12 1-5';
  const dag = await api<Job>('POST', '/jobs', {
    key: `${tag}.dag-with-a-key-long-enough-to-be-cut-in-the-list-view`,
    name,
    schedule: { kind: 'cron', cron, timezone: 'America/Argentina/Buenos_Aires' },
    steps: [
      { key: 'first', handler: 'builtin.noop' },
      { key: 'second', handler: 'builtin.fail' },
      { key: 'third', handler: 'builtin.echo' },
      { key: 'fourth', handler: 'builtin.noop' },
    ],
    edges: [],
  });
  await api('POST', `/jobs/${dag.id}/pause`, {});
  await page.goto(`/jobs?q=${encodeURIComponent(tag)}`);
  const row = page.getByTestId('jobs-table').locator('tbody tr').filter({ hasText: tag });
  await expect(row).toHaveCount(1);

  // The handlers: the first, how many others, all of them (and the step count) on hover.
  const handlers = row.getByTestId('job-handlers');
  await expect(handlers).toHaveText(/^builtin\.echo\s*\+2 more$/);
  await expect(handlers).toHaveAttribute('title', '4 steps: builtin.echo, builtin.fail, builtin.noop');

  // Every text the row cuts shows an ellipsis and carries its whole text in a title.
  const cut = await row.evaluate((tr) =>
    [...tr.querySelectorAll<HTMLElement>('*')]
      .filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
      .map((el) => ({ text: el.textContent ?? '', ellipsis: getComputedStyle(el).textOverflow === 'ellipsis', title: el.closest('[title]')?.getAttribute('title') ?? null, width: el.getBoundingClientRect().width })),
  );
  const texts = cut.map((c) => c.text);
  expect(texts).toEqual(expect.arrayContaining([dag.key, name, `${cron} · America/Argentina/Buenos_Aires`]));
  for (const c of cut) {
    expect(c.ellipsis, c.text).toBe(true);
    expect(c.title, c.text).toContain(c.text);
  }
  // The schedule is cut at its column's width instead of widening the table.
  const schedule = cut.find((c) => c.text.startsWith(cron))!;
  expect(schedule.width).toBeLessThanOrEqual(161);
  const overflow = await page.getByTestId('jobs-table').evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});

test('jobs: a sort or direction the list does not know is refused by name, not replaced by another order', async ({ page }) => {
  for (const [qs, field] of [['sort=evil', 'sort'], ['sort=key&dir=sideways', 'dir']] as const) {
    await page.goto(`/jobs?${qs}`);
    await expect(page.getByRole('alert').filter({ hasText: field })).toBeVisible();
    await expect(page.getByTestId('jobs-table')).toHaveCount(0);
  }
  await page.goto('/jobs?sort=name&dir=desc');
  await expect(page.getByTestId('jobs-table')).toBeVisible();
});

test('empty lists: filters that match nothing say so and offer Clear filters; the sort is kept', async ({ page }) => {
  const none = `no-such-thing-${uniq()}`;
  // At least one job and one run exist, so the cleared lists are not empty.
  const job = await api<Job>('POST', '/jobs', { key: `e2e.lists.empty.${uniq()}`, name: 'Something to list', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await api<Run>('POST', `/jobs/${job.id}/trigger`, {});

  await page.goto(`/runs?q=${none}&status=failed`);
  const runsEmpty = page.getByTestId('list-empty-filtered');
  await expect(runsEmpty).toContainText('No runs match these filters');
  await runsEmpty.getByRole('link', { name: 'Clear filters' }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByTestId('runs-table')).toBeVisible();

  await page.goto(`/jobs?q=${none}&sort=created_at&dir=desc`);
  const jobsEmpty = page.getByTestId('list-empty-filtered');
  await expect(jobsEmpty).toContainText('No jobs match these filters');
  await expect(jobsEmpty.getByRole('link', { name: 'New job' })).toHaveCount(0);
  await jobsEmpty.getByRole('link', { name: 'Clear filters' }).click();
  await expect(page).toHaveURL(/\/jobs\?sort=created_at&dir=desc$/);
  await expect(page.getByTestId('jobs-table')).toBeVisible();

  await page.goto(`/alarms?jobId=${crypto.randomUUID()}`);
  await expect(page.getByTestId('list-empty-filtered')).toContainText('No alarms match these filters');
  await expect(page.getByTestId('list-empty-filtered').getByRole('link', { name: 'Clear filters' })).toHaveAttribute('href', '/alarms');
});

test('at 1280 px a run row stays one line high: a long trigger text is cut with an ellipsis, whole on hover', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.lists.trigger.${Date.now().toString(36)}`, name: 'Trigger text', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  const run = await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {});
  await page.goto(`/runs?jobId=${job.id}`);
  const row = page.locator(`[data-run-id="${run.id}"]`);
  await expect(row).toBeVisible();
  const by = row.getByTestId('run-triggered-by');
  await expect(by).toHaveAttribute('title', (await by.textContent())!);
  const oneLine = (await row.boundingBox())!.height;
  // a scheduler's trigger names its worker, e.g. scheduler:vm-20491-…: no run triggered here has one, so the cell is
  // given that text, as long as a new user's was, to see the row keep its height
  const long = 'scheduler:vm-20491-eu-west-1c-prod-tickflow-worker-7f9c4d2b1a';
  await by.evaluate((e, t) => { e.textContent = t; }, long);
  expect((await row.boundingBox())!.height).toBeLessThanOrEqual(oneLine + 1);
  expect(await by.evaluate((e) => e.scrollWidth > e.clientWidth && getComputedStyle(e).textOverflow === 'ellipsis')).toBe(true);
});
