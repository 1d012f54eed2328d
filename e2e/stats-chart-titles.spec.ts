import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// Every chart of the Stats page says what it measures and in what unit, visibly, and is the figure named by
// that title (components/charts/chart-figure.tsx): duration and lateness are both lines of times, and told
// apart only by their titles. At a desktop width and a phone's.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
const isoDay = () => new Date().toISOString().slice(0, 10);
const TIME_UNIT = /\((milliseconds|seconds|minutes|hours)\)$/;
const SUFFIX: Record<string, string> = { milliseconds: 'ms', seconds: 's', minutes: 'm', hours: 'h' };

test.beforeAll(async () => {
  // two handlers with finished attempts today: the per-handler small multiples are drawn
  const ok = await api<{ id: string }>('POST', '/jobs', { key: `e2e.titles.ok.${uniq()}`, name: 'Titles ok', schedule: { kind: 'manual' }, handler: 'builtin.echo', payload: { n: 1 } });
  const bad = await api<{ id: string }>('POST', '/jobs', { key: `e2e.titles.bad.${uniq()}`, name: 'Titles bad', schedule: { kind: 'manual' }, handler: 'builtin.fail' });
  await api('POST', `/jobs/${ok.id}/trigger`, {});
  await api('POST', `/jobs/${bad.id}/trigger`, {});
  await expect
    .poll(async () => {
      const r = await api<{ handlers: { handler: string }[] }>('GET', `/stats/daily?from=${isoDay()}&to=${isoDay()}`);
      return ['builtin.echo', 'builtin.fail'].every((h) => r.handlers.some((x) => x.handler === h));
    }, { timeout: 60_000, intervals: [500] })
    .toBe(true);
});

for (const [width, height] of [[1280, 900], [390, 844]] as const) {
  test(`${width} px: every Stats chart has a visible title with its unit, and is named by it`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    await login(page);
    await page.goto('/stats?range=7');
    const panel = page.getByTestId('stats-panel');

    const outcomes = panel.getByRole('figure', { name: 'Outcomes per day (attempts)', exact: true });
    await expect(outcomes).toBeVisible();
    await expect(outcomes.getByRole('heading', { name: 'Outcomes per day (attempts)' })).toBeVisible();

    for (const [kind, measure] of [['duration', 'Duration per day: p50 and p95'], ['lateness', 'Lateness per day: average start delay']] as const) {
      const figure = panel.getByRole('figure', { name: new RegExp(`^${measure.replace(/[()]/g, '\\$&')} \\(`) });
      await expect(figure).toHaveCount(1);
      const heading = figure.getByRole('heading');
      await expect(heading).toBeVisible();
      const title = (await heading.textContent()) ?? '';
      expect(title).toMatch(TIME_UNIT);
      // the axis is written in the unit the title names
      const suffix = SUFFIX[TIME_UNIT.exec(title)![1]!]!;
      const timeTicks = async () => (await figure.locator(`[data-chart="${kind}"] text`).allTextContents()).map((t) => t.trim()).filter((t) => /^[\d.]+(ms|s|m|h)$/.test(t));
      // the chart draws its axis once it has measured its box, after the heading shows
      await expect.poll(async () => (await timeTicks()).length).toBeGreaterThan(1);
      const ticks = await timeTicks();
      for (const t of ticks) expect(t).toMatch(new RegExp(`^[\\d.]+${suffix}$`));
    }

    // the small multiples: each handler's chart is titled with the handler, the measure and the unit
    for (const handler of ['builtin.echo', 'builtin.fail']) {
      const small = panel.getByRole('figure', { name: `${handler}: outcomes per day (attempts)`, exact: true });
      await small.scrollIntoViewIfNeeded();
      await expect(small.getByRole('heading', { name: `${handler}: outcomes per day (attempts)` })).toBeVisible();
    }
    // and no chart without a title
    const figures = panel.getByRole('figure');
    const count = await figures.count();
    expect(count).toBeGreaterThanOrEqual(5);
    for (let i = 0; i < count; i++) {
      await expect(figures.nth(i)).toHaveAccessibleName(/\((attempts|milliseconds|seconds|minutes|hours)\)$/);
    }
  });
}

test('1920 px: the day labels of every Stats chart are evenly spaced, the latest day labelled', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await login(page);
  const today = new Date();
  const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  // "Nov 8" -> days since the epoch (UTC), the label's year being the latest one not after today
  const dayOf = (label: string) => {
    const [m, d] = label.split(' ');
    const month = MONTHS.indexOf(m!);
    const year = month > today.getUTCMonth() ? today.getUTCFullYear() - 1 : today.getUTCFullYear();
    return Date.UTC(year, month, Number(d)) / 86_400_000;
  };
  for (const range of [30, 90]) {
    await page.goto(`/stats?range=${range}`);
    const charts = page.getByTestId('stats-panel').locator('[data-chart]');
    await expect.poll(() => charts.count()).toBeGreaterThanOrEqual(4);
    for (const chart of await charts.all()) {
      const ticks = chart.locator('text.recharts-cartesian-axis-tick-value[orientation="bottom"]');
      // the chart draws its axis once it has measured its box
      await expect.poll(() => ticks.count()).toBeGreaterThan(2);
      const days = (await ticks.allTextContents()).map((t) => dayOf(t.trim()));
      const steps = days.slice(1).map((d, i) => d - days[i]!);
      // recharts' default interval (preserveEnd) labelled Nov 8, Nov 9, Nov 10, Nov 12, … Nov 28, Nov 30, Dec 1, Dec 2
      expect(new Set(steps).size, `${range} days, ${await chart.getAttribute('data-chart')}: days between labels ${steps.join(', ')}`).toBe(1);
      // the latest day (today in the stats zone, UTC here) keeps its label
      await expect(ticks.last()).toHaveText(`${MONTHS[today.getUTCMonth()]} ${today.getUTCDate()}`);
    }
  }
});
