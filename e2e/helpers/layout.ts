import { expect, type Page } from '@playwright/test';

/**
 * The page at `path`, already open, is no wider and no taller than the screen (only the content
 * area scrolls, and never sideways): the console's shell keeps the top bar and the sidebar in view
 * (components/shell). Charts size themselves after their first paint, so the layout is judged once
 * it has settled (a lasting overflow still fails), and a failure names the elements that reach
 * past the content area.
 */
export async function expectFitsScreen(page: Page, path: string): Promise<void> {
  await expect(page.locator('main h1').first()).toBeVisible();
  const measure = () =>
    page.evaluate(() => {
      const main = document.querySelector('main')!;
      const root = document.documentElement;
      const right = main.getBoundingClientRect().right;
      const past = Array.from(main.querySelectorAll('*'))
        .filter((e) => e.getBoundingClientRect().right > right + 0.5)
        .slice(0, 5)
        .map((e) => `${e.tagName.toLowerCase()}.${String(e.className).slice(0, 50)}`);
      return { pageWider: root.scrollWidth > window.innerWidth, pageTaller: root.scrollHeight > window.innerHeight, mainScrollsSideways: main.scrollWidth > main.clientWidth, past };
    });
  let last: Awaited<ReturnType<typeof measure>> | undefined;
  await expect
    .poll(async () => {
      last = await measure();
      return { path, pageWider: last.pageWider, pageTaller: last.pageTaller, mainScrollsSideways: last.mainScrollsSideways };
    }, { timeout: 5_000 })
    .toEqual({ path, pageWider: false, pageTaller: false, mainScrollsSideways: false })
    .catch((error: Error) => {
      throw new Error(`${path}: past the content area: ${JSON.stringify(last?.past)}\n${error.message}`);
    });
}
