import { expect, test, type Page } from '@playwright/test';
import { login } from './helpers/auth.ts';
import { api } from './helpers/api.ts';
import { withDb } from './helpers/database.ts';
import { E2E_API_TOKEN, E2E_BASE_URL } from './helpers/env.ts';

// Operator journeys beyond console.spec.ts: version history (diff + rollback),
// runs list filters, run cancel and retry, recycle-bin purge, Run now with a
// payload override, bulk pause. Each test makes its own jobs (unique keys).

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
type Job = { id: string; key: string };
type Run = { id: string; status: string };

async function apiJob(prefix: string, body: Record<string, unknown> = {}): Promise<Job> {
  const key = `${prefix}.${uniq()}`;
  return api<Job>('POST', '/jobs', { key, name: `E2E ${prefix}`, schedule: { kind: 'manual' }, handler: 'builtin.noop', ...body });
}

async function finished(runId: string): Promise<Run> {
  let run: Run | undefined;
  await expect
    .poll(async () => (run = await api<Run>('GET', `/runs/${runId}`)).status, { timeout: 30_000 })
    .toMatch(/^(success|failed|timeout|cancelled|skipped)$/);
  return run!;
}

const confirm = (page: Page, name: string) => page.getByRole('alertdialog').getByRole('button', { name, exact: true }).click();

test.beforeEach(async ({ page }) => {
  await login(page);
});

