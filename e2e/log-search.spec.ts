import { expect, test } from '@playwright/test';
import { login } from './helpers/auth.ts';
import { runReaches, shellJob, triggerJob } from './helpers/api.ts';
import { E2E_VIEWER } from './helpers/env.ts';

// The console's log search (/logs, docs/task-logs.md "Search"): a viewer types a text, reads the hits of
// every job newest first with the text marked, pages on, narrows to one job, and opens a hit on its run
// page at the lines written around it.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

/** A manual shell job printing `count` lines `marker-<id> <n>`; the script spells the marker in two parts, so its own `$ …` line does not match. */
async function printingJob(id: string, name: string, count: number) {
  const script = `i=1; while [ $i -le ${count} ]; do echo "mark""er-${id} $i"; i=$((i+1)); done`;
  const job = await shellJob(`e2e.logsearch.${name}.${id}`, `Log search ${name}`, script);
  const runId = await triggerJob(job.id);
  await runReaches(runId, 'success');
  return { jobId: job.id, runId };
}

test('a viewer searches log lines across jobs, pages on, narrows to a job and opens a hit at its lines', async ({ page }) => {
  const id = uniq();
  const many = await printingJob(id, 'many', 60);
  const one = await printingJob(id, 'one', 1);
  await login(page, E2E_VIEWER.email, E2E_VIEWER.password);

  await page.goto('/');
  await page.locator('nav[aria-label="Main"]').first().getByRole('link', { name: 'Logs' }).click();
  await expect(page.getByRole('heading', { name: 'Logs', level: 1 })).toBeVisible();
  await expect(page.getByTestId('logs-prompt')).toBeVisible();

  // too short: marked refused beside the field, not searched; the reason is written once, naming the field by its label
  await page.getByRole('searchbox', { name: 'Text' }).fill('ma');
  await expect(page.locator('main').getByRole('alert')).toHaveText('Text: Search text must be at least 3 characters');
  await expect(page.getByTestId('filter-refused')).toHaveText('refused');
  await expect(page.locator('main')).not.toContainText('Invalid q');
  expect(await page.locator('main').evaluate((m) => m.textContent!.split('Search text must be at least 3 characters').length - 1)).toBe(1);

  await page.getByRole('searchbox', { name: 'Text' }).fill(`MARKER-${id}`);
  const hits = page.getByTestId('log-hit');
  await expect(hits).toHaveCount(50);
  // newest first: the one-line job ran last; every hit marks the text it matched, whatever its case
  await expect(hits.first().getByTestId('log-hit-text')).toHaveText(`marker-${id} 1`);
  await expect(hits.first().locator('mark')).toHaveText(`marker-${id}`);
  await expect(page.getByText('Page 1 · 50 shown')).toBeVisible();

  await page.getByRole('link', { name: 'Next' }).click();
  await expect(page.getByText('Page 2 · 11 shown')).toBeVisible();
  await expect(hits).toHaveCount(11);
  await page.getByRole('link', { name: 'Prev' }).click();
  await expect(page.getByText('Page 1 · 50 shown')).toBeVisible();

  // one job (the URL takes the job's id, as the job picker sets it)
  await page.goto(`/logs?q=marker-${id}&jobId=${one.jobId}`);
  await expect(hits).toHaveCount(1);
  await page.goto(`/logs?q=marker-${id}%2030&jobId=${many.jobId}`);
  await expect(hits).toHaveCount(1);
  await expect(hits.first().getByTestId('log-hit-text')).toHaveText(`marker-${id} 30`);

  // the hit opens its run, on its task, at the very line found (the 60 lines are written within a
  // millisecond or two: the instant alone would name the first of them)
  await hits.first().getByTestId('log-hit-link').click();
  await expect(page).toHaveURL(new RegExp(`/runs/${many.runId}\\?task=main#lines-`));
  await expect(page.getByTestId('task-lines-main').locator('[data-highlight="true"]')).toHaveText(new RegExp(`marker-${id} 30$`));

  // a link naming an attempt the task does not have selects nothing: attempt 1's lines, no error, no retry loop
  const taskId = /#lines-([0-9a-f-]{36})-/.exec(page.url())![1]!;
  const asked: string[] = [];
  page.on('request', (r) => { if (r.url().includes(`/tasks/${taskId}/logs`)) asked.push(r.url()); });
  await page.goto(`/runs/${many.runId}?task=main#lines-${taskId}-7-0`);
  await expect(page.getByTestId('task-lines-main').getByTestId('lines-count')).toHaveText('62 lines');
  await expect(page.getByText('Could not load lines')).toHaveCount(0);
  expect(asked.filter((u) => u.includes('attempt=7'))).toEqual([]);

  // a text found nowhere says so, with a way back
  await page.goto(`/logs?q=nothing-${id}`);
  await expect(page.getByTestId('list-empty-filtered')).toBeVisible();
});
