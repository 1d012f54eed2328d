import { expect, test, type Page } from '@playwright/test';
import { login, gotoHydrated } from './helpers/auth.ts';
import { api } from './helpers/api.ts';

// Operator journeys through the console: create a job in the form,
// Run now and watch the run succeed with its task-log timeline; field errors; pause/resume;
// delete -> recycle bin -> restore. Runs against the built app, a real worker and PostgreSQL
// started by e2e/global-setup.ts.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

/** Creates a manual one-step job through the REST API (setup for journeys that are not about the form). */
async function apiJob(prefix: string): Promise<{ id: string; key: string }> {
  const key = `${prefix}.${uniq()}`;
  const job = await api<{ id: string; key: string }>('POST', '/jobs', { key, name: `E2E ${prefix}`, schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  return { id: job.id, key: job.key };
}

async function openJob(page: Page, id: string) {
  await page.goto(`/jobs/${id}`);
  await expect(page.getByTestId('job-status')).toBeVisible();
}

test.beforeEach(async ({ page }) => {
  await login(page);
});

test('create a cron job in the form, Run now, the run reaches success with pending -> running -> success logs', async ({ page }) => {
  const key = `e2e.echo.${uniq()}`;
  await gotoHydrated(page, '/jobs/new');
  await page.getByLabel('Key').fill(key);
  await page.getByLabel('Name').fill('E2E echo');
  await page.getByLabel('Cron expression').fill('* * * * *');
  await page.getByLabel('Time zone').fill('UTC');
  // The live preview answers from GET /api/v1/schedule/preview: five fire times.
  await expect(page.getByTestId('fire-times').locator('tbody tr')).toHaveCount(5);
  await page.getByLabel('Handler').selectOption('builtin.echo');
  await page.getByLabel('Payload').fill('{"hello":"world"}');
  // The job fires every minute, so a scheduled run can be active when Run now is pressed:
  // under the default block strategy (discard_later) the manual run would then be
  // recorded as skipped. serial_execution queues it behind the active run instead.
  await page.getByLabel('Block strategy').selectOption('serial_execution');
  await page.getByRole('button', { name: 'Create job' }).click();

  await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);
  // the form says it succeeded, on the page it opens
  await expect(page.getByTestId('toast').filter({ hasText: 'Job created' })).toBeVisible();
  const jobUrl = page.url();
  await expect(page.getByRole('heading', { name: key })).toBeVisible();
  await expect(page.getByTestId('job-status')).toHaveText('active');
  await expect(page.getByTestId('fire-times').locator('tbody tr')).toHaveCount(5);

  await page.getByRole('button', { name: 'Run now', exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('run-status')).toHaveText('success', { timeout: 30_000 });
  await expect(page.getByTestId('task-status-main')).toHaveText('success');

  const rows = page.getByTestId('task-log-row');
  await expect(rows.last()).toHaveAttribute('data-to', 'success');
  const transitions = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-to')));
  expect(transitions.slice(0, 3)).toEqual(['pending', 'running', 'success']);
  // builtin.echo returns its payload as output.
  await expect(page.getByTestId('task-section-main').getByTestId('json-block').first()).toContainText('"hello": "world"');

  // The job's Runs tab lists the run.
  await page.goto(page.url().replace(/\/runs\/.*/, '/runs'));
  await expect(page.getByTestId('runs-table')).toBeVisible();

  // The job page's run history strip shows it as a success cell linking to the run.
  await page.goto(jobUrl);
  const strip = page.getByTestId('run-history-strip');
  await expect(strip.locator('a[data-status="success"]').first()).toBeVisible();
  await expect(strip.locator('a[data-status="success"]').first()).toHaveAttribute('href', /\/runs\/[0-9a-f-]{36}$/);
  // Last run: one run's own status beside its own time, linking to that run (docs/console.md "Last run")
  const lastRun = page.getByTestId('job-last-run');
  await expect(lastRun).toHaveAttribute('href', /\/runs\/[0-9a-f-]{36}$/);
  await expect(lastRun.locator('time')).toHaveCount(1);
});

test('bad JSON, bad key, bad cron and no handler show errors next to their fields and create nothing', async ({ page }) => {
  const key = `bad key ${uniq()}!`;
  await gotoHydrated(page, '/jobs/new');
  // A new job runs nothing until the operator picks a handler.
  await expect(page.getByLabel('Handler')).toHaveValue('');
  await page.getByLabel('Key').fill(key);
  await page.getByLabel('Name').fill('E2E invalid');
  await page.getByLabel('Cron expression').fill('61 * * * *');
  await page.getByLabel('Payload').fill('{"hello": ');
  await page.getByRole('button', { name: 'Create job' }).click();

  // Bad JSON is caught before anything is sent, and with it every other field the schema refuses:
  // all the errors at once, not one round after the other.
  await expect(page.getByTestId('field-error-payload')).toContainText('JSON');
  await expect(page.getByLabel('Payload')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('field-error-key')).toBeVisible();
  await expect(page.getByTestId('field-error-cron')).toBeVisible();
  await expect(page.getByTestId('field-error-handler')).toHaveText('Handler is required');
  await expect(page).toHaveURL(/\/jobs\/new$/);

  // Fix the JSON: the key and the cron expression are still named (now by the server too).
  await page.getByLabel('Payload').fill('{"hello": "world"}');
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page.getByTestId('field-error-key')).toBeVisible();
  await expect(page.getByTestId('field-error-cron')).toBeVisible();
  await expect(page.getByLabel('Cron expression')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('field-error-handler')).toHaveText('Handler is required');
  await expect(page.getByLabel('Handler')).toHaveAttribute('aria-invalid', 'true');
  await expect(page).toHaveURL(/\/jobs\/new$/);
  // The user's input is kept.
  await expect(page.getByLabel('Key')).toHaveValue(key);
  await expect(page.getByLabel('Cron expression')).toHaveValue('61 * * * *');

  const list = await api<{ items: unknown[] }>('GET', `/jobs?q=${encodeURIComponent('E2E invalid')}`);
  expect(list.items).toHaveLength(0);
});

test('a refused save names every field at once by its label, the schedule that would never fire among them', async ({ page }) => {
  await gotoHydrated(page, '/jobs/new');
  await page.getByLabel('Key').fill(`e2e.never.${uniq()}`);
  await page.getByRole('radio', { name: 'Once' }).click();
  await page.getByLabel('Run at').fill('2020-01-01T09:00');
  await page.getByLabel('Handler').selectOption('builtin.echo');
  await page.getByLabel('Payload').fill('{"hello": ');
  await page.getByLabel('Timeout (seconds)').fill('0');
  await page.getByRole('button', { name: 'Create job' }).click();

  await expect(page.getByTestId('field-error-runAt')).toHaveText('Is in the past: this job would never fire');
  await expect(page.getByTestId('field-error-payload')).toContainText('JSON');
  await expect(page.getByTestId('field-error-name')).toBeVisible();
  await expect(page.getByTestId('field-error-timeoutSeconds')).toBeVisible();
  await expect(page.getByTestId('form-error-summary')).toHaveText('Fix 4 fields: Name, Run at, Payload, Timeout (seconds)');

  // With the form's own errors fixed, the server names the rest in one answer, the schedule included.
  await page.getByLabel('Payload').fill('{"hello": "world"}');
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page.getByTestId('form-error-summary')).toHaveText('Fix 3 fields: Name, Run at, Timeout (seconds)');
  await expect(page.getByTestId('field-error-runAt')).toHaveText('Is in the past: this job would never fire');
  await expect(page).toHaveURL(/\/jobs\/new$/);
});

