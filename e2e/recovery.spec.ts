import { expect, test } from '@playwright/test';
import { gotoHydrated, login } from './helpers/auth.ts';
import { E2E_VIEWER } from './helpers/env.ts';
import { api } from './helpers/api.ts';

// Recovery actions as an operator uses them (docs/recovery.md): backfill a past range from
// the job page, mark a failed task success and clear a task with its downstream on the
// run page. Each test makes its own jobs (unique keys); the e2e worker runs the tasks.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
type Job = { id: string; key: string };
type Run = { id: string; status: string };

async function finished(runId: string): Promise<Run> {
  let run: Run | undefined;
  await expect
    .poll(async () => (run = await api<Run>('GET', `/runs/${runId}`)).status, { timeout: 30_000 })
    .toMatch(/^(success|failed|timeout|cancelled|skipped)$/);
  return run!;
}
async function dagRun(prefix: string, aHandler: string): Promise<{ job: Job; run: Run }> {
  const job = await api<Job>('POST', '/jobs', {
    key: `${prefix}.${uniq()}`,
    name: `E2E ${prefix}`,
    schedule: { kind: 'manual' },
    steps: [
      { key: 'a', handler: aHandler, payload: aHandler === 'builtin.fail' ? { message: 'source file missing' } : {} },
      { key: 'b', handler: 'builtin.noop' },
    ],
    edges: [{ from: 'a', to: 'b' }],
  });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  return { job, run: await finished(run.id) };
}
const audit = (jobId: string) => api<{ items: { action: string; reason: string | null }[] }>('GET', `/jobs/${jobId}/audit`);
const utcMinute = (d: Date) => d.toISOString().slice(0, 16);
const SHOT_DIR = 'e2e/__screenshots__';

test.beforeEach(async ({ page }) => {
  await login(page);
});

