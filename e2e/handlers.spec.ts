import { expect, test } from '@playwright/test';
import pg from 'pg';
import { api } from './helpers/api.ts';
import { login, gotoHydrated } from './helpers/auth.ts';
import { E2E_BASE_URL } from './helpers/env.ts';

// Handler modules in the console (docs/handlers.md): the e2e worker runs with TICKFLOW_HANDLERS=examples/handlers
// (e2e/global-setup.ts). The palette and the job form list the advertised handlers with their description, the step
// panel renders a form from the input schema with the save's validation, a handler no live worker offers shows as
// unavailable, and a job built that way runs on the worker.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

type RunView = { id: string; status: string; tasks: { stepKey: string; status: string; output: unknown; error: string | null }[] };

async function waitForRun(runId: string): Promise<RunView> {
  let run: RunView | undefined;
  await expect
    .poll(async () => {
      run = await api<RunView>('GET', `/runs/${runId}`);
      return run.status;
    }, { timeout: 30_000 })
    .toMatch(/^(success|failed|timeout|cancelled)$/);
  return run!;
}

test.beforeEach(async ({ page }) => {
  await login(page);
});

test('add examples.batch-sum from the palette, fill its schema form, save, run it', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  // A handler an offline worker advertised an hour ago: listed, but unavailable with that time.
  const db = new pg.Client({ connectionString: process.env.E2E_DATABASE_URL });
  await db.connect();
  const gone = `examples.gone${uniq().replace(/[^a-z0-9]/g, '')}`;
  await db.query(
    `INSERT INTO worker_nodes (node_id, name, host, pid, handlers, handler_specs, status, last_heartbeat_at)
     VALUES ($1, 'old worker', 'old', 1, $2, $3, 'offline', now() - interval '1 hour')`,
    [`e2e-${gone}`, [gone], JSON.stringify({ [gone]: { description: 'A retired handler', inputSchema: { type: 'object', properties: {} } } })],
  );
  await db.end();

  const job = await api<{ id: string; version: number }>('POST', '/jobs', {
    key: `e2e.handlers.${uniq()}`,
    name: 'E2E handler modules',
    schedule: { kind: 'manual' },
    steps: [{ key: 'start', handler: 'builtin.noop' }],
    edges: [],
  });
  await page.goto(`/jobs/${job.id}?tab=graph`);
  await expect(page.getByTestId('dag-editor')).toBeVisible();

  const item = page.getByTestId('dag-palette-examples.batch-sum');
  await expect(item).toContainText('Sums a list of numbers in batches');
  await expect(item).toHaveAttribute('data-available', 'true');
  await expect(page.getByTestId(`dag-palette-${gone}`)).toHaveAttribute('data-available', 'false');
  await expect(page.getByTestId(`dag-palette-unavailable-${gone}`)).toContainText(/unavailable: last offered \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);

  await item.click();
  const panel = page.getByTestId('dag-step-panel');
  await expect(page.getByTestId('dag-node-batch-sum')).toBeVisible();
  // The handler's advertised timeoutSeconds became the new step's own timeout.
  await expect(panel.getByLabel('Timeout (s)')).toHaveValue('600');

  // The schema form: items (a list of numbers) is required; a bad batch size is named at its field.
  await expect(panel.getByTestId('payload-editor')).toBeVisible();
  await expect(panel.getByTestId('payload-check')).toHaveText('1 field to fix');
  await expect(panel.getByTestId('schema-error-items')).toBeVisible();
  await panel.getByTestId('schema-field-items').fill('1\n2\n3\n4\n5');
  await panel.getByTestId('schema-field-batchSize').fill('0');
  await expect(panel.getByTestId('schema-error-batchSize')).toContainText(/>=\s*1|too small/i);

  // The server refuses the same payload on save, naming the field.
  await page.getByTestId('dag-save').click();
  await expect(page.getByTestId('dag-alert')).toContainText('batchSize');
  await panel.getByTestId('schema-field-batchSize').fill('2');
  await expect(panel.getByTestId('payload-check')).toHaveText('fits the handler input');

  // Raw JSON stays available and shows what the form wrote.
  await panel.getByTestId('payload-mode-json').click();
  await expect(panel.getByLabel('Payload (JSON object)')).toHaveValue(/"batchSize": 2/);
  await panel.getByTestId('payload-mode-form').click();
  await expect(panel.getByTestId('schema-field-batchSize')).toHaveValue('2');

  const shot = testInfo.outputPath('palette-and-schema-form.png');
  await page.getByTestId('dag-editor').screenshot({ path: shot });
  await testInfo.attach('palette-and-schema-form', { path: shot, contentType: 'image/png' });

  await page.getByTestId('dag-save').click();
  await expect(page.getByTestId('dag-status')).toContainText('Saved');
  const saved = await api<{ steps: { key: string; handler: string; payload: unknown; timeoutSeconds: number | null }[] }>('GET', `/jobs/${job.id}`);
  expect(saved.steps.find((s) => s.key === 'batch-sum')).toMatchObject({ handler: 'examples.batch-sum', payload: { items: [1, 2, 3, 4, 5], batchSize: 2 }, timeoutSeconds: 600 });

  await page.getByRole('button', { name: 'Run now', exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}/);
  await expect(page.getByTestId('run-node-batch-sum')).toHaveAttribute('data-status', 'success', { timeout: 30_000 });
  const runId = /\/runs\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  const run = await waitForRun(runId);
  expect(run.tasks.find((t) => t.stepKey === 'batch-sum')?.output).toEqual({ sum: 15, count: 5, batches: 3 });
});

test('the job form lists examples.fetch-json with its description and a schema form; the job runs', async ({ page }) => {
  test.setTimeout(120_000);
  const key = `e2e.fetch.${uniq()}`;
  await gotoHydrated(page, '/jobs/new');
  await page.getByLabel('Key').fill(key);
  await page.getByLabel('Name').fill('E2E fetch-json');
  await page.getByLabel('Cron expression').fill('0 0 1 1 *');
  await page.getByLabel('Time zone').fill('UTC');
  await page.getByLabel('Handler').selectOption('examples.fetch-json');
  await expect(page.getByText('GETs a URL and returns its status and JSON (or text) body')).toBeVisible();
  const url = page.getByTestId('schema-field-url');
  await url.fill('not a url');
  await expect(page.getByTestId('schema-error-url')).toBeVisible();
  await url.fill(`${E2E_BASE_URL}/api/v1/health`);
  await expect(page.getByTestId('payload-check')).toHaveText('fits the handler input');
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page).toHaveURL(/\/jobs\/[0-9a-f-]{36}$/);

  await page.getByRole('button', { name: 'Run now', exact: true }).click();
  await expect(page).toHaveURL(/\/runs\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId('run-status')).toHaveText('success', { timeout: 30_000 });
  const runId = /\/runs\/([0-9a-f-]{36})/.exec(page.url())![1]!;
  const run = await waitForRun(runId);
  expect(run.tasks[0]?.output).toMatchObject({ status: 200, body: { status: 'ok' } });
});
