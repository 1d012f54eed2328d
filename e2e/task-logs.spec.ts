import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { login } from './helpers/auth.ts';
import { api, runReaches, shellJob, triggerJob } from './helpers/api.ts';
import { E2E_VIEWER } from './helpers/env.ts';

// Live task log lines on the run page (docs/task-logs.md): a shell step prints a line every
// second; a viewer watches them arrive while the run is running (each within 1 s of being
// written), then filters by level and text, toggles wrapping, downloads them, and follows
// a task-log state change to the lines around it.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
const SCRIPT = 'for i in 1 2 3 4 5 6 7 8 9 10; do echo "tick $i"; if [ $i = 4 ]; then echo "half way there" >&2; fi; sleep 1; done';

test('lines stream live onto the run page and can be filtered, unwrapped, downloaded and linked', async ({ page }) => {
  const job = await shellJob(`e2e.lines.${uniq()}`, 'Live lines', SCRIPT);
  await login(page, E2E_VIEWER.email, E2E_VIEWER.password);
  // A freshly started console loads a route on its first request: do that before timing anything.
  await api('GET', '/logs/search?q=warm-up');
  await api('GET', '/tasks/00000000-0000-4000-8000-000000000000/logs').catch(() => undefined);
  const runId = await triggerJob(job.id);
  await page.goto(`/runs/${runId}`);

  // Every line that appears is timed against the instant it was written (same machine clock).
  await page.evaluate(() => {
    const w = window as unknown as { lineDelays: number[] };
    w.lineDelays = [];
    const seen = new Set<string>();
    // Timed: lines written after the panel showed its first line (the tail is running; the
    // first request of a freshly started console loads the route, which is not the tail's pace).
    let tailing = Infinity;
    const scan = () => {
      for (const el of document.querySelectorAll('[data-testid="task-line"]')) {
        const seq = el.getAttribute('data-seq')!;
        if (seen.has(seq)) continue;
        seen.add(seq);
        tailing = Math.min(tailing, Date.now());
        const written = Date.parse(el.querySelector('time')!.getAttribute('datetime')!);
        if (written > tailing) w.lineDelays.push(Date.now() - written);
      }
    };
    new MutationObserver(scan).observe(document.body, { childList: true, subtree: true });
    scan();
  });

  const box = page.getByTestId('task-lines-main');
  const lines = box.getByTestId('task-line');
  await expect(lines.filter({ hasText: 'tick 2' })).toBeVisible();
  await expect(box).toHaveAttribute('data-live', 'true');
  // That the lines arrive live, not at the end, is judged by the lines written after the panel
  // showed its first one (lineDelays, below), not by what the page shows at one instant: on a
  // loaded machine the page can open when most of the script has run.

  await expect(page.getByTestId('run-status')).toHaveText(/success/i, { timeout: 30_000 });
  await expect(lines.filter({ hasText: 'exited with code 0' })).toBeVisible();
  // $ command, 10 ticks, one stderr line, the exit line
  await expect(lines).toHaveCount(13);
  const delays = await page.evaluate(() => (window as unknown as { lineDelays: number[] }).lineDelays);
  expect(delays.length, `delays ${delays.join(', ')}`).toBeGreaterThanOrEqual(3);
  // Lines written after the panel showed its first line reached the page while the task ran.
  // How fast they arrive is a figure, not an assertion (a loaded machine is slower); the delays
  // are kept in the report.
  test.info().annotations.push({ type: 'line delays (ms)', description: delays.join(', ') });

  // Level filter: warn and above = the stderr line only.
  await box.getByTestId('lines-level').selectOption('warn');
  await expect(lines).toHaveCount(1);
  await expect(lines.first()).toContainText('half way there');
  await expect(lines.first()).toHaveAttribute('data-stream', 'stderr');
  // Text filter, together with all levels.
  await box.getByTestId('lines-level').selectOption('debug');
  await box.getByTestId('lines-filter').fill('TICK 7');
  await expect(lines).toHaveCount(1);
  await expect(lines.first()).toContainText('tick 7');
  await expect(box.getByTestId('lines-count')).toHaveText('1 of 13 lines');
  await box.getByTestId('lines-filter').fill('');
  await expect(lines).toHaveCount(13);
  // A filter that matches nothing says so (not "no lines written") and clears in one click.
  await box.getByTestId('lines-level').selectOption('error');
  await box.getByTestId('lines-filter').fill('no such line');
  await expect(box.getByTestId('lines-none-match')).toContainText('No line matches the filter.');
  await box.getByTestId('lines-none-match').getByRole('button', { name: 'Clear filter' }).click();
  await expect(lines).toHaveCount(13);
  await expect(box.getByTestId('lines-filter')).toHaveValue('');

  // Wrap toggle.
  await expect(lines.first()).toHaveClass(/whitespace-pre-wrap/);
  await box.getByTestId('lines-wrap').uncheck();
  await expect(lines.first()).not.toHaveClass(/whitespace-pre-wrap/);
  await expect(lines.first()).toHaveClass(/whitespace-pre/);

  // Download: every line as text.
  const [download] = await Promise.all([page.waitForEvent('download'), box.getByTestId('lines-download').click()]);
  expect(download.suggestedFilename()).toBe('main-attempt-1.log');
  const text = readFileSync((await download.path())!, 'utf8');
  expect(text.trim().split('\n')).toHaveLength(13);
  expect(text).toMatch(/Z WARN {2}stderr {3}half way there\n/);
  expect(text).toContain('tick 10');

  // From the running -> success state change to the lines around it: the last line.
  const changes = page.getByTestId('task-log-main').getByTestId('task-log-row');
  // each change names its attempt with the glossary's word (as the tasks table does), never a bare "#1", and its
  // link says what it opens
  await expect(changes.first().getByTestId('task-log-attempt')).toHaveText('attempt 1');
  await expect(page.getByTestId('task-log-main')).not.toContainText('#1');
  await expect(changes.first().getByRole('link', { name: 'Log lines of attempt 1 from this change on' })).toHaveText('log lines');
  // the claim names its worker once: "claimed by <node>", with no "on <node>" under it (docs/task-logs.md "State
  // changes"); the change that ended the attempt, whose message does not name it, says where it ran
  const claimed = page.locator('[data-testid="task-log-row"][data-to="running"]').first();
  await expect(claimed).toContainText('claimed by');
  await expect(claimed.getByTestId('task-log-node')).toHaveCount(0);
  await expect(page.locator('[data-testid="task-log-row"][data-to="success"]').first().getByTestId('task-log-node')).toHaveText(/^on \S+$/);
  await changes.filter({ has: page.locator('[data-to="success"]') }).or(page.locator('[data-testid="task-log-row"][data-to="success"]')).first().getByTestId('state-change-lines-link').click();
  await expect(box.locator('[data-highlight="true"]')).toContainText('exited with code 0');
  // From pending -> running: the first line.
  await page.locator('[data-testid="task-log-row"][data-to="running"]').first().getByTestId('state-change-lines-link').click();
  await expect(box.locator('[data-highlight="true"]')).toContainText('$ /bin/sh -c');
});

