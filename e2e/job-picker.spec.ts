import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// The job pickers of the runs, alarms and stats pages (lib/jobs/job-options.ts, components/filter-bar.tsx
// ComboFilter): their first options stop at 200 jobs, typing searches every job, and the job a URL filters by is
// named even past the first 200 or in the recycle bin. The jobs made here are purged at the end, so that the other
// specs' lists and counts do not see them.
const COUNT = 210;
const created: { id: string; key: string; name: string }[] = [];
const deleted = new Set<string>();

test.beforeAll(async () => {
  const text = Array.from({ length: COUNT }, (_, i) => `0 3 1 1 * /bin/true picker-${String(i).padStart(3, '0')}`).join('\n');
  const r = await api<{ created: { id: string; key: string; name: string }[] }>('POST', '/jobs/import', { text, timezone: 'UTC', keyPrefix: 'zz-picker' });
  created.push(...r.created.map((j) => ({ id: j.id, key: j.key, name: j.name })));
  expect(created).toHaveLength(COUNT);
});

test.afterAll(async () => {
  const live = created.filter((j) => !deleted.has(j.id)).map((j) => j.id);
  for (let i = 0; i < live.length; i += 200) await api('POST', '/jobs/bulk', { action: 'delete', ids: live.slice(i, i + 200) });
  for (const j of created) await api('POST', `/jobs/${j.id}/purge`);
});

test('job pickers: typing finds a job past the first 200, and a URL names its job, also one in the recycle bin', async ({ page }) => {
  await login(page);
  // the greatest key: past the first 200 jobs by key
  const far = [...created].sort((a, b) => (a.key < b.key ? 1 : -1))[0]!;
  const label = `${far.key} — ${far.name}`;
  await page.goto('/runs');
  const picker = page.getByLabel('Job', { exact: true });
  const listId = await picker.getAttribute('list');
  const suggestions = page.locator(`datalist[id="${listId}"] option`);
  await expect(suggestions).toHaveCount(200);
  await expect(page.locator(`datalist[id="${listId}"] option[value="${label}"]`)).toHaveCount(0);

  // Typing part of its name asks the server, which finds it; Enter applies it.
  await picker.fill(far.name.split(' ')[1]!);
  await expect(page.locator(`datalist[id="${listId}"] option[value="${label}"]`)).toHaveCount(1);
  await picker.press('Enter');
  await expect(page).toHaveURL(new RegExp(`jobId=${far.id}`));
  await expect(page.getByLabel('Job', { exact: true })).toHaveValue(label);

  // Opened from a URL, the picker names the job (not its id), on the alarms and stats pages too.
  await page.goto(`/alarms?jobId=${far.id}`);
  await expect(page.getByLabel('Job', { exact: true })).toHaveValue(label);
  await page.goto(`/stats?job=${far.id}`);
  await expect(page.getByLabel('Job', { exact: true })).toHaveValue(label);
  await expect(page.getByTestId('stats-scope')).toContainText(`job ${label}`);

  // A job in the recycle bin is named as such.
  await api('DELETE', `/jobs/${far.id}`);
  deleted.add(far.id);
  await page.goto(`/runs?jobId=${far.id}`);
  await expect(page.getByLabel('Job', { exact: true })).toHaveValue(`${label} (in the recycle bin)`);
});