/** Scrolls the console's main pane so that the field `id` sits under the sticky Save bar, where a refused save must not leave it. */
async function scrollUnderSaveBar(page: Page, id: string) {
  await page.evaluate((fieldId) => {
    const field = document.getElementById(fieldId)!.getBoundingClientRect();
    const bar = document.querySelector('[data-testid="form-save-bar"]')!.getBoundingClientRect();
    document.querySelector('main')!.scrollTop += field.top - (bar.top + 4);
  }, id);
}

test('a refused save focuses the first bad field in the middle of the view, clear of the sticky Save bar', async ({ page }) => {
  await gotoHydrated(page, '/jobs/new');
  await page.getByLabel('Key').fill(`e2e.focus.${uniq()}`);
  await page.getByLabel('Name').fill('E2E focus');
  await page.getByLabel('Cron expression').fill('0 2 * * *');
  await page.getByLabel('Handler').selectOption('builtin.noop');
  await page.getByLabel('Misfire cap (runs)').fill('-1');
  // first refused by the server (the effect after its answer), then by the form's own check (a bad label pair)
  for (const refusedBy of ['server', 'form'] as const) {
    const id = 'misfireMaxCatchup';
    if (refusedBy === 'form') await page.getByLabel('Labels', { exact: true }).fill('not a pair');
    await scrollUnderSaveBar(page, id);
    await page.getByRole('button', { name: 'Create job' }).click();
    await expect(page.getByTestId(`field-error-${id}`)).toBeVisible();
    await expect(page.locator(`#${id}`)).toBeFocused();
    const field = (await page.locator(`#${id}`).boundingBox())!;
    const error = (await page.getByTestId(`field-error-${id}`).boundingBox())!;
    const bar = (await page.getByTestId('form-save-bar').boundingBox())!;
    expect(field.y, refusedBy).toBeGreaterThanOrEqual(0);
    expect(error.y + error.height, refusedBy).toBeLessThanOrEqual(bar.y);
  }
});

