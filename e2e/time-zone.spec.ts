import { expect, test, type Page } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login, gotoHydrated } from './helpers/auth.ts';
import { E2E_ZONE_VIEWER } from './helpers/env.ts';

// Times on the console: written in the user's display zone (default: the browser's) with the zone next to them,
// the same text from the server and the browser (no hydration error, also for a job in EST5EDT), the task-log
// timeline with date and zone, and the form's fire preview inside the effective window.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
type Run = { id: string; status: string };

// The browser lives in Shanghai (UTC+8 all year); the server renders in whatever zone it knows for the user.
test.use({ timezoneId: 'Asia/Shanghai' });

/** Collects console errors, hydration warnings and uncaught page errors. */
function collectProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || /hydrat/i.test(m.text())) problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return problems;
}

async function finishedRun(jobId: string): Promise<Run> {
  const run = await api<Run>('POST', `/jobs/${jobId}/trigger`, {});
  let r = run;
  await expect.poll(async () => (r = await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('success');
  return r;
}

test('a job in EST5EDT renders without a hydration error; its next fire is written with its zone', async ({ page }) => {
  const problems = collectProblems(page);
  const key = `e2e.tz.est5edt.${uniq()}`;
  await api('POST', '/jobs', { key, name: 'EST5EDT job', schedule: { kind: 'cron', cron: '0 9 * * *', timezone: 'EST5EDT' }, handler: 'builtin.noop' });
  await login(page);
  await page.goto(`/jobs?q=${encodeURIComponent(key)}`);
  const row = page.getByRole('row').filter({ hasText: key });
  await expect(row).toBeVisible();
  // 09:00 in New York in winter and summer alike, with the offset in force written next to it.
  await expect(row.locator('time[data-zone="EST5EDT"]')).toHaveText(/^\d{4}-\d{2}-\d{2} 09:00 UTC\u2212[45]$/);
  await page.reload();
  await expect(row).toBeVisible();
  expect(problems).toEqual([]);
});

test('times follow the display zone: the browser zone by default, a chosen zone after that, per user', async ({ page }) => {
  const problems = collectProblems(page);
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.tz.run.${uniq()}`, name: 'Time zone run', schedule: { kind: 'manual' }, handler: 'builtin.echo', payload: { x: 1 } });
  const run = await finishedRun(job.id);
  await login(page, E2E_ZONE_VIEWER.email, E2E_ZONE_VIEWER.password);
  await page.goto(`/runs/${run.id}`);

  // Default: the browser's zone (Asia/Shanghai, UTC+8), shown in the top bar and next to every time.
  await expect(page.getByTestId('display-zone')).toContainText('Asia/Shanghai');
  const logTimes = page.getByTestId('task-log-row').locator('time');
  await expect(logTimes.first()).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC\+8$/);
  await expect(logTimes).toHaveCount(3);
  await page.getByTestId('task-log-main').screenshot({ path: 'e2e/__screenshots__/task-log-timeline.png' });

  // Choose New York: every time switches, and the choice survives a reload (it is the user's, not the tab's).
  await page.getByTestId('display-zone').click();
  const dialog = page.getByRole('dialog', { name: 'Display time zone' });
  await dialog.getByLabel('This zone:').check();
  await dialog.locator('#display-zone-picker').fill('new_york');
  await dialog.getByRole('option', { name: 'America/New_York' }).click();
  await dialog.getByTestId('display-zone-save').click();
  await expect(dialog).toBeHidden();
  await expect(logTimes.first()).toHaveText(/ UTC\u2212[45]$/);
  await page.reload();
  await expect(page.getByTestId('display-zone')).toContainText('America/New_York');
  await expect(logTimes.first()).toHaveText(/ UTC\u2212[45]$/);

  // A zone that does not exist is refused in the dialog, naming the problem.
  await page.getByTestId('display-zone').click();
  await dialog.locator('#display-zone-picker').fill('Mars/Olympus');
  await dialog.getByTestId('display-zone-save').click();
  await expect(dialog.getByRole('alert')).toContainText('Unknown time zone');
  await dialog.getByLabel("My browser's zone (Asia/Shanghai)").check();
  await dialog.getByTestId('display-zone-save').click();
  await expect(dialog).toBeHidden();
  await expect(logTimes.first()).toHaveText(/ UTC\+8$/);
  expect(problems).toEqual([]);
});

// A window start that is always in the future (1 March of next year), whatever the date the tests run: a fixed
// date would fall into the past one day, and the preview would then start at now instead of at the window.
const WINDOW_DAY = `${new Date().getUTCFullYear() + 1}-03-01`;

test("the form's fire preview starts at the effective window's start", async ({ page }) => {
  await login(page);
  await gotoHydrated(page, '/jobs/new');
  // the zone the window and the fires are read in (the form starts at the display zone, Shanghai here, once
  // hydrated: a zone typed before that is replaced)
  await expect(page.getByLabel('Time zone')).toHaveValue('Asia/Shanghai');
  await page.getByLabel('Time zone').fill('UTC');
  await page.getByLabel('Time zone').press('Enter');
  await page.getByLabel('Cron expression').fill('0 2 * * *');
  await expect(page.getByTestId('fire-times').locator('tbody tr')).toHaveCount(5);
  await page.getByText('Effective window (optional)').click();
  await page.getByLabel(/^Start at/).fill(`${WINDOW_DAY}T00:00`);
  const rows = page.getByTestId('fire-times').locator('tbody tr');
  await expect(rows.first()).toContainText(`${WINDOW_DAY} 02:00:00`);
  await expect(page.getByTestId('cron-preview')).toContainText('in the effective window');
  // An end before the next fire: nothing left to preview, and it says so.
  await page.getByLabel(/^End at/).fill(`${WINDOW_DAY}T01:00`);
  await expect(page.getByTestId('cron-preview')).toContainText('never fires again inside the effective window');
});

test("the form's fire preview shows an interval's fire times, from the window's start; a bad interval names its field", async ({ page }) => {
  await login(page);
  await gotoHydrated(page, '/jobs/new');
  await page.getByRole('radio', { name: 'Interval' }).click();
  await page.getByLabel(/^Interval/).fill('5400');
  const rows = page.getByTestId('fire-times').locator('tbody tr');
  // The preview appears after a pause and moves what is below it: the window's toggle is clicked
  // once it has (a click during the move toggled nothing, on two busy cores).
  await expect(rows).toHaveCount(5);
  await page.getByText('Effective window (optional)').click();
  await page.getByLabel(/^Start at/).fill(`${WINDOW_DAY}T00:00`);
  await expect(rows).toHaveCount(5);
  // every 90 minutes from the start of the window
  await expect(rows.nth(0)).toContainText(`${WINDOW_DAY} 00:00:00`);
  await expect(rows.nth(1)).toContainText(`${WINDOW_DAY} 01:30:00`);
  await expect(rows.nth(4)).toContainText(`${WINDOW_DAY} 06:00:00`);
  await page.getByLabel(/^Interval/).fill('0');
  await expect(page.getByTestId('cron-preview-error')).toContainText('Interval (seconds)');
});

test("the edit form's fire preview of a saved interval job lists the fires its page lists (anchored at its creation, not at now)", async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.interval.anchor.${uniq()}`, name: 'Interval anchor', schedule: { kind: 'interval', intervalSeconds: 5400 }, handler: 'builtin.noop' });
  await login(page);
  await gotoHydrated(page, `/jobs/${job.id}`);
  const listed = await page.getByTestId('fire-times').locator('tbody tr').allTextContents();
  expect(listed).toHaveLength(5);
  // a few seconds on: a preview anchored at now would list every time that much later
  await page.waitForTimeout(1_100);
  await gotoHydrated(page, `/jobs/${job.id}/edit`);
  const rows = page.getByTestId('cron-preview').getByTestId('fire-times').locator('tbody tr');
  await expect(rows).toHaveCount(5);
  expect(await rows.allTextContents()).toEqual(listed);
});

