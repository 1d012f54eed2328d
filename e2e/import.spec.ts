import { expect, test } from '@playwright/test';
import { login } from './helpers/auth.ts';
import { E2E_ADMIN } from './helpers/env.ts';
import { api } from './helpers/api.ts';

// Crontab upload: the jobs list links to /jobs/import; a crontab file becomes a
// dry-run preview (jobs that would be created, lines that cannot be converted with their
// reasons), then Import creates paused shell jobs.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

// imported entries run `shell`, which only an admin may put on a job (docs/security.md)
test.beforeEach(async ({ page }) => {
  await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
});

test('upload a crontab: preview the jobs and the unconvertible lines, then import paused shell jobs', async ({ page }) => {
  const prefix = `e2e.cron.${uniq()}`;
  const crontab = ['SHELL=/bin/bash', 'MAILTO=ops@example.com', '30 2 * * * /usr/local/bin/backup.sh', '@reboot /usr/bin/warmup', '@hourly date', '99 * * * * /bin/bad'].join('\n');

  await page.goto('/jobs');
  await page.getByRole('link', { name: 'Import crontab' }).click();
  await expect(page).toHaveURL(/\/jobs\/import$/);
  await expect(page.getByRole('heading', { name: 'Import crontab' })).toBeVisible();

  await page.getByLabel('Crontab file').setInputFiles({ name: 'crontab', mimeType: 'text/plain', buffer: Buffer.from(crontab) });
  await expect(page.getByLabel('Crontab text')).toHaveValue(crontab);
  await page.getByLabel('Time zone').fill('Europe/Berlin');
  await page.getByLabel('Time zone').press('Escape');
  await page.getByLabel('Key prefix').fill(prefix);
  // Import needs a current preview first.
  await expect(page.getByRole('button', { name: 'Import' })).toBeDisabled();
  await page.getByRole('button', { name: 'Preview' }).click();

  const preview = page.getByTestId('import-preview');
  await expect(preview).toContainText('2 job(s) would be created, 2 line(s) cannot be converted');
  await expect(preview.getByTestId('import-job-row')).toHaveCount(2);
  await expect(preview.locator(`[data-job-key="${prefix}.l3.backup.sh"]`)).toContainText('30 2 * * *');
  await expect(preview.locator(`[data-job-key="${prefix}.l3.backup.sh"]`)).toContainText('Europe/Berlin');
  await expect(preview.locator('[data-testid="import-skipped-row"][data-line="4"]')).toContainText('@reboot is not supported');
  await expect(preview.locator('[data-testid="import-skipped-row"][data-line="6"]')).toContainText('invalid schedule');
  // The preview wrote nothing.
  expect((await api<{ items: unknown[] }>('GET', `/jobs?q=${encodeURIComponent(prefix)}`)).items).toHaveLength(0);

  await page.getByRole('button', { name: 'Import' }).click();
  const result = page.getByTestId('import-result');
  await expect(result).toContainText('Imported 2 paused job(s)');
  await expect(result.getByTestId('import-skipped-row')).toHaveCount(2);

  const jobs = await api<{ items: { key: string; status: string }[] }>('GET', `/jobs?q=${encodeURIComponent(prefix)}&sort=key`);
  expect(jobs.items.map((j) => [j.key, j.status])).toEqual([
    [`${prefix}.l3.backup.sh`, 'paused'],
    [`${prefix}.l5.date`, 'paused'],
  ]);
  // The created job opens from the result, paused, with the shell step.
  await result.getByRole('link', { name: `${prefix}.l3.backup.sh` }).click();
  await expect(page.getByTestId('job-status')).toHaveText('paused');
  const created = await api<{ steps: { handler: string; config: Record<string, unknown> }[]; schedule: unknown }>('GET', page.url().replace(/.*\/jobs/, '/jobs'));
  expect(created.schedule).toMatchObject({ kind: 'cron', cron: '30 2 * * *', timezone: 'Europe/Berlin' });
  expect(created.steps[0]).toMatchObject({ handler: 'shell', config: { command: ['/bin/bash', '-c', '/usr/local/bin/backup.sh'] } });
});

