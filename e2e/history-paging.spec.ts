import { expect, test } from '@playwright/test';
import { gotoHydrated, login } from './helpers/auth.ts';
import { api } from './helpers/api.ts';
import { withDb } from './helpers/database.ts';

// "Read every configuration version": a job edited 250 times shows its newest 200 versions, and
// "Load older versions" reads the rest through GET /api/v1/jobs/:id/versions?cursor= down to v1
// (lib/jobs/list-versions.ts pages by a keyset cursor).
//
// The first edit goes through the API; the other 249 versions are written in one statement as that
// edit wrote its own (lib/jobs/store.ts: the job's new version and a job_versions row with its
// snapshot): 250 PATCH requests one after another took half a minute of the CI run, and this
// test's subject is the paging, not the edit.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

test('the Versions tab loads older versions down to v1', async ({ page }) => {
  test.setTimeout(180_000);
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.paging.${uniq()}`, name: 'Many versions', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await api('PATCH', `/jobs/${job.id}`, { expectedVersion: 1, description: 'edit 1' });
  await withDb(async (c) => {
    await c.query('BEGIN');
    await c.query(
      `INSERT INTO job_versions (job_id, version, change_type, snapshot, created_by, created_at)
       SELECT v2.job_id, g, 'update', jsonb_set(v2.snapshot, '{description}', to_jsonb('edit ' || (g - 1))), v2.created_by,
              v2.created_at + make_interval(secs => g)
         FROM job_versions v2, generate_series(3, 251) g
        WHERE v2.job_id = $1::uuid AND v2.version = 2`,
      [job.id],
    );
    await c.query(`UPDATE jobs SET version = 251, description = 'edit 250' WHERE id = $1::uuid`, [job.id]);
    await c.query('COMMIT');
  });

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