test('the page of a running run and the runs list hydrate without a clock mismatch, and the elapsed time ticks', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.elapsed.${uniq()}`,
    name: 'Elapsed',
    schedule: { kind: 'manual' },
    handler: 'builtin.sleep',
    payload: { ms: 20_000 },
    policy: { timeoutSeconds: 60 },
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await login(page, E2E_VIEWER.email, E2E_VIEWER.password);
  const runId = await triggerJob(job.id);
  await runReaches(runId, 'running', 15_000);
  // Rendered on the server while running: a duration read from the server's clock in render
  // would differ from the browser's and fail hydration (React error #418).
  await page.goto(`/runs/${runId}`);
  const duration = page.getByText(/^\d+(\.\d+)? s so far$/);
  await expect(duration).toBeVisible();
  const first = await duration.textContent();
  await expect.poll(() => duration.textContent(), { timeout: 5_000 }).not.toBe(first);
  await page.goto(`/runs?jobId=${job.id}`);
  await expect(page.getByText(/^\d+(\.\d+)? s…$/).first()).toBeVisible();
  expect(errors).toEqual([]);
  await api('POST', `/runs/${runId}/cancel`, {});
});

test('an attempt of 5,000 lines puts only the lines in view in the page, and scrolling, filtering and links still reach every line', async ({ page }) => {
  const job = await shellJob(`e2e.manylines.${uniq()}`, 'Many lines', 'i=1; while [ $i -le 5000 ]; do echo "row $i"; i=$((i+1)); done');
  const runId = await triggerJob(job.id);
  await runReaches(runId, 'success');
  await login(page, E2E_VIEWER.email, E2E_VIEWER.password);
  await page.goto(`/runs/${runId}`);
  const box = page.getByTestId('task-lines-main');
  const lines = box.getByTestId('task-line');
  // $ command, 5,000 rows, the exit line
  await expect(box.getByTestId('lines-count')).toHaveText('5,002 lines', { timeout: 20_000 });
  // a finished log opens at its end, drawn as a screenful, not 5,002 rows
  await expect(lines.filter({ hasText: 'exited with code 0' })).toBeVisible();
  expect(await lines.count()).toBeLessThan(150);
  // scrolled to the top, the first lines are drawn in place of the last
  await box.getByTestId('task-lines').evaluate((el) => el.scrollTo({ top: 0 }));
  await expect(lines.filter({ hasText: /^.*\$ \/bin\/sh -c/ })).toBeVisible();
  await expect(lines.filter({ hasText: 'exited with code 0' })).toHaveCount(0);
  expect(await lines.count()).toBeLessThan(150);
  // the text filter searches every line, drawn or not
  await box.getByTestId('lines-filter').fill('row 2718');
  await expect(lines).toHaveCount(1);
  await expect(lines.first()).toContainText('row 2718');
  await expect(box.getByTestId('lines-count')).toHaveText('1 of 5,002 lines');
  await box.getByTestId('lines-filter').fill('');
  // the state change that ended the attempt links to its last lines, wherever the box was scrolled
  await page.locator('[data-testid="task-log-row"][data-to="success"]').first().getByTestId('state-change-lines-link').click();
  await expect(box.locator('[data-highlight="true"]')).toContainText('exited with code 0');
  await expect(box.locator('[data-highlight="true"]')).toBeInViewport();
});
