import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { E2E_ADMIN, E2E_BASE_URL } from './helpers/env.ts';
import { expectFitsScreen } from './helpers/layout.ts';
import { trackRequests } from './helpers/settle.ts';

// Every page of the console, visited as an admin from a browser in another zone than the server's: no console
// error, no hydration warning, no uncaught exception. A page that logs one fails this test with the message.
// No page prefetches the routes it links to (components/ui/link.tsx): a job's calendar tab alone made 277 requests.
// Every page in the light theme; in the dark theme, the pages whose components draw by the theme (below).
// In the light theme, on a 1280 px screen, each page is also no wider or taller than the screen (only the content
// scrolls: e2e/helpers/layout.ts; e2e/narrow-screen.spec.ts checks the same at 390 px).

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
type Run = { id: string; status: string };

test.use({ timezoneId: 'America/Sao_Paulo' });

for (const theme of ['light', 'dark'] as const)
test(`no console error or hydration warning on any page (${theme} theme)`, async ({ page, context }) => {
  test.setTimeout(180_000);
  // the theme cookie the server reads (components/theme.ts), as the top bar's toggle sets it
  await context.addCookies([{ name: 'tickflow_theme', value: theme, url: E2E_BASE_URL }]);
  // Data that exercises the time and graph code: a job in EST5EDT, a DAG job with a finished run, a deleted job.
  await api('POST', '/jobs', { key: `e2e.errors.est.${uniq()}`, name: 'EST5EDT', schedule: { kind: 'cron', cron: '30 6 * * 1-5', timezone: 'EST5EDT' }, handler: 'builtin.noop' });
  const dag = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.errors.dag.${uniq()}`,
    name: 'DAG',
    schedule: { kind: 'manual' },
    steps: [
      { key: 'a', handler: 'builtin.noop' },
      { key: 'b', handler: 'builtin.echo' },
    ],
    edges: [{ from: 'a', to: 'b', type: 'hard' }],
  });
  const run = await api<Run>('POST', `/jobs/${dag.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('success');
  const gone = await api<{ id: string }>('POST', '/jobs', { key: `e2e.errors.gone.${uniq()}`, name: 'Deleted', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await api('DELETE', `/jobs/${gone.id}`);

  const problems: string[] = [];
  let where = '';
  page.on('console', (m) => {
    if (m.type() === 'error' || /hydrat|did not match/i.test(m.text())) problems.push(`${where}: console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`${where}: uncaught ${e.message}`));
  const requests = trackRequests(page);

  await page.setViewportSize({ width: 1280, height: 800 });
  await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
  const pages = [
    '/',
    '/jobs',
    '/jobs?sort=next_run_at&dir=asc',
    '/jobs/new',
    '/jobs/import',
    `/jobs/${dag.id}`,
    `/jobs/${dag.id}?tab=graph`,
    `/jobs/${dag.id}?tab=runs`,
    `/jobs/${dag.id}?tab=grid`,
    `/jobs/${dag.id}?tab=calendar`,
    `/jobs/${dag.id}?tab=versions`,
    `/jobs/${dag.id}/edit`,
    `/jobs/${gone.id}`,
    '/runs',
    '/logs',
    '/logs?q=hello',
    `/runs/${run.id}`,
    `/runs/${run.id}?task=b`,
    '/workers',
    '/stats',
    `/stats?job=${dag.id}`,
    `/stats?granularity=hour&job=${dag.id}`,
    '/stats?granularity=hour',
    '/alarms',
    '/recycle-bin',
    '/settings/users',
    '/settings/tokens',
  ];
  // The dark theme changes what the server renders for every page the same way (a class on <html>), and what a
  // few components draw themselves (the charts, the graph, the run grid and calendar, the log terminal, the
  // form's pickers): those pages are visited again in dark, the rest once, in light, which keeps the CI run in its
  // 30 minutes.
  const darkPages = new Set(['/', '/jobs/new', `/jobs/${dag.id}?tab=graph`, `/jobs/${dag.id}?tab=grid`, `/jobs/${dag.id}?tab=calendar`, `/runs/${run.id}?task=b`, '/stats', `/stats?granularity=hour&job=${dag.id}`]);
  expect([...darkPages].filter((p) => !pages.includes(p))).toEqual([]);
  for (const path of theme === 'dark' ? pages.filter((p) => darkPages.has(p)) : pages) {
    where = path;
    const res = await page.goto(path);
    expect(res?.status(), path).toBeLessThan(400);
    // Hydrated and its first queries answered; then the effects after hydration run (the display zone switches to
    // the browser's, relative times start ticking).
    await requests.settled();
    await page.waitForTimeout(300);
    if (theme === 'light') await expectFitsScreen(page, path);
  }
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  expect(problems).toEqual([]);
  expect(requests.prefetches).toEqual([]);
});

test('a query key given more than once reads as its first value on every page, and NUL in a filter is refused on the page: never a 500', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.errors.repeat.${uniq()}`, name: 'Repeated keys', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
  for (const path of [
    '/logs?q=line&q=abc', '/logs?q=line&trail=a&trail=b', '/jobs?trail=a&trail=b', '/jobs?q=a&q=b&sort=name&sort=key', '/runs?trail=a&trail=b',
    `/runs?jobId=${job.id}&jobId=${job.id}`, '/alarms?jobId=a&jobId=b', `/stats?job=${job.id}&job=x`, '/recycle-bin?q=a&q=b&trail=a&trail=b',
    `/jobs/${job.id}?tab=runs&tab=grid`, `/runs/${run.id}?task=main&task=x`,
    // text PostgreSQL refuses (NUL) in a filter: refused by name on the page, not a 500
    '/stats?handler=%00', '/stats?granularity=hour&handler=%00', '/runs?q=%00', '/jobs?q=%00', '/logs?q=%00abc', '/recycle-bin?q=%00', '/alarms?jobId=%00',
    `/runs/${run.id}?task=%00`, `/jobs/${job.id}?tab=%00`,
  ]) {
    const res = await page.request.get(path, { maxRedirects: 0 });
    expect(res.status(), path).toBeLessThan(400);
  }
  // the first value is the one read: the logs page searches for it
  await page.goto('/logs?q=line&q=abc');
  await expect(page.getByLabel('Text', { exact: true })).toHaveValue('line');
});
