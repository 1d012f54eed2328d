import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';

/**
 * The spec files that must not run beside another one, since they change what every spec
 * shares (one console, one worker, one database: e2e/global-setup.ts): the stats day zone
 * (settings-stats-zone), the set of workers (many-machines starts workers and a console of its
 * own, workers-page inserts worker rows, security counts the online workers), the first rows of
 * the unfiltered alarms list and seeded stats days (dashboard), and a second console started on
 * two busy cores with a 20 s bound (database-outage). Every other file makes its own jobs, users
 * and runs and reads only those, so those files run two at a time.
 */
const ALONE = /\/(dashboard|database-outage|many-machines|security|settings-stats-zone|workers-page)\.spec\.ts$/;

/**
 * The browser: Debian's `chromium-headless-shell` (the headless-only build Playwright itself runs for
 * headless tests) when installed, else Debian's `chromium`; `CHROMIUM_PATH` overrides both. On two
 * cores the full browser in its headless mode spent about 1.8 times the CPU of the shell on the same
 * specs (its browser and GPU processes composite every frame), which made the e2e stage a third longer
 * (docs/toolchain.md).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((p) => existsSync(p)) ?? '/usr/bin/chromium';

/**
 * e2e tests drive Debian's Chromium (docs/toolchain.md: Playwright cannot download its
 * own browser here) against the built console, a real worker and a fresh
 * PostgreSQL database prepared by e2e/global-setup.ts.
 *
 * Two projects: `shared` runs two spec files at a time (tests inside a file stay in order), which
 * keeps the CI run under 30 minutes on two cores; `alone` (ALONE) runs after it, one file at a
 * time. A failure in `shared` skips `alone` (Playwright's project dependencies).
 */
export default defineConfig({
  testDir: './e2e',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 2,
  projects: [
    { name: 'shared', testIgnore: ALONE },
    { name: 'alone', testMatch: ALONE, dependencies: ['shared'], workers: 1 },
  ],
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [['list'], ['json', { outputFile: 'test-results/e2e.json' }]] : [['list']],
  outputDir: 'test-results/e2e',
  use: {
    baseURL: process.env.E2E_BASE_URL ?? `http://127.0.0.1:${process.env.E2E_PORT ?? 3210}`,
    // Recording a trace for every test (DOM snapshots and a screencast at each action, kept only on
    // failure) made the suite about a quarter slower on two cores, and CI must stay under 30 minutes.
    // A failing test still leaves its screenshot and error context; `--trace on` records traces again.
    trace: 'off',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
