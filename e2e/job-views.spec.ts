import { expect, test, type Page } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { addDays } from '../lib/stats/dates.ts';
import { formatDate, formatDateTime } from '../lib/time/format.ts';

// The job's Grid and Calendar tabs and the stats page's job picker and hourly view, as an operator uses them
// (docs/console.md): real runs through the real worker, a browser in Asia/Tokyo (the display zone), screenshots
// saved for review under e2e/__screenshots__.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
const SHOT_DIR = 'e2e/__screenshots__';
const ZONE = 'Asia/Tokyo';
type Run = { id: string; status: string; scheduledFor: string; tasks: { stepKey: string; status: string; attempt: number; startedAt: string | null; completedAt: string | null }[] };

test.use({ timezoneId: ZONE });

/** Triggers one run with `payload` and waits until it is final. */
async function runToEnd(jobId: string, payload: Record<string, unknown>): Promise<Run> {
  const run = await api<Run>('POST', `/jobs/${jobId}/trigger`, { payload });
  await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 45_000 }).toMatch(/^(success|failed)$/);
  return api<Run>('GET', `/runs/${run.id}`);
}

/** A two-step DAG (extract -> load) whose `load` fails `failTimes` attempts (one retry, no backoff), and three finished runs. */
async function gridJob(): Promise<{ id: string; key: string; runs: Run[] }> {
  const key = `e2e.grid.${uniq()}`;
  const job = await api<{ id: string }>('POST', '/jobs', {
    key,
    name: 'Grid job',
    schedule: { kind: 'manual' },
    // listed child first: the grid orders rows by the edges
    steps: [
      { key: 'load', handler: 'builtin.flaky', payload: { failTimes: 0 } },
      { key: 'extract', handler: 'builtin.noop' },
    ],
    edges: [{ from: 'extract', to: 'load', type: 'hard' }],
    policy: { maxRetries: 1, backoff: { baseSeconds: 0, jitter: 0 } },
  });
  const runs = [await runToEnd(job.id, { failTimes: 0 }), await runToEnd(job.id, { failTimes: 1 }), await runToEnd(job.id, { failTimes: 5 })];
  expect(runs.map((r) => r.status)).toEqual(['success', 'success', 'failed']);
  return { id: job.id, key, runs };
}

async function openTab(page: Page, jobId: string, tab: string) {
  await page.goto(`/jobs/${jobId}`);
  await page.getByRole('tab', { name: tab }).click();
  await expect(page).toHaveURL(new RegExp(`tab=${tab.toLowerCase()}`));
}

test('Grid tab: runs as columns, steps in DAG order, a tooltip per cell in the display zone, a click opens the run on that task', async ({ page }) => {
  test.setTimeout(150_000);
  const job = await gridJob();
  const failed = job.runs[2]!;
  const load = failed.tasks.find((t) => t.stepKey === 'load')!;
  // out of retries: failed, or dead once the retries are used up
  expect(['failed', 'dead']).toContain(load.status);
  expect(load.attempt).toBe(2);

  await login(page);
  await openTab(page, job.id, 'Grid');
  const grid = page.getByTestId('job-grid');
  await expect(grid).toBeVisible();
  await expect(grid.getByTestId('grid-run')).toHaveCount(3);
  // oldest run on the left, newest on the right
  expect(await grid.getByTestId('grid-run').evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')))).toEqual([job.runs[0]!.id, job.runs[1]!.id, failed.id]);
  // rows in DAG order: extract before load, although load is listed first
  expect(await grid.locator('tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-step')))).toEqual(['extract', 'load']);
  await expect(grid.getByTestId('grid-cell')).toHaveCount(6);
  await expect(grid.locator(`[data-testid="grid-cell"][data-status="${load.status}"]`)).toHaveCount(1);
  await expect(grid.getByTestId('grid-older')).toBeDisabled();

  const cell = grid.locator(`[data-testid="grid-cell"][data-run-id="${failed.id}"][data-step="load"]`);
  await expect(cell).toHaveAttribute('data-status', load.status);
  await cell.hover();
  const tip = page.getByTestId('grid-tooltip');
  await expect(tip).toBeVisible();
  await expect(tip).toContainText(`State: ${load.status}`);
  await expect(tip).toContainText('attempt 2'); // attemptLabel's short text (capitalised by CSS)
  await expect(tip).toContainText(/Duration: \d/);
  // the time in the display zone, with the zone's label (Tokyo is UTC+9: never the UTC text)
  await expect(tip).toContainText(`Started: ${formatDateTime(load.startedAt, ZONE, { seconds: true, zone: true })}`);
  await expect(tip).toContainText('UTC+9');
  // the grid with the open tooltip beside the cell
  const box = (await grid.boundingBox())!;
  await page.screenshot({ path: `${SHOT_DIR}/job-grid.png`, clip: { x: Math.max(0, box.x - 16), y: Math.max(0, box.y - 16), width: box.width + 32, height: box.height + 120 } });

  await cell.click();
  await expect(page).toHaveURL(new RegExp(`/runs/${failed.id}\\?task=load$`));
  await expect(page.getByTestId('run-status')).toHaveText('failed');
  const section = page.getByTestId('task-section-load');
  await expect(section).toHaveAttribute('data-focused', 'true');
  await expect(section).toBeInViewport();
  await expect(page.getByTestId('task-log-load')).toBeVisible();
});

