import { expect, test, type Locator, type Page } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { E2E_BASE_URL } from './helpers/env.ts';
import { THEME_COOKIE } from '../components/theme.ts';
import type { JobGrid } from '../lib/runs/job-grid.ts';

// The job's Grid tab tells a dead-lettered task (`dead`: retries used up) from a failed attempt (`failed`:
// a retry is due) in both themes, and not by colour alone: a dead cell, and the legend's dead swatch, carry
// a mark a failed one does not (components/runs/job-grid-panel.tsx). As on the status badges
// (components/status-badge.tsx), dead is the heavier red of the two, in the dark theme too. The grid's data
// is given to the page (the two states at once, without waiting for a retry schedule); the page, its
// styles and both themes are the real ones.

function gridOf(jobId: string): JobGrid {
  const at = new Date(Date.now() - 60_000).toISOString();
  const run = (id: string, status: string) => ({ id, status, trigger: 'manual', scheduledFor: at, startedAt: at, finishedAt: at, durationMs: 1000 });
  const cell = (taskId: string, status: string) => ({ taskId, status, attempt: 2, startedAt: at, finishedAt: at, durationMs: 1000 });
  const dead = '00000000-0000-4000-8000-00000000dead';
  const failed = '00000000-0000-4000-8000-0000000000fa';
  return {
    jobId,
    runs: [run(dead, 'failed'), run(failed, 'running')],
    steps: ['load'],
    cells: { [dead]: { load: cell('00000000-0000-4000-8000-000000000001', 'dead') }, [failed]: { load: cell('00000000-0000-4000-8000-000000000002', 'failed') } },
    nextCursor: null,
  };
}

/** The relative luminance (WCAG 2.x) of an element's background, as painted: the browser converts any CSS colour. */
async function luminance(el: Locator): Promise<number> {
  return el.evaluate((node) => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = getComputedStyle(node).backgroundColor;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b] = [...ctx.getImageData(0, 0, 1, 1).data].slice(0, 3).map((v) => {
      const c = v / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  });
}

async function openGrid(page: Page, theme: 'light' | 'dark') {
  await page.context().addCookies([{ name: THEME_COOKIE, value: theme, url: E2E_BASE_URL }]);
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.grid.states.${theme}.${Date.now().toString(36)}`, name: 'Grid states', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await page.route(`**/api/v1/jobs/${job.id}/grid**`, (route) => route.fulfill({ json: gridOf(job.id) }));
  await login(page);
  await page.goto(`/jobs/${job.id}?tab=grid`);
  await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
  const grid = page.getByTestId('job-grid');
  await expect(grid).toBeVisible();
  return grid;
}

for (const theme of ['light', 'dark'] as const) {
  test(`${theme} theme: a dead cell and a failed cell differ in mark and in shade, and so do their legend swatches`, async ({ page }) => {
    const grid = await openGrid(page, theme);
    const dead = grid.getByRole('link', { name: /^load in run 00000000: dead$/ });
    const failed = grid.getByRole('link', { name: /^load in run 00000000: failed$/ });
    await expect(dead).toBeVisible();
    await expect(failed).toBeVisible();

    // not by colour alone: the dead cell carries the dead mark, the failed cell none
    await expect(dead.getByTestId('grid-mark-dead')).toBeVisible();
    await expect(failed.locator('svg')).toHaveCount(0);
    // the legend shows the same mark beside "dead", none beside "failed"
    const legend = grid.getByRole('list', { name: 'Legend' });
    await expect(legend.getByRole('listitem').filter({ hasText: /^\s*dead$/ }).getByTestId('grid-mark-dead')).toBeVisible();
    await expect(legend.getByRole('listitem').filter({ hasText: /^\s*failed$/ }).locator('svg')).toHaveCount(0);

    // and in shade: dead is clearly the darker red (as on the status badges), in either theme
    const [d, f] = [await luminance(dead), await luminance(failed)];
    expect(f / d, `failed ${f.toFixed(3)} vs dead ${d.toFixed(3)}`).toBeGreaterThan(2);
    const legendDead = legend.getByRole('listitem').filter({ hasText: /^\s*dead$/ }).locator('[data-swatch]');
    const legendFailed = legend.getByRole('listitem').filter({ hasText: /^\s*failed$/ }).locator('[data-swatch]');
    expect(await luminance(legendDead)).toBeCloseTo(d, 3);
    expect(await luminance(legendFailed)).toBeCloseTo(f, 3);
  });
}
