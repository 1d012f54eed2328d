import { expect, test } from '@playwright/test';
import { gotoHydrated, login } from './helpers/auth.ts';
import { api } from './helpers/api.ts';

// "Read every configuration version": a job edited 250 times shows its newest 200 versions, and
// "Load older versions" reads the rest through GET /api/v1/jobs/:id/versions?cursor= down to v1
// (lib/jobs/list-versions.ts pages by a keyset cursor).

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

test('the Versions tab loads older versions down to v1', async ({ page }) => {
  test.setTimeout(180_000);
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.paging.${uniq()}`, name: 'Many versions', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  for (let v = 1; v <= 250; v++) await api('PATCH', `/jobs/${job.id}`, { expectedVersion: v, description: `edit ${v}` });

  await login(page);
  await gotoHydrated(page, `/jobs/${job.id}?tab=versions`);
  const rows = page.getByTestId('versions-table').locator('tbody tr');
  const version = (row: ReturnType<typeof rows.nth>) => row.locator('td').nth(1);
  await expect(rows).toHaveCount(200);
  await expect(version(rows.first())).toHaveText('v251current');
  await expect(version(rows.last())).toHaveText('v52');

  await page.getByTestId('versions-load-older').click();
  await expect(rows).toHaveCount(251);
  await expect(version(rows.nth(200))).toHaveText('v51');
  await expect(version(rows.last())).toHaveText('v1');
  await expect(rows.last()).toContainText('create');
  // the oldest is shown: nothing more to load
  await expect(page.getByTestId('versions-load-older')).toHaveCount(0);

  // a version from the older page takes part in Compare like the others
  await page.getByRole('checkbox', { name: 'Compare version 1', exact: true }).check();
  await page.getByRole('checkbox', { name: 'Compare version 251', exact: true }).check();
  await page.getByRole('button', { name: /Compare v1 ↔ v251/ }).click();
  await expect(page.getByTestId('version-diff')).toContainText('v1 ↔ v251');
});