test('Calendar tab: days in the display zone coloured by outcome, a tooltip per day, a click opens that day\'s runs', async ({ page }) => {
  test.setTimeout(150_000);
  const key = `e2e.calendar.${uniq()}`;
  const job = await api<{ id: string }>('POST', '/jobs', {
    key,
    name: 'Calendar job',
    // 20:30 UTC is 05:30 the next day in Tokyo: the calendar must show the Tokyo day
    schedule: { kind: 'cron', cron: '30 20 * * *', timezone: 'UTC' },
    handler: 'builtin.flaky',
    payload: { failTimes: 0 },
    // serial: the second of today's runs (one trigger, below) waits for the first instead of being skipped
    policy: { maxRetries: 0, blockStrategy: 'serial_execution' },
  });
  await api('POST', `/jobs/${job.id}/pause`, {});
  const now = Date.now();
  await api('POST', `/jobs/${job.id}/backfill`, { from: new Date(now - 4 * 86_400_000).toISOString(), to: new Date(now - 86_400_000).toISOString(), reason: 'calendar e2e' });
  // the backfill runs end first: a run triggered while one is active would be skipped by the block strategy
  await expect
    .poll(async () => (await api<{ items: Run[] }>('GET', `/runs?jobId=${job.id}&limit=50`)).items.filter((r) => r.status === 'pending' || r.status === 'running').length, { timeout: 45_000 })
    .toBe(0);
  // Today's two runs come from one trigger, so they share one scheduled time and one Tokyo day: two triggers a
  // few seconds apart would straddle Tokyo midnight (15:00 UTC) when the test runs just then.
  const made = await api<{ runs: Run[] }>('POST', `/jobs/${job.id}/trigger`, { runs: [{ payload: { failTimes: 0 } }, { payload: { failTimes: 1 } }] });
  const final = async () => Promise.all(made.runs.map((r) => api<Run>('GET', `/runs/${r.id}`)));
  await expect.poll(async () => (await final()).map((r) => r.status).join(','), { timeout: 90_000 }).toMatch(/^(success|failed),(success|failed)$/);
  const today = await final();
  const all = (await api<{ items: Run[] }>('GET', `/runs?jobId=${job.id}&limit=50`)).items;
  const backfilled = all.filter((r) => !today.some((t) => t.id === r.id));
  expect(backfilled.length).toBeGreaterThanOrEqual(3);
  expect(backfilled.every((r) => r.status === 'success')).toBe(true);
  const todayDate = formatDate(today[0]!.scheduledFor, ZONE);
  expect(formatDate(today[1]!.scheduledFor, ZONE)).toBe(todayDate);

  await login(page);
  await openTab(page, job.id, 'Calendar');
  const cal = page.getByTestId('job-calendar');
  await expect(cal).toHaveAttribute('data-zone', ZONE);
  await expect(cal.getByTestId('calendar-day')).toHaveCount(366);
  for (const r of backfilled) {
    // 20:30 UTC on day D is day D+1 in Tokyo
    const d = formatDate(r.scheduledFor, ZONE);
    expect(d).toBe(addDays(r.scheduledFor.slice(0, 10), 1));
    await expect(cal.locator(`[data-date="${d}"]`)).toHaveAttribute('data-outcome', 'success');
  }
  await expect(cal.locator(`[data-date="${todayDate}"]`)).toHaveAttribute('data-outcome', 'mixed');
  await expect(page.getByTestId('calendar-legend')).toContainText('some failed');
  await expect(page.getByTestId('calendar-summary')).toContainText(`${all.length} runs, ${all.length - 1} succeeded, 1 failed`);

  const day = cal.locator(`[data-date="${todayDate}"]`);
  await day.hover();
  await expect(page.getByTestId('calendar-tooltip')).toContainText(': 2 runs, 1 succeeded, 1 failed');
  await cal.screenshot({ path: `${SHOT_DIR}/job-calendar.png` });

  await day.click();
  await expect(page).toHaveURL(new RegExp(`/runs\\?jobId=${job.id}&from=`));
  await expect(page.getByTestId('runs-total')).toContainText('2 runs match');
  await expect(page.getByTestId('run-row')).toHaveCount(2);
  await expect(page.getByLabel('From', { exact: true })).toHaveValue(`${todayDate}T00:00`);
  await expect(page.getByLabel('To', { exact: true })).toHaveValue(`${todayDate}T23:59`);
});

