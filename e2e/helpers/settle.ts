import type { Page, Request } from '@playwright/test';

/**
 * Follows the requests a page makes, so that a test can wait until a page has settled (hydrated,
 * its first queries answered) without Playwright's `networkidle`, which always waits 500 ms of
 * silence, and on the pages that poll (the run page, the workers) often seconds for a gap
 * between polls. Attach it before the first navigation.
 *
 * `prefetches` lists the router prefetches seen (requests carrying Next's `Next-Router-Prefetch`
 * header): the console's links do not prefetch (components/ui/link.tsx).
 */
export function trackRequests(page: Page): { prefetches: string[]; settled: (opts?: { quietMs?: number; timeoutMs?: number }) => Promise<void> } {
  const inFlight = new Set<Request>();
  const prefetches: string[] = [];
  let lastChange = Date.now();
  const done = (r: Request) => {
    if (inFlight.delete(r)) lastChange = Date.now();
  };
  page.on('request', (r) => {
    if (r.headers()['next-router-prefetch']) prefetches.push(r.url());
    inFlight.add(r);
    lastChange = Date.now();
  });
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  // a navigation drops the old document's requests, some without a finished or failed event
  page.on('framenavigated', (frame) => {
    if (frame !== page.mainFrame()) return;
    for (const r of inFlight) if (!r.isNavigationRequest()) done(r);
  });
  return {
    prefetches,
    /**
     * Waits until React has hydrated the page (components/providers.tsx marks <html data-hydrated>)
     * and then until no request has been in flight for `quietMs` (default 150 ms). Stops waiting
     * for quiet after `timeoutMs` (default 3 s): a page that polls faster is judged as it stands.
     */
    async settled({ quietMs = 150, timeoutMs = 3_000 } = {}) {
      await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' });
      const giveUpAt = Date.now() + timeoutMs;
      while (Date.now() < giveUpAt && (inFlight.size > 0 || Date.now() - lastChange < quietMs)) await page.waitForTimeout(50);
    },
  };
}