test('system format reads the user column; a second import of the same file reports the key collisions', async ({ page }) => {
  const prefix = `e2e.crond.${uniq()}`;
  await page.goto('/jobs/import');
  await page.getByLabel('Crontab text').fill('17 * * * * root cd / && run-parts /etc/cron.hourly');
  await page.getByLabel('Key prefix').fill(prefix);
  await page.getByRole('button', { name: 'Preview' }).click();
  // Without the system format, "root" is taken as the command, and the preview says it looks like a user column.
  await expect(page.getByTestId('import-preview').getByTestId('import-job-row')).toContainText('root cd /');
  await expect(page.getByTestId('import-preview').getByTestId('import-warning')).toContainText('like the user column of a system crontab');
  await page.getByLabel('System format (user column)').check();
  await expect(page.getByRole('button', { name: 'Import' })).toBeDisabled();
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByTestId('import-preview').getByTestId('import-job-row')).toContainText('cd / && run-parts /etc/cron.hourly');
  await expect(page.getByTestId('import-preview').getByTestId('import-job-row')).not.toContainText('root cd');
  await expect(page.getByTestId('import-preview').getByTestId('import-warning')).toHaveCount(0);
  await page.getByRole('button', { name: 'Import' }).click();
  await expect(page.getByTestId('import-result')).toContainText('Imported 1 paused job(s)');

  // Same file again: nothing to create, the collision is named on its line.
  await page.getByRole('button', { name: 'Preview' }).click();
  const preview = page.getByTestId('import-preview');
  await expect(preview).toContainText('0 job(s) would be created, 1 line(s) cannot be converted');
  await expect(preview.locator('[data-testid="import-skipped-row"][data-line="1"]')).toContainText('already used by another job');
  await expect(page.getByRole('button', { name: 'Import' })).toBeDisabled();
});

test('bad input shows field errors: unknown time zone and bad key prefix', async ({ page }) => {
  await page.goto('/jobs/import');
  await page.getByLabel('Crontab text').fill('* * * * * /bin/true');
  await page.getByLabel('Time zone').fill('Mars/Olympus');
  await page.getByLabel('Time zone').press('Escape');
  await page.getByLabel('Key prefix').fill('bad prefix');
  await page.getByRole('button', { name: 'Preview' }).click();
  await expect(page.getByTestId('field-error-timezone')).toContainText('Unknown time zone');
  await expect(page.getByTestId('field-error-keyPrefix')).toBeVisible();
  await expect(page.getByTestId('import-preview')).toHaveCount(0);
});

test('a crontab file that is not UTF-8 is refused at the text, not read with U+FFFD in place of its bytes', async ({ page }) => {
  await page.goto('/jobs/import');
  // "0 2 * * * echo café" saved as Latin-1 (é = 0xE9)
  const latin1 = Buffer.concat([Buffer.from('0 2 * * * echo caf'), Buffer.from([0xe9]), Buffer.from('\n')]);
  await page.getByLabel('Crontab file').setInputFiles({ name: 'latin1.cron', mimeType: 'text/plain', buffer: latin1 });
  await expect(page.getByTestId('field-error-text')).toHaveText('latin1.cron is not valid UTF-8: save it as UTF-8 and choose it again');
  await expect(page.getByLabel('Crontab text')).toHaveValue('');
  // the same file saved as UTF-8 is read, and the error goes
  await page.getByLabel('Crontab file').setInputFiles({ name: 'utf8.cron', mimeType: 'text/plain', buffer: Buffer.from('0 2 * * * echo café\n') });
  await expect(page.getByLabel('Crontab text')).toHaveValue('0 2 * * * echo café\n');
  await expect(page.getByTestId('field-error-text')).toHaveCount(0);
});
