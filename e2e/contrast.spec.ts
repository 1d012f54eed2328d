import { createRequire } from 'node:module';
import { expect, test, type Page } from '@playwright/test';
import { api, runReaches } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { E2E_ADMIN, E2E_BASE_URL } from './helpers/env.ts';

// Every text of the console reads at WCAG AA in both themes: 4.5:1 for body text, 3:1 for large text, as axe-core's
// `color-contrast` rule measures it on the rendered page (hints, axis labels, the sidebar's headings, the top bar's
// zone, secondary links and descriptions included).

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

type Violation = { id: string; nodes: { target: string[]; any: { message: string }[] }[] };

/** The page's color-contrast violations, each as `selector: axe's message`. */
async function contrastViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document, { runOnly: { type: 'rule', values: ['color-contrast'] }, resultTypes: ['violations'] })).violations;
  });
  return (violations as Violation[]).flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.any[0]?.message ?? v.id}`));
}

let jobId: string;

test.beforeAll(async () => {
  test.setTimeout(60_000);
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.contrast.${Date.now().toString(36)}`,
    name: 'Contrast',
    schedule: { kind: 'cron', cron: '*/30 * * * *' },
    handler: 'builtin.fail',
    payload: { message: 'upstream down' },
    policy: { maxRetries: 0 },
  });
  jobId = job.id;
  await runReaches((await api<{ id: string }>('POST', `/jobs/${jobId}/trigger`, {})).id, 'failed');
});

const PAGES = () => ['/', '/jobs', '/jobs/new', `/jobs/${jobId}`, `/jobs/${jobId}?tab=calendar`, `/jobs/${jobId}?tab=runs`, '/runs', '/logs', '/alarms', '/workers', '/stats', '/recycle-bin', '/settings/users'];

for (const theme of ['light', 'dark'] as const) {
  test(`${theme} theme: no text below WCAG AA contrast on the main pages (axe color-contrast)`, async ({ page }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.context().addCookies([{ name: 'tickflow_theme', value: theme, url: E2E_BASE_URL }]);
    await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
    const found: string[] = [];
    for (const path of PAGES()) {
      await page.goto(path);
      await expect(page.locator('main h1').first()).toBeVisible();
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      // charts and live tables draw after their first fetch
      await page.waitForLoadState('networkidle', { timeout: 3_000 }).catch(() => undefined);
      await page.waitForTimeout(500);
      found.push(...(await contrastViolations(page)).map((v) => `${path}: ${v}`));
    }
    expect(found).toEqual([]);
  });
}