test('pause and resume a job', async ({ page }) => {
  const job = await apiJob('e2e.pause');
  await openJob(page, job.id);
  await expect(page.getByTestId('job-status')).toHaveText('active');
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByTestId('job-status')).toHaveText('paused');
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByTestId('job-status')).toHaveText('active');
  // Both changes are versions.
  await page.goto(`/jobs/${job.id}?tab=versions`);
  await expect(page.getByTestId('versions-table').locator('tbody tr')).toHaveCount(3);
});

test('a paused cron job says none of its schedule\'s next fire times fires until it is resumed', async ({ page }) => {
  const key = `e2e.pausedfires.${uniq()}`;
  const job = await api<{ id: string }>('POST', '/jobs', { key, name: 'Paused fires', schedule: { kind: 'cron', cron: '0 3 * * *', timezone: 'UTC' }, handler: 'builtin.noop' });
  await openJob(page, job.id);
  await expect(page.getByTestId('fire-times-heading')).toHaveText('Next 5 fire times');
  await api('POST', `/jobs/${job.id}/pause`, { reason: 'e2e' });
  await openJob(page, job.id);
  await expect(page.getByTestId('job-status')).toHaveText('paused');
  await expect(page.getByTestId('fire-times-heading')).toHaveText(/the job is paused: none of them fires until it is resumed/);
});

test('a staggered job\'s next 5 fire times are the instants it fires at, starting at its next fire', async ({ page }) => {
  const key = `e2e.staggerfires.${uniq()}`;
  const created = await api<{ id: string }>('POST', '/jobs', { key, name: 'Staggered fires', schedule: { kind: 'cron', cron: '0 * * * *', timezone: 'Asia/Kolkata' }, staggerSeconds: 3000, handler: 'builtin.noop' });
  await api('POST', `/jobs/${created.id}/pause`, { reason: 'e2e: no run while the page is read' });
  const job = await api<{ nextFireTimes: string[] }>('GET', `/jobs/${created.id}`);
  // slot + the job's offset: hourly, the same minute and second each time (README "Window and stagger")
  const minSec = new Set(job.nextFireTimes.map((t) => t.slice(14, 19)));
  expect(job.nextFireTimes).toHaveLength(5);
  expect(minSec.size).toBe(1);
  await openJob(page, created.id);
  const utcCells = page.getByTestId('fire-times').locator('tbody tr td:nth-child(2)');
  await expect(utcCells).toHaveCount(5);
  for (const [i, t] of job.nextFireTimes.entries()) await expect(utcCells.nth(i)).toContainText(`${t.slice(11, 19)}`);
});

test('delete moves a job to the recycle bin; restore brings it back', async ({ page }) => {
  const job = await apiJob('e2e.bin');
  await openJob(page, job.id);
  await page.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(/\/jobs$/);

  await page.goto(`/recycle-bin?q=${encodeURIComponent(job.key)}`);
  const row = page.locator(`[data-testid="recycle-bin-row"][data-job-key="${job.key}"]`);
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'Restore' }).click();
  await expect(row).toHaveCount(0);

  await openJob(page, job.id);
  await expect(page.getByTestId('job-status')).toHaveText('active');
  await expect(page.getByText('This job is in the recycle bin')).toHaveCount(0);
});

test('restore refuses clearly when the key is taken by a new job', async ({ page }) => {
  const job = await apiJob('e2e.taken');
  await api('DELETE', `/jobs/${job.id}`);
  await api('POST', '/jobs', { key: job.key, name: 'Takes the key', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await page.goto(`/recycle-bin?q=${encodeURIComponent(job.key)}`);
  const row = page.locator(`[data-testid="recycle-bin-row"][data-job-key="${job.key}"]`);
  await row.getByRole('button', { name: 'Restore' }).click();
  await expect(row.getByTestId('restore-error')).toContainText('used by another job');
  await expect(row).toBeVisible();
});

test('a stale edit gets a clear conflict with what changed, and nothing is overwritten', async ({ page }) => {
  const job = await apiJob('e2e.conflict');
  await page.goto(`/jobs/${job.id}/edit`);
  await page.getByLabel('Name').fill('Edited in the browser');
  // Someone else changes the job meanwhile.
  const current = await api<{ version: number }>('GET', `/jobs/${job.id}`);
  await api('PATCH', `/jobs/${job.id}`, { name: 'Changed by the API', expectedVersion: current.version });
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('conflict-banner')).toBeVisible();
  await expect(page.getByTestId('conflict-detail')).toContainText('name');
  await expect(page.getByLabel('Name')).toHaveValue('Edited in the browser');
  const after = await api<{ name: string }>('GET', `/jobs/${job.id}`);
  expect(after.name).toBe('Changed by the API');
});