test("the form's fire preview waits calmly for a half-typed zone or cron; an error shows after a pause, naming its field", async ({ page }) => {
  const refused: string[] = [];
  // A refused expression is an answer, not a failed request: the browser logs none (the preview's server action).
  const failed: string[] = [];
  page.on('response', (r) => {
    if (r.url().includes('/api/v1/schedule/preview') && r.status() >= 400) refused.push(decodeURIComponent(new URL(r.url()).search));
    if (r.status() >= 400) failed.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') failed.push(`console.error: ${m.text()}`);
  });
  await login(page);
  await gotoHydrated(page, '/jobs/new');
  await page.getByLabel('Cron expression').fill('0 2 * * *');
  await expect(page.getByTestId('fire-times').locator('tbody tr')).toHaveCount(5);

  // Typing a zone key by key, then pausing on a zone that is not complete yet: no preview is asked for it,
  // no error shows; the field says what is missing and the preview says it waits.
  const zone = page.getByLabel('Time zone');
  await zone.fill('');
  await zone.pressSequentially('Europe/Ber', { delay: 60 });
  await page.waitForTimeout(1_500);
  await expect(page.getByTestId('field-hint-timezone')).toContainText('Time zone: "Europe/Ber" is not a complete zone name yet');
  await expect(page.getByTestId('field-hint-timezone')).toContainText('Europe/Berlin');
  await expect(page.getByTestId('cron-preview-waiting')).toBeVisible();
  await expect(page.getByTestId('cron-preview')).not.toContainText(/unknown time zone/i);
  await expect(page.getByTestId('cron-preview-error')).toHaveCount(0);
  await zone.pressSequentially('lin', { delay: 60 });
  await expect(page.getByTestId('fire-times').locator('th').first()).toHaveText('Europe/Berlin');
  await expect(page.getByTestId('fire-times').locator('tbody tr')).toHaveCount(5);
  await expect(page.getByTestId('field-hint-timezone')).toHaveCount(0);
  expect(refused).toEqual([]);

  // A cron expression typed key by key shows no error while typing; after a pause on an incomplete one the
  // error shows, naming the field.
  const cron = page.getByLabel('Cron expression');
  await cron.fill('');
  await cron.pressSequentially('0 2 * *', { delay: 80 });
  await expect(page.getByTestId('cron-preview-error')).toHaveCount(0);
  await expect(page.getByTestId('cron-preview-error')).toHaveText(/^Cron expression needs 5, 6 \(with seconds\) or 7 \(with year\) fields, got 4$/);
  await cron.pressSequentially(' H', { delay: 80 });
  await expect(page.getByTestId('cron-preview-error')).toHaveText(`Invalid cron expression "0 2 * * H": day of week "H": 'H' (hashed) values are not supported; use the job's stagger instead`);
  await cron.fill('0 2 * * 1-5');
  await expect(page.getByTestId('fire-times').locator('tbody tr')).toHaveCount(5);
  await expect(page.getByTestId('cron-preview-error')).toHaveCount(0);
  expect(failed).toEqual([]);
});

