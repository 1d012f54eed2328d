import { defineConfig } from '@playwright/test';

/**
 * e2e tests drive Debian's Chromium (docs/toolchain.md: Playwright cannot download its
 * own browser here) against the built console, a real worker and a fresh
 * PostgreSQL database prepared by e2e/global-setup.ts.
 */
export default defineConfig({
  testDir: './e2e',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
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
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
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