test('mark success: a failed task is marked success with a reason, its downstream runs and the run ends success', async ({ page }) => {
  const { job, run } = await dagRun('e2e.mark', 'builtin.fail');
  expect(run.status).toBe('failed');
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId('task-status-a')).toHaveText(/dead/i);
  await expect(page.getByTestId('task-status-b')).toHaveText(/skipped/i);
  // b is skipped because a is dead: retrying or clearing b alone would be refused, so neither is
  // offered, and each says what to do instead
  await expect(page.getByTestId('retry-task-b')).toBeDisabled();
  await expect(page.getByTestId('clear-b')).toBeDisabled();
  await expect(page.locator('[data-disabled-reason]').filter({ hasText: 'Parent a ended dead (hard edge): retry a instead' })).toHaveCount(1);
  await expect(page.locator('[data-disabled-reason]').filter({ hasText: 'Parent a ended dead (hard edge): clear a instead' })).toHaveCount(1);
  await expect(page.getByTestId('retry-task-a')).toBeEnabled();

  await page.getByTestId('mark-success-a').click();
  const dialog = page.getByRole('dialog', { name: 'Mark a as success' });
  await dialog.getByRole('button', { name: 'Mark success' }).click();
  await expect(dialog.getByTestId('field-error-recovery-reason-a')).toBeVisible(); // a reason is required
  await dialog.getByLabel('Reason (required)').fill('file loaded by hand');
  await page.screenshot({ path: `${SHOT_DIR}/mark-success-dialog.png` });
  await dialog.getByRole('button', { name: 'Mark success' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('toast').filter({ hasText: 'Task marked success' })).toBeVisible();

  // The page follows the run without a reload: the task, its released downstream and the run's status.
  await expect(page.getByTestId('task-status-a')).toHaveText(/success/i);
  await expect(page.getByTestId('task-status-b')).toHaveText(/success/i, { timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveText('success', { timeout: 30_000 });
  expect((await finished(run.id)).status).toBe('success');
  expect((await audit(job.id)).items).toEqual([expect.objectContaining({ action: 'mark_success', reason: 'file loaded by hand' })]);
});

test('a dead-lettered job whose failed task is marked success still says why it was paused (not "after 0 failed runs")', async ({ page }) => {
  const job = await api<Job>('POST', '/jobs', {
    key: `e2e.deadletter.${uniq()}`, name: 'E2E dead letter', schedule: { kind: 'manual' },
    handler: 'builtin.fail', policy: { maxRetries: 0, deadLetterAfter: 1 },
  });
  const run = await finished((await api<Run>('POST', `/jobs/${job.id}/trigger`, {})).id);
  expect(run.status).toBe('failed');
  const tasks = (await api<{ tasks: { id: string }[] }>('GET', `/runs/${run.id}`)).tasks;
  await api('POST', `/tasks/${tasks[0]!.id}/mark-success`, { reason: 'done by hand' });
  await page.goto(`/jobs/${job.id}`);
  // marking success reset the job's failure counter; the job stays dead-lettered until resumed
  const notice = page.getByTestId('dead-letter-notice');
  // the count when it moved and the error of the run that moved it (builtin.fail's message)
  await expect(notice).toContainText(/the system paused this job \(dead letter after 1 failed run; last error: \S+: .+\)/);
  await expect(notice).not.toContainText('after 0');
  // the run failed, then was marked success: it counts once, under success
  await expect(page.getByText('1 total · 1 succeeded · 0 failed', { exact: true })).toBeVisible();
});

test('clear downstream: a finished task and its downstream run again in the same run', async ({ page }) => {
  const { job, run } = await dagRun('e2e.clear', 'builtin.noop');
  expect(run.status).toBe('success');
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId('task-status-b')).toHaveText(/success/i);
  // b is a leaf: nothing downstream to clear, so it offers a plain Clear
  await expect(page.getByTestId('clear-a')).toHaveText('Clear downstream');
  await expect(page.getByTestId('clear-b')).toHaveText('Clear');

  await page.getByTestId('clear-a').click();
  const dialog = page.getByRole('dialog', { name: 'Clear a and everything downstream' });
  await dialog.getByLabel('Reason (optional)').fill('upstream data corrected');
  await dialog.getByRole('button', { name: 'Clear and re-run' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('toast').filter({ hasText: 'Tasks cleared: they run again' })).toBeVisible();

  // Both ran a second time (attempt 2) and the run is success again.
  const second = 'attempt 2 (1 automatic + 1 by operator)';
  await expect(page.getByTestId('task-attempt-a')).toHaveText(second, { timeout: 30_000 });
  await expect(page.getByTestId('task-attempt-b')).toHaveText(second, { timeout: 30_000 });
  await expect(page.getByTestId('task-status-b')).toHaveText(/success/i);
  await expect(page.getByTestId('run-status')).toHaveText('success');
  expect((await finished(run.id)).status).toBe('success');
  expect((await audit(job.id)).items).toEqual([expect.objectContaining({ action: 'clear', reason: 'upstream data corrected' })]);

  // The plain Clear of the leaf re-runs b alone.
  await page.getByTestId('clear-b').click();
  const leaf = page.getByRole('dialog', { name: 'Clear b' });
  await expect(leaf).toContainText('no other task depends on it');
  await leaf.getByRole('button', { name: 'Clear and re-run' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Task cleared: it runs again' })).toBeVisible();
  await expect(page.getByTestId('task-attempt-b')).toHaveText('attempt 3 (1 automatic + 2 by operator)', { timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveText('success');
  await expect(page.getByTestId('task-attempt-a')).toHaveText(second);
});

test.describe('in a display zone with DST', () => {
  test.use({ timezoneId: 'America/New_York' });

  test('backfill across a fall-back: a range ending in the repeated hour holds both of its slots, each end labelled with its own offset', async ({ page }) => {
    const job = await api<Job>('POST', '/jobs', {
      key: `e2e.backfill.dst.${uniq()}`,
      name: 'E2E backfill DST',
      schedule: { kind: 'cron', cron: '0 * * * *', timezone: 'America/New_York' },
      handler: 'builtin.noop',
    });
    await gotoHydrated(page, `/jobs/${job.id}`);
    await page.getByRole('button', { name: 'Backfill' }).click();
    const dialog = page.getByRole('dialog', { name: 'Backfill past slots' });
    // 2026-11-01: New York's clocks go back from 02:00 EDT to 01:00 EST, so 01:00-01:59 happens twice
    await dialog.getByLabel(/^From \(/).fill('2026-11-01T00:00');
    await dialog.getByLabel(/^To \(/).fill('2026-11-01T01:59');
    await expect(dialog.getByLabel('From (UTC\u22124)')).toHaveValue('2026-11-01T00:00');
    await expect(dialog.getByLabel('To (UTC\u22125)')).toHaveValue('2026-11-01T01:59');
    await dialog.getByRole('button', { name: 'Preview slots' }).click();
    const slots = dialog.getByTestId('backfill-slot');
    await expect(slots).toHaveCount(3);
    await expect(slots.nth(0)).toContainText('2026-11-01 00:00 UTC\u22124');
    await expect(slots.nth(1)).toContainText('2026-11-01 01:00 UTC\u22124');
    await expect(slots.nth(2)).toContainText('2026-11-01 01:00 UTC\u22125');
  });
});

test('backfill: pick a past range, read the slot preview, confirm, and see the backfill runs', async ({ page }) => {
  const job = await api<Job>('POST', '/jobs', {
    key: `e2e.backfill.${uniq()}`,
    name: 'E2E backfill',
    schedule: { kind: 'cron', cron: '0 * * * *', timezone: 'UTC' },
    handler: 'builtin.noop',
  });
  const hour = new Date();
  hour.setUTCMinutes(0, 0, 0);
  const from = new Date(hour.getTime() - 3 * 3_600_000);
  const to = new Date(hour.getTime() - 1 * 3_600_000);

  await page.goto(`/jobs/${job.id}`);
  await page.getByRole('button', { name: 'Backfill' }).click();
  const dialog = page.getByRole('dialog', { name: 'Backfill past slots' });
  // From after To is refused, naming the field.
  await dialog.getByLabel('From (UTC)').fill(utcMinute(to));
  await dialog.getByLabel('To (UTC)').fill(utcMinute(from));
  await dialog.getByRole('button', { name: 'Preview slots' }).click();
  await expect(dialog.getByTestId('field-error-backfill-from')).toBeVisible();

  await dialog.getByLabel('From (UTC)').fill(utcMinute(from));
  await dialog.getByLabel('To (UTC)').fill(utcMinute(to));
  await dialog.getByRole('button', { name: 'Preview slots' }).click();
  await expect(dialog.getByTestId('backfill-slot')).toHaveCount(3);
  await expect(dialog.getByTestId('backfill-slot').first()).toContainText(`${utcMinute(from).replace('T', ' ')} UTC`);
  await expect(dialog.getByTestId('backfill-summary')).toHaveText('3 runs will be created; 0 slots are skipped (already run, or still to be fired by the schedule).');
  await dialog.getByLabel('Reason (optional)').fill('worker outage');
  await dialog.screenshot({ path: `${SHOT_DIR}/backfill-preview.png` });
  await dialog.getByRole('button', { name: 'Backfill 3 runs' }).click();

  await expect(page).toHaveURL(/\/runs\?.*trigger=backfill/);
  await expect.poll(async () => (await api<{ items: Run[] }>('GET', `/runs?jobId=${job.id}&trigger=backfill`)).items.length).toBe(3);
  await expect(page.locator('tbody').getByText(job.key, { exact: true })).toHaveCount(3);

  // The same range again: every slot already has a run.
  await page.goto(`/jobs/${job.id}`);
  await page.getByRole('button', { name: 'Backfill' }).click();
  await dialog.getByLabel('From (UTC)').fill(utcMinute(from));
  await dialog.getByLabel('To (UTC)').fill(utcMinute(to));
  await dialog.getByRole('button', { name: 'Preview slots' }).click();
  await expect(dialog.getByTestId('backfill-slot').first()).toContainText('skipped: has a backfill run');
  await expect(dialog.getByTestId('backfill-confirm')).toBeDisabled();
  expect((await audit(job.id)).items).toEqual([expect.objectContaining({ action: 'backfill', reason: 'worker outage' })]);

  // The job's recovery history shows who backfilled what, and why.
  await page.keyboard.press('Escape');
  await page.getByRole('tab', { name: 'Versions' }).click();
  const history = page.getByTestId('recovery-history');
  await expect(history.locator('tbody tr')).toHaveCount(1);
  await expect(history).toContainText('3 runs created, 0 slots skipped');
  await expect(history).toContainText(`${utcMinute(from).replace('T', ' ')}:00 UTC`); // the range in the display zone (this user's: UTC), labelled
  await expect(history).toContainText('worker outage');
});

test('a viewer finds Backfill, Mark success and Clear downstream disabled', async ({ page }) => {
  const { job, run } = await dagRun('e2e.recovery-viewer', 'builtin.fail');
  const cron = await api<Job>('POST', '/jobs', { key: `e2e.recovery-viewer-cron.${uniq()}`, name: 'E2E viewer cron', schedule: { kind: 'cron', cron: '0 * * * *', timezone: 'UTC' }, handler: 'builtin.noop' });
  await page.context().clearCookies();
  await login(page, E2E_VIEWER.email, E2E_VIEWER.password);
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId('mark-success-a')).toBeDisabled();
  await expect(page.getByTestId('clear-a')).toBeDisabled();
  await page.goto(`/jobs/${cron.id}`);
  await expect(page.getByRole('button', { name: 'Backfill' })).toBeDisabled();
  expect((await audit(job.id)).items).toEqual([]);
});
