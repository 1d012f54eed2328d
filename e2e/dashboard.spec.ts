import { mkdirSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import pg from 'pg';
import { login } from './helpers/auth.ts';
import { api } from './helpers/api.ts';

// Stats dashboard: real runs through the real worker produce today's
// handler_stats_daily rows; 29 earlier days of history are seeded straight into the
// aggregate table (the page reads only that table, so this is exactly what a month of
// operation looks like to it). The page must draw the stacked outcome bars, the duration
// and lateness trends and the handler table; a screenshot is saved for review.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
const SHOT_DIR = 'e2e/__screenshots__';

function isoDay(offsetDays: number): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

/** Deterministic history for the last 29 days (UTC days, the default stats time zone). */
async function seedHistory(): Promise<void> {
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error('E2E_DATABASE_URL is not set (e2e/global-setup.ts sets it)');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const handlers: [string, number, number[]][] = [
      // handler, base volume, bucket shape (13 buckets: <10ms ... >=300s)
      ['http', 120, [0, 2, 10, 30, 35, 15, 5, 2, 1, 0, 0, 0, 0]],
      ['report.build', 24, [0, 0, 0, 0, 0, 2, 6, 8, 5, 3, 0, 0, 0]],
      ['sql', 60, [10, 30, 12, 5, 2, 1, 0, 0, 0, 0, 0, 0, 0]],
    ];
    for (let d = 29; d >= 1; d--) {
      const date = isoDay(-d);
      for (const [i, [handler, base, shape]] of handlers.entries()) {
        const wave = Math.round(base * (0.7 + 0.3 * Math.sin((d + i * 3) / 3)));
        const failure = (d + i) % 6 === 0 ? Math.round(wave * 0.15) : Math.round(wave * 0.02);
        const timeout = handler === 'report.build' && d % 9 === 0 ? 3 : 0;
        const attempts = wave + failure + timeout;
        const weight = shape.reduce((a, b) => a + b, 0);
        const buckets = shape.map((s) => Math.floor((s / weight) * attempts));
        buckets[shape.indexOf(Math.max(...shape))] += attempts - buckets.reduce((a, b) => a + b, 0);
        const avg = handler === 'http' ? 320 : handler === 'sql' ? 40 : 6200;
        await client.query(
          `INSERT INTO handler_stats_daily (stat_date, handler, success, failure, timeout, dead_letter, total_duration_ms, max_duration_ms,
                                            total_lateness_ms, lateness_count, duration_buckets)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (stat_date, handler, slot) DO NOTHING`,
          [date, handler, wave, failure, timeout, failure > 5 ? 1 : 0, attempts * avg, avg * 6, wave * (150 + 40 * ((d * 7) % 5)), wave, buckets],
        );
      }
    }
  } finally {
    await client.end();
  }
}