test("a new job's Time zone starts as the operator's display zone (the top bar's), and stays editable", async ({ page }) => {
  await login(page);
  await gotoHydrated(page, '/jobs/new');
  // no display zone chosen: the browser's, Asia/Shanghai here
  await expect(page.getByTestId('display-zone')).toContainText('Asia/Shanghai');
  const field = page.getByLabel('Time zone');
  await expect(field).toHaveValue('Asia/Shanghai');
  await page.getByLabel('Cron expression').fill('0 2 * * *');
  await expect(page.getByTestId('fire-times').locator('th').first()).toHaveText('Asia/Shanghai');
  await field.fill('Europe/Berlin');
  await field.press('Enter');
  await expect(field).toHaveValue('Europe/Berlin');
  await expect(page.getByTestId('fire-times').locator('th').first()).toHaveText('Europe/Berlin');
});

test('the time zone picker keeps a zone typed in full: Enter keeps it and picks no other zone', async ({ page }) => {
  await login(page);
  await gotoHydrated(page, '/jobs/new');
  const field = page.getByLabel('Time zone');
  // the field follows the display zone until the operator types (set after hydration): typing before that would be replaced
  await expect(field).toHaveValue('Asia/Shanghai');
  await field.fill('Asia/Tokyo');
  // The zone typed is the one highlighted, not the first zone of the list (Africa/Abidjan).
  await expect(page.getByRole('option', { name: 'Asia/Tokyo' })).toHaveAttribute('aria-selected', 'true');
  await field.press('Enter');
  await expect(field).toHaveValue('Asia/Tokyo');
  await expect(page.getByRole('listbox')).toBeHidden();
  // Nothing typed: the list shows zones but none is highlighted, and Enter picks none of them.
  await field.fill('');
  await expect(page.getByRole('listbox')).toBeVisible();
  await field.press('Enter');
  await expect(field).toHaveValue('');
});

