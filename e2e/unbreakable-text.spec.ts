import { expect, test, type Page } from '@playwright/test';
import { api, runReaches } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { expectFitsScreen } from './helpers/layout.ts';

// Text that operators and handlers write (an error, an alarm message, a payload, a description, a name) can be one
// word of hundreds of characters: a stack of `ECONNREFUSED xxxx…`, a base64 blob, a URL. Every box that shows such
// text wraps it or scrolls it inside itself, so it never runs across the page at 1280 px nor widens a phone's page.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
const WORD = 'x'.repeat(600);
const ERROR = `ECONNREFUSED ${WORD}`;

/**
 * The boxes that let the long word out: for every text holding part of it, the nearest box around it that shows its
 * overflow (`overflow-x: visible`) and is wider inside than outside. A box that scrolls or clips (a Truncate's
 * ellipsis, a scrolling `pre`) keeps the text inside by itself.
 */
async function textSpills(page: Page): Promise<string[]> {
  const spill = () =>
    page.evaluate((marker) => {
      const main = document.querySelector('main')!;
      const out: string[] = [];
      const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!n.textContent?.includes(marker)) continue;
        for (let el = n.parentElement; el && el !== main; el = el.parentElement) {
          const s = getComputedStyle(el);
          if (s.display === 'inline' || s.display.startsWith('table') || s.display === 'contents') continue;
          if (s.overflowX !== 'visible') break;
          if (el.scrollWidth > el.clientWidth + 1) {
            out.push(`${el.tagName.toLowerCase()}[${el.getAttribute('data-testid') ?? String(el.className).slice(0, 60)}] ${el.scrollWidth}>${el.clientWidth}`);
            break;
          }
        }
      }
      return out;
    }, 'xxxxxxxxxxxxxxxxxxxx');
  // a chart or a live table may still be laying out: judged once it has settled, a lasting spill still counts
  let found = await spill();
  for (let i = 0; i < 10 && found.length; i++) {
    await page.waitForTimeout(500);
    found = await spill();
  }
  return found;
}

let job: { id: string };
let runId: string;

test.beforeAll(async () => {
  test.setTimeout(90_000);
  job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.wrap.${uniq()}.${'k'.repeat(100)}`,
    name: `Wrap ${'N'.repeat(180)}`,
    description: `Calls ${'d'.repeat(600)}`,
    schedule: { kind: 'manual' },
    handler: 'builtin.fail',
    payload: { message: ERROR, blob: WORD },
    policy: { maxRetries: 0 },
    alarms: { onFailure: true, channels: [{ type: 'log', target: '' }] },
  });
  runId = (await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, { payload: { note: WORD } })).id;
  await runReaches(runId, 'failed');
  await expect.poll(async () => (await api<{ items: unknown[] }>('GET', `/alarms?jobId=${job.id}`)).items.length, { timeout: 45_000 }).toBeGreaterThan(0);
});

const pages = () => [`/runs/${runId}`, `/jobs/${job.id}`, `/jobs/${job.id}?tab=runs`, `/alarms?jobId=${job.id}`, '/', `/runs?jobId=${job.id}`, `/logs?q=ECONNREFUSED&jobId=${job.id}`];

for (const width of [1280, 390]) {
  test(`${width} px: a 600-character word stays inside its box on the run, job, alarms, overview and runs pages`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width, height: 844 });
    await login(page);
    // every page is judged, and every box that lets the word out is named, before the test fails
    const problems: string[] = [];
    for (const path of pages()) {
      await page.goto(path);
      await expect(page.locator('main h1').first()).toBeVisible();
      if (path.startsWith('/runs/')) {
        await expect(page.getByTestId('run-error')).toBeVisible();
        // the run's error box keeps its text: nothing of it is past the box's edge
        if (!(await page.getByTestId('run-error').evaluate((e) => e.scrollWidth <= e.clientWidth + 1))) problems.push(`${path}: run-error spills`);
      }
      problems.push(...(await textSpills(page)).map((p) => `${path}: ${p}`));
      await expectFitsScreen(page, path).catch((e: Error) => problems.push(e.message.split('\n')[0]!));
      if (path.startsWith('/alarms')) {
        // the Acknowledge dialog quotes the alarm's message: it stays inside the panel, and the panel on the screen
        await page.getByTestId('alarm-row').first().getByRole('button', { name: 'Acknowledge' }).click();
        const dialog = page.getByRole('dialog');
        await expect(dialog).toContainText('ECONNREFUSED');
        const box = await dialog.evaluate((d) => ({ spills: d.scrollWidth > d.clientWidth + 1, right: d.getBoundingClientRect().right }));
        if (box.spills || box.right > width) problems.push(`${path}: the Acknowledge dialog spills (${JSON.stringify(box)})`);
        await page.keyboard.press('Escape');
      }
    }
    expect(problems).toEqual([]);
  });
}