test('Stats: pick a job, switch to the hourly view of the last 48 h, presets fill From/To, round axis ticks', async ({ page }) => {
  test.setTimeout(150_000);
  const job = await gridJob();
  await login(page);
  await page.goto('/stats');
  await expect(page.getByTestId('stats-scope')).toContainText('every job');

  const picker = page.getByLabel('Job', { exact: true });
  await picker.fill(job.key);
  await picker.press('Enter');
  await expect(page).toHaveURL(new RegExp(`job=${job.id}`));
  await expect(page.getByTestId('stats-scope')).toContainText(`job ${job.key}`);
  // only this job's handlers: extract (noop) and load (flaky); load's attempts 1 + 2 + 2 = 5, 2 of them succeeded
  const table = page.getByTestId('handler-totals');
  await expect(table.getByRole('row')).toHaveCount(3);
  await expect(table.getByRole('row', { name: /builtin\.flaky/ })).toContainText('40.0%');
  await expect(table.getByRole('row', { name: /builtin\.noop/ })).toContainText('100%');

  await page.getByRole('button', { name: 'Hour (48 h)' }).click();
  await expect(page).toHaveURL(/granularity=hour/);
  const panel = page.getByTestId('stats-panel');
  await expect(panel).toHaveAttribute('data-granularity', 'hour');
  await expect(panel).toHaveAttribute('data-points', '48');
  await expect(page.getByRole('heading', { name: 'Outcomes per hour (attempts)', exact: true })).toBeVisible();
  await expect(page.getByTestId('stats-hourly-range')).toHaveText('Last 48 hours, per hour');
  await expect(panel.locator('[data-chart="outcomes"] .recharts-bar-rectangle').first()).toBeVisible();
  await expect(table.getByRole('row', { name: /builtin\.flaky/ })).toContainText('40.0%');
  // duration axis: round steps only (10s, 20s, 30s; never 6.5s, 13s, 19.5s)
  const timeTicks = async () =>
    (await panel.locator('[data-chart="duration"]').first().locator('text').allTextContents()).map((t) => t.trim()).filter((t) => /^[\d.]+(ms|s|m|h)$/.test(t));
  // the chart draws its axis once it has measured its box
  await expect.poll(async () => (await timeTicks()).length).toBeGreaterThan(1);
  const yTicks = await timeTicks();
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const ms = yTicks.map((t) => {
    const m = /^([\d.]+)(ms|s|m|h)$/.exec(t)!;
    return Math.round(Number(m[1]) * unit[m[2]!]!);
  });
  const steps = new Set(ms.slice(1).map((v, i) => v - ms[i]!));
  expect(steps.size).toBe(1);
  expect([1, 2, 5, 10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000]).toContain([...steps][0]);
  await page.screenshot({ path: `${SHOT_DIR}/stats-job-hourly.png`, fullPage: true });

  await page.getByRole('button', { name: 'Day', exact: true }).click();
  await expect(page).not.toHaveURL(/granularity=hour/);
  await expect(page).toHaveURL(new RegExp(`job=${job.id}`));
  // The stats zone is UTC here: a preset is today and the days before it, "today" being the UTC day at the moment
  // the page worked it out: the day before the click or, when a UTC midnight passes meanwhile, the day after.
  const utcToday = () => new Date().toISOString().slice(0, 10);
  const expectLastDays = async (days: number, since: string) => {
    await expect(async () => {
      const to = await page.getByLabel('To', { exact: true }).inputValue();
      expect([since, utcToday()]).toContain(to);
      expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe(addDays(to, -(days - 1)));
    }).toPass({ timeout: 5_000 });
  };
  let since = utcToday();
  await page.getByRole('button', { name: '7 days' }).click();
  await expect(page).toHaveURL(/range=7/);
  await expectLastDays(7, since);
  since = utcToday();
  await page.getByRole('button', { name: '90 days' }).click();
  await expect(page).toHaveURL(/range=90/);
  await expectLastDays(90, since);
  await expect(panel).toHaveAttribute('data-points', '90');
});