test('the Display time zone dialog: Enter keeps a zone typed in full, and the open list never covers Save', async ({ page }) => {
  await login(page, E2E_ZONE_VIEWER.email, E2E_ZONE_VIEWER.password);
  await page.goto('/');
  const dialog = page.getByRole('dialog', { name: 'Display time zone' });
  const picker = dialog.locator('#display-zone-picker');

  await page.getByTestId('display-zone').click();
  await dialog.getByLabel('This zone:').check();
  await picker.fill('Asia/Tokyo');
  await picker.press('Enter');
  await expect(picker).toHaveValue('Asia/Tokyo');
  await dialog.getByTestId('display-zone-save').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('display-zone')).toContainText('Asia/Tokyo');

  // With the list still open, Save is pressed, not a zone of the list lying over it.
  await page.getByTestId('display-zone').click();
  await picker.fill('Europe/');
  await expect(dialog.getByRole('listbox')).toBeVisible();
  await picker.fill('Europe/Paris');
  await expect(dialog.getByRole('listbox')).toBeVisible();
  await dialog.getByTestId('display-zone-save').click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('display-zone')).toContainText('Europe/Paris');

  // Back to the browser's zone, as the other tests expect.
  await page.getByTestId('display-zone').click();
  await dialog.getByLabel("My browser's zone (Asia/Shanghai)").check();
  await dialog.getByTestId('display-zone-save').click();
  await expect(dialog).toBeHidden();
});