test('the stats dashboard draws charts from seeded and real data', async ({ page }) => {
  test.setTimeout(180_000);
  // Real runs through the worker: an echo job succeeds, a fail job fails.
  // The runs are counted on the (UTC) day they end: asked from the day they were triggered to the day of each
  // poll, so that runs ending after a midnight that passes meanwhile are still found.
  const firstDay = isoDay(0);
  const ok = await api<{ id: string }>('POST', '/jobs', { key: `e2e.stats.ok.${uniq()}`, name: 'E2E stats ok', schedule: { kind: 'manual' }, handler: 'builtin.echo', payload: { n: 1 }, policy: { blockStrategy: 'serial_execution' } });
  const bad = await api<{ id: string }>('POST', '/jobs', { key: `e2e.stats.bad.${uniq()}`, name: 'E2E stats bad', schedule: { kind: 'manual' }, handler: 'builtin.fail', policy: { blockStrategy: 'serial_execution' } });
  for (let i = 0; i < 3; i++) await api('POST', `/jobs/${ok.id}/trigger`, {});
  for (let i = 0; i < 2; i++) await api('POST', `/jobs/${bad.id}/trigger`, {});
  await expect
    .poll(
      async () => {
        const r = await api<{ handlers: { handler: string; success: number; failure: number }[] }>('GET', `/stats/daily?from=${firstDay}&to=${isoDay(0)}`);
        const echo = r.handlers.find((h) => h.handler === 'builtin.echo');
        const fail = r.handlers.find((h) => h.handler === 'builtin.fail');
        return (echo?.success ?? 0) >= 3 && (fail?.failure ?? 0) >= 2;
      },
      { timeout: 120_000, intervals: [500] },
    )
    .toBe(true);
  await seedHistory();

  await login(page);
  await page.setViewportSize({ width: 1440, height: 1100 });
  await page.goto('/stats?range=30');
  await expect(page.getByRole('heading', { name: 'Stats' })).toBeVisible();

  const panel = page.getByTestId('stats-panel');
  // stacked bars (three series) with rectangles drawn, p50/p95 and lateness lines
  const outcomes = panel.locator('[data-chart="outcomes"]').first();
  await expect(outcomes.locator('.recharts-bar-rectangle').first()).toBeVisible();
  expect(await outcomes.locator('.recharts-bar').count()).toBe(3);
  await expect(panel.locator('[data-chart="duration"] .recharts-line-curve')).toHaveCount(2);
  await expect(panel.locator('[data-chart="lateness"] .recharts-line-curve')).toHaveCount(1);
  // Axis ticks are round durations (10s, 20s, 30s), never the maximum cut in four (6.5s, 13s, 19.5s).
  const timeTicks = async () =>
    (await panel.locator('[data-chart="duration"]').first().locator('text').allTextContents()).map((t) => t.trim()).filter((t) => /^[\d.]+(ms|s|m|h)$/.test(t));
  // the chart draws its axis once it has measured its box
  await expect.poll(async () => (await timeTicks()).length).toBeGreaterThan(1);
  const yTicks = await timeTicks();
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const ms = yTicks.map((t) => {
    const m = /^([\d.]+)(ms|s|m|h)$/.exec(t);
    if (!m) throw new Error(`tick label ${t}`);
    return Math.round(Number(m[1]) * unit[m[2]!]!);
  });
  const steps = new Set(ms.slice(1).map((v, i) => v - ms[i]!));
  expect(steps.size).toBe(1);
  expect([1, 2, 5, 10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000]).toContain([...steps][0]);
  // per-handler small multiples and the totals table
  await expect(panel.locator('[data-handler="http"] [data-chart="outcomes"]')).toBeVisible();
  const table = page.getByTestId('handler-totals');
  for (const h of ['http', 'report.build', 'sql', 'builtin.echo', 'builtin.fail']) await expect(table.getByRole('cell', { name: h, exact: true })).toBeVisible();
  await expect(table.getByRole('row', { name: /builtin\.fail/ })).toContainText('0%');

  // the console scrolls inside its own pane, so make the window tall enough for the whole page
  await page.setViewportSize({ width: 1440, height: 2100 });
  await expect(page.getByTestId('handler-totals')).toBeInViewport();
  mkdirSync(SHOT_DIR, { recursive: true });
  await page.screenshot({ path: `${SHOT_DIR}/dashboard.png`, fullPage: true });
  await page.setViewportSize({ width: 1440, height: 1100 });

  // the handler filter narrows everything to one handler
  await page.getByLabel('Handler').selectOption('http');
  await expect(page).toHaveURL(/handler=http/);
  await expect(table.getByRole('row')).toHaveCount(2);
  // 7-day range
  await page.getByRole('button', { name: '7 days' }).click();
  await expect(page).toHaveURL(/range=7/);
  await expect(page.getByRole('button', { name: '7 days' })).toHaveAttribute('aria-pressed', 'true');
});

test('alarms page lists alarms and queues a test alarm', async ({ page }) => {
  await login(page);
  await page.goto('/alarms');
  await expect(page.getByRole('heading', { name: 'Alarms' })).toBeVisible();
  await page.getByRole('button', { name: 'Send test alarm' }).click();
  await page.getByLabel('Channel').selectOption('log');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByText('Test alarm queued')).toBeVisible();
  const table = page.getByTestId('alarms-table');
  await expect(table.getByText('Tickflow test alarm requested by').first()).toBeVisible();
  // the worker's alarm dispatcher delivers it (log channel) within a few seconds
  await expect
    .poll(
      async () => {
        await page.reload();
        return (await page.getByTestId('alarms-table').locator('tbody tr').first().textContent()) ?? '';
      },
      { timeout: 30_000, intervals: [1000] },
    )
    .toContain('sent');
  await page.screenshot({ path: `${SHOT_DIR}/alarms.png`, fullPage: true });
});

test('stats: a From without a To reads up to today; a To alone is refused by name', async ({ page }) => {
  await login(page);
  await page.goto(`/stats?from=${isoDay(-10)}`);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.locator('body')).not.toContainText('Invalid range');
  await page.goto(`/stats?to=${isoDay(0)}`);
  await expect(page.locator('body')).toContainText('Invalid range (from: Must be a date');
});