test('version history: two edits, side-by-side diff of two versions, rollback as a new version', async ({ page }) => {
  const job = await apiJob('e2e.versions', { description: 'first' });
  // Edit 1 and 2 through the form.
  for (const [name, description] of [
    ['Renamed once', 'second'],
    ['Renamed twice', 'third'],
  ]) {
    await page.goto(`/jobs/${job.id}/edit`);
    await page.getByLabel('Name').fill(name);
    await page.getByLabel('Description').fill(description);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}$`));
    await expect(page.getByTestId('toast').filter({ hasText: 'Job saved' }).first()).toBeVisible();
    // the description reads under the name, at the head of the page
    await expect(page.getByTestId('job-description')).toHaveText(description);
    await expect(page.getByText(name).first()).toBeVisible();
  }

  await page.getByRole('tab', { name: 'Versions' }).click();
  const table = page.getByTestId('versions-table');
  await expect(table.locator('tbody tr')).toHaveCount(3);
  // The hint says how to compare until a diff is open.
  const hint = page.getByText('Tick two versions to compare them side by side.');
  await expect(hint).toBeVisible();
  // Pick v1 and v3 (the two newest are preselected: untick v2, tick v1).
  await page.getByRole('checkbox', { name: 'Compare version 2' }).uncheck();
  await page.getByRole('checkbox', { name: 'Compare version 1' }).check();
  await page.getByRole('button', { name: /Compare v1 ↔ v3/ }).click();
  const diff = page.getByTestId('version-diff');
  await expect(diff).toContainText('v1 ↔ v3');
  await expect(hint).toHaveCount(0);
  const nameRow = diff.locator('tr', { hasText: /^name/ });
  await expect(nameRow).toContainText('E2E e2e.versions');
  await expect(nameRow).toContainText('Renamed twice');
  await expect(diff.locator('tr', { hasText: /^description/ })).toContainText('third');

  // Roll back to v1: a new version v4 with change type rollback, the old name is back.
  await table.locator('tbody tr', { hasText: 'v1' }).getByRole('button', { name: 'Rollback' }).click();
  await confirm(page, 'Rollback');
  await expect(table.locator('tbody tr')).toHaveCount(4);
  const v4 = table.locator('tbody tr').first();
  await expect(v4).toContainText('v4');
  await expect(v4).toContainText('current');
  await expect(v4).toContainText('rollback');
  const after = await api<{ name: string; description: string; version: number }>('GET', `/jobs/${job.id}`);
  expect(after).toMatchObject({ name: 'E2E e2e.versions', description: 'first', version: 4 });
  // the compare box starts afresh on the new version: the v1 ↔ v3 diff is gone, the newest two are picked
  await expect(diff).toHaveCount(0);
  await page.getByRole('button', { name: /Compare v3 ↔ v4/ }).click();
  await expect(page.getByTestId('version-diff')).toContainText('v3 ↔ v4');

  // A pause and a resume record versions v5 and v6, but Compare still opens on the last edit
  await api('POST', `/jobs/${job.id}/pause`, {});
  await api('POST', `/jobs/${job.id}/resume`, {});
  await page.reload();
  await page.getByRole('tab', { name: 'Versions' }).click();
  await expect(table.locator('tbody tr')).toHaveCount(6);
  await expect(page.getByRole('checkbox', { name: 'Compare version 4' })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: 'Compare version 6' })).not.toBeChecked();
  await page.getByRole('button', { name: /Compare v3 ↔ v4/ }).click();
  await expect(page.getByTestId('version-diff')).toContainText('v3 ↔ v4');

  // Rollback is offered only where it restores a configuration: v5 (a pause) and v4 (the rollback the job is back
  // at) hold the current configuration, so their buttons are disabled and say why; v3 still differs.
  const rollbackOf = (v: number) => table.locator('tbody tr').filter({ has: page.getByRole('checkbox', { name: `Compare version ${v}`, exact: true }) }).getByRole('button', { name: 'Rollback' });
  await expect(rollbackOf(6)).toHaveCount(0); // the current version
  for (const [v, why] of [
    [5, 'Nothing to roll back: v5 only records a pause; its configuration is the current one (v6)'],
    [4, "Nothing to roll back: v4's configuration is the current one (v6)"],
  ] as const) {
    await expect(rollbackOf(v)).toBeDisabled();
    await expect(rollbackOf(v)).toHaveAccessibleDescription(why);
  }
  await expect(rollbackOf(3)).toBeEnabled();
  // the REST route refuses the same, naming the field
  const refused = await fetch(`${E2E_BASE_URL}/api/v1/jobs/${job.id}/rollback`, {
    method: 'POST',
    headers: { authorization: `Bearer ${E2E_API_TOKEN}`, 'content-type': 'application/json', 'idempotency-key': `rb-${uniq()}` },
    body: JSON.stringify({ version: 5 }),
  });
  expect(refused.status).toBe(422);
  expect((await refused.json()).error.fields.version).toBe('Nothing to roll back: v5 only records a pause; its configuration is the current one (v6)');
});

test('runs list filters by job, status and trigger', async ({ page }) => {
  const ok = await apiJob('e2e.filter.ok');
  const bad = await apiJob('e2e.filter.bad', { handler: 'builtin.fail', payload: { message: 'boom' }, policy: { maxRetries: 0 } });
  const okRun = await api<Run>('POST', `/jobs/${ok.id}/trigger`, {});
  const badRun = await api<Run>('POST', `/jobs/${bad.id}/trigger`, {});
  expect((await finished(okRun.id)).status).toBe('success');
  expect((await finished(badRun.id)).status).toBe('failed');

  await page.goto('/runs');
  const rows = page.getByTestId('run-row');
  // The job filter is searchable: type part of the key and press Enter.
  await page.getByLabel('Job').fill(ok.key);
  await page.getByLabel('Job').press('Enter');
  await expect(page).toHaveURL(new RegExp(`jobId=${ok.id}`));
  await expect(rows).toHaveCount(1);
  await expect(page.locator(`[data-run-id="${okRun.id}"]`)).toBeVisible();

  await page.getByLabel('Job').fill(bad.key);
  await page.getByLabel('Job').press('Enter');
  await expect(page.locator(`[data-run-id="${badRun.id}"]`)).toBeVisible();
  await expect(rows).toHaveCount(1);
  await page.getByLabel('Status').selectOption('failed');
  await expect(page).toHaveURL(/status=failed/);
  await expect(page.locator(`[data-run-id="${badRun.id}"]`)).toBeVisible();
  await page.getByLabel('Status').selectOption('success');
  await expect(rows).toHaveCount(0);
  await page.getByLabel('Status').selectOption('');
  await page.getByLabel('Trigger').selectOption('manual');
  await expect(page).toHaveURL(/trigger=manual/);
  await expect(rows).toHaveCount(0);
  await page.getByLabel('Trigger').selectOption('api');
  await expect(page.locator(`[data-run-id="${badRun.id}"]`)).toBeVisible();
  await expect(rows).toHaveCount(1);
});

test('run detail: cancel a running builtin.sleep run', async ({ page }) => {
  const job = await apiJob('e2e.cancel', { handler: 'builtin.sleep', payload: { ms: 30_000 } });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId('run-status')).toHaveText('running', { timeout: 20_000 });
  await page.getByRole('button', { name: 'Cancel run' }).click();
  // The dialog's two buttons say what each does: no "Cancel" next to "Cancel run".
  await expect(page.getByRole('alertdialog').getByRole('button')).toHaveText(['Keep running', 'Cancel run']);
  await confirm(page, 'Cancel run');
  await expect(page.getByTestId('run-status')).toHaveText('cancelled');
  await expect(page.getByTestId('task-status-main')).toHaveText('cancelled');
  // a finished run offers no Cancel run
  await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);
  expect((await api<Run>('GET', `/runs/${run.id}`)).status).toBe('cancelled');
});

test('run detail: retry a failed run as a new run linked in the retry chain', async ({ page }) => {
  const job = await apiJob('e2e.retry', { handler: 'builtin.fail', payload: { message: 'nope' }, policy: { maxRetries: 0 } });
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId('run-status')).toHaveText('failed', { timeout: 30_000 });
  await expect(page.getByTestId('run-error')).toContainText('nope');
  await page.getByRole('button', { name: 'Retry run' }).click();
  await expect(page).not.toHaveURL(new RegExp(`/runs/${run.id}$`));
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  const chain = page.getByTestId('retry-chain');
  await expect(chain.locator('li')).toHaveCount(2);
  await expect(chain.getByRole('link', { name: run.id.slice(0, 8) })).toBeVisible();
  await expect(page.getByTestId('run-status')).toHaveText('failed', { timeout: 30_000 });
  const newId = page.url().split('/').pop()!;
  expect(await api('GET', `/runs/${newId}`)).toMatchObject({ trigger: 'retry', parentRunId: run.id });
});

test('recycle bin purge: gone from the bin and the job, its runs still listed', async ({ page }) => {
  const job = await apiJob('e2e.purge');
  const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
  await finished(run.id);
  await api('DELETE', `/jobs/${job.id}`);

  await page.goto(`/recycle-bin?q=${encodeURIComponent(job.key)}`);
  const row = page.locator(`[data-testid="recycle-bin-row"][data-job-key="${job.key}"]`);
  await row.getByRole('button', { name: 'Purge' }).click();
  await confirm(page, 'Purge');
  await expect(row).toHaveCount(0);
  await page.reload();
  await expect(row).toHaveCount(0);

  expect(await api('GET', `/runs/${run.id}`)).toMatchObject({ jobId: job.id, jobPurged: true });
  // the runs list and the run page name the purged job as text: a link would open "not found"
  await page.goto(`/runs?jobId=${job.id}`);
  const listed = page.locator(`[data-run-id="${run.id}"]`);
  await expect(listed).toBeVisible();
  await expect(listed.getByTestId('job-purged')).toHaveText(`${job.key} (purged)`);
  await expect(page.locator(`main a[href^="/jobs/${job.id}"]`)).toHaveCount(0);
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId('run-status')).toHaveText('success');
  await expect(page.getByTestId('job-purged')).toHaveText(`${job.key} (purged)`);
  await expect(page.locator(`main a[href^="/jobs/${job.id}"]`)).toHaveCount(0);
});

test('Run now with a payload override: the run shows it as params and in the output', async ({ page }) => {
  const job = await apiJob('e2e.override', { handler: 'builtin.echo', payload: { saved: 1, who: 'saved' } });
  await page.goto(`/jobs/${job.id}`);
  await page.getByRole('button', { name: 'Run with payload…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Payload override').fill('{"who": "override", ');
  await dialog.getByRole('button', { name: 'Run with payload' }).click();
  await expect(page.getByTestId('field-error-payload-override')).toBeVisible();
  await dialog.getByLabel('Payload override').fill('{"who": "override", "extra": true}');
  await dialog.getByRole('button', { name: 'Run with payload' }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('run-status')).toHaveText('success', { timeout: 30_000 });
  // Params card: the override as given.
  const params = page.getByTestId('json-block').first();
  await expect(params).toContainText('"who": "override"');
  await expect(params).toContainText('"extra": true');
  // echo's output: the saved payload with the override merged over it.
  const output = page.getByTestId('task-section-main').getByTestId('json-block').first();
  await expect(output).toContainText('"saved": 1');
  await expect(output).toContainText('"who": "override"');
});

test('Run now with a pasted JSON array: one run per element, listed on the runs page', async ({ page }) => {
  const job = await apiJob('e2e.runmany', { handler: 'builtin.echo', payload: { saved: 1 }, policy: { blockStrategy: 'serial_execution' } });
  await page.goto(`/jobs/${job.id}`);
  await page.getByRole('button', { name: 'Run with payload…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Payload override').fill('[{"day": "2026-11-28"}, 5]');
  await dialog.getByRole('button', { name: 'Run with payload' }).click();
  await expect(page.getByTestId('field-error-payload-override')).toHaveText(/Element 1 must be a JSON object/);
  await dialog.getByLabel('Payload override').fill('[{"day": "2026-11-28"}, {"day": "2026-11-29"}, {"day": "2026-11-30"}]');
  await dialog.getByRole('button', { name: 'Run with payload' }).click();
  await expect(page).toHaveURL(new RegExp(`/runs\\?jobId=${job.id}$`));
  await expect(page.locator('[data-run-id]')).toHaveCount(3);
  const runs = await withDb((c) => c.query<{ params: { day: string }; status: string }>(
    `SELECT params, status::text FROM runs WHERE job_id = $1 ORDER BY created_at, reason NULLS FIRST`, [job.id]));
  expect(runs.rows.map((r) => r.params.day).sort()).toEqual(['2026-11-28', '2026-11-29', '2026-11-30']);
});

test('Run now with a pasted JSON array on a discard_later job: the toast counts the skipped runs and the runs list says why', async ({ page }) => {
  const job = await apiJob('e2e.runmany.discard', { handler: 'builtin.echo', payload: { saved: 1 }, policy: { blockStrategy: 'discard_later' } });
  await page.goto(`/jobs/${job.id}`);
  await page.getByRole('button', { name: 'Run with payload…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Payload override').fill('[{"day": "2026-11-28"}, {"day": "2026-11-29"}, {"day": "2026-11-30"}]');
  await dialog.getByRole('button', { name: 'Run with payload' }).click();
  // The first run starts; discard_later skips the two behind it at once.
  const toast = page.getByTestId('toast').filter({ hasText: /created/ });
  await expect(toast).toContainText('1 run created, 2 skipped');
  await expect(toast).toContainText(/Skipped: blocked: previous run [0-9a-f]{8} still active/);
  await expect(page).toHaveURL(new RegExp(`/runs\\?jobId=${job.id}$`));
  const skippedRows = page.locator('[data-testid="run-row"]').filter({ has: page.getByText('skipped', { exact: true }) });
  await expect(skippedRows).toHaveCount(2);
  // The skip reason (runs.reason) is where the list shows errors.
  for (const row of await skippedRows.all()) await expect(row.getByTestId('run-skipped')).toHaveText(/^blocked: previous run [0-9a-f-]{36} still active$/);
});

test('bulk pause of two jobs from the list', async ({ page }) => {
  const tag = `e2e.bulk.${uniq()}`;
  const a = await api<Job>('POST', '/jobs', { key: `${tag}.a`, name: 'Bulk A', schedule: { kind: 'interval', intervalSeconds: 3600 }, handler: 'builtin.noop' });
  const b = await api<Job>('POST', '/jobs', { key: `${tag}.b`, name: 'Bulk B', schedule: { kind: 'interval', intervalSeconds: 3600 }, handler: 'builtin.noop' });
  const other = await api<Job>('POST', '/jobs', { key: `${tag}-other`, name: 'Bulk other', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await page.goto(`/jobs?q=${encodeURIComponent(tag + '.')}`);
  await expect(page.getByTestId('jobs-table').locator('tbody tr')).toHaveCount(2);
  await page.getByRole('checkbox', { name: `Select ${a.key}` }).check();
  await page.getByRole('checkbox', { name: `Select ${b.key}` }).check();
  const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
  await expect(bar).toContainText('2 selected');
  await bar.getByRole('button', { name: 'Pause' }).click();
  const table = page.getByTestId('jobs-table');
  await expect(table.locator('tbody tr', { hasText: a.key })).toContainText('paused');
  await expect(table.locator('tbody tr', { hasText: b.key })).toContainText('paused');
  for (const j of [a, b]) expect((await api<{ status: string }>('GET', `/jobs/${j.id}`)).status).toBe('paused');
  expect((await api<{ status: string }>('GET', `/jobs/${other.id}`)).status).toBe('active');
});

test('bulk resume acts on each job: a once job that has fired is refused by name and stays ticked, the others resume', async ({ page }) => {
  const tag = `e2e.bulkeach.${uniq()}`;
  const a = await api<Job>('POST', '/jobs', { key: `${tag}.a`, name: 'Each A', schedule: { kind: 'interval', intervalSeconds: 3600 }, handler: 'builtin.noop' });
  const runAt = Date.now() + 3_000;
  const once = await api<Job>('POST', '/jobs', { key: `${tag}.once`, name: 'Each once', schedule: { kind: 'once', runAt: new Date(runAt).toISOString() }, handler: 'builtin.noop' });
  for (const j of [a, once]) await api('POST', `/jobs/${j.id}/pause`, {});
  // its run-at passes while it is paused: Resume is refused for it (lib/jobs/resume-job.ts)
  await expect.poll(() => Date.now(), { timeout: 10_000 }).toBeGreaterThan(runAt + 500);
  await page.goto(`/jobs?q=${encodeURIComponent(tag + '.')}`);
  const table = page.getByTestId('jobs-table');
  await expect(table.locator('tbody tr')).toHaveCount(2);
  await page.getByRole('checkbox', { name: 'Select all jobs on this page' }).check();
  const bar = page.getByRole('toolbar', { name: 'Bulk actions' });
  await bar.getByRole('button', { name: 'Resume' }).click();
  // it used to refuse the whole batch, resuming none
  const toast = page.getByTestId('toast').filter({ hasText: '1 of 2 jobs resumed; 1 refused' });
  await expect(toast).toBeVisible();
  await expect(toast).toContainText(`Job ${once.key} cannot be resumed: schedule.runAt`);
  await expect(table.locator('tbody tr', { hasText: `${a.key}` }).first()).toContainText('active');
  expect((await api<{ status: string }>('GET', `/jobs/${a.id}`)).status).toBe('active');
  expect((await api<{ status: string }>('GET', `/jobs/${once.id}`)).status).toBe('paused');
  // the refused job stays ticked, alone
  await expect(bar).toContainText('1 selected');
  await expect(page.getByRole('checkbox', { name: `Select ${once.key}` })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: `Select ${a.key}` })).not.toBeChecked();
});