test("a task's log lines and the job's run history strip are written in the display zone, with the zone", async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.tz.lines.${uniq()}`,
    name: 'Time zone lines',
    schedule: { kind: 'manual' },
    handler: 'shell',
    payload: { command: ['/bin/sh', '-c', 'echo hello from the task'] },
  });
  const run = await finishedRun(job.id);
  await login(page, E2E_ZONE_VIEWER.email, E2E_ZONE_VIEWER.password);
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId('display-zone')).toContainText('Asia/Shanghai');

  // The Log lines panel: the clock in Asia/Shanghai (UTC+8) with its label, like the task-log timeline above it.
  // (the line the task printed, not the `$ …` line naming its command)
  const line = page.getByTestId('task-lines-main').getByTestId('task-line').filter({ has: page.getByText('hello from the task', { exact: true }) });
  const time = line.locator('time');
  await expect(time).toHaveText(/^\d{2}:\d{2}:\d{2}\.\d{3} UTC\+8$/);
  const written = new Date((await time.getAttribute('datetime'))!);
  const shanghaiHour = String((written.getUTCHours() + 8) % 24).padStart(2, '0');
  expect((await time.textContent())!.slice(0, 2)).toBe(shanghaiHour);

  // The run history strip on the job page names the run's scheduled time in the display zone too.
  await page.goto(`/jobs/${job.id}`);
  await expect(page.getByTestId('run-history-strip').locator(`a[href="/runs/${run.id}"]`)).toHaveAttribute('aria-label', /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\+8/);
});

test("the edit form keeps a window end in a repeated hour's second occurrence and its seconds, and offers the choice", async ({ page }) => {
  // 01:30 on the first Sunday of November next year comes twice in New York: 05:30 UTC (EDT), then 06:30 UTC (EST)
  const year = new Date().getUTCFullYear() + 1;
  const day = [1, 2, 3, 4, 5, 6, 7].find((d) => new Date(Date.UTC(year, 10, d)).getUTCDay() === 0)!;
  const date = `${year}-11-0${day}`;
  const startAt = `${year}-06-01T12:00:30.000Z`;
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.tz.repeated.${uniq()}`, name: 'Repeated hour', schedule: { kind: 'cron', cron: '0 12 * * *', timezone: 'America/New_York' },
    handler: 'builtin.noop', startAt, endAt: `${date}T06:30:00.000Z`,
  });
  await login(page);
  await gotoHydrated(page, `/jobs/${job.id}/edit`);
  const choice = page.getByTestId('endAt-repeated');
  await expect(choice).toContainText(`01:30 comes twice on ${date} in America/New_York`);
  await expect(choice.getByRole('radio', { name: /^Second, UTC\u22125/ })).toBeChecked();
  await expect(page.getByTestId('startAt-repeated')).toHaveCount(0);
  await choice.evaluate((e) => e.scrollIntoView({ block: 'center' })); // clear of the sticky Save bar
  await choice.locator('xpath=../..').screenshot({ path: 'e2e/__screenshots__/repeated-hour-choice.png' });
  await page.getByLabel('Name').fill('Repeated hour, renamed');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}(\\?|$)`));
  let saved = await api<{ name: string; startAt: string; endAt: string }>('GET', `/jobs/${job.id}`);
  expect(saved).toMatchObject({ name: 'Repeated hour, renamed', startAt, endAt: `${date}T06:30:00.000Z` });

  // the first occurrence, chosen: an hour earlier in UTC
  await gotoHydrated(page, `/jobs/${job.id}/edit`);
  await page.getByTestId('endAt-repeated').getByRole('radio', { name: /^First, UTC\u22124/ }).check();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}(\\?|$)`));
  saved = await api<{ name: string; startAt: string; endAt: string }>('GET', `/jobs/${job.id}`);
  expect(saved).toMatchObject({ startAt, endAt: `${date}T05:30:00.000Z` });

  // a window end with a part of its date left empty reads as '' in the browser: refused at the field, not saved as no end
  await gotoHydrated(page, `/jobs/${job.id}/edit`);
  await page.getByLabel(/^Start at/).click();
  await page.getByLabel(/^Start at/).press('Backspace');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('field-error-startAt')).toHaveText('Incomplete date and time: fill in every part, or clear the field');
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}/edit`));
  expect(await api<{ startAt: string }>('GET', `/jobs/${job.id}`)).toMatchObject({ startAt });

  // 02:30 on the second Sunday of March does not exist there: the form says which instant it is read as
  const sundays = [...Array(14).keys()].map((n) => n + 1).filter((d) => new Date(Date.UTC(year, 2, d)).getUTCDay() === 0);
  const spring = `${year}-03-${String(sundays[1]).padStart(2, '0')}`;
  await gotoHydrated(page, `/jobs/${job.id}/edit`);
  await page.getByLabel(/^Start at/).fill(`${spring}T02:30`);
  await expect(page.getByTestId('startAt-skipped')).toContainText(`02:30 does not exist on ${spring} in America/New_York (clocks go forward): it is read as 03:30 UTC\u22124 = ${spring} 07:30:00 UTC`);
});
