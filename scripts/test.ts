/**
 * `npm test`: every test Tickflow has, in order, on a fresh machine.
 *
 * 1. type check (tsc --noEmit)
 * 2. unit tests (vitest projects `unit`, `unit-new-york`, `unit-sydney` in one run): every unit
 *    test under TZ=UTC, and those of the folders that handle wall-clock time
 *    (vitest.config.ts ZONE_SENSITIVE_UNIT_DIRS) again under America/New_York and
 *    Australia/Sydney: schedule results must not depend on the host zone
 * 3. next build (when the e2e stage runs), before the integration tests so that those
 *    running `npm start` serve the build rather than `next dev`
 * 4. integration tests (vitest project `integration`) on a real PostgreSQL:
 *    the embedded one, or DATABASE_URL's server; again on
 *    TICKFLOW_TEST_SECOND_DATABASE_URL's server when set (CI: PostgreSQL 15), the files
 *    whose subject is version-dependent SQL (SECOND_SERVER_FILES)
 * 5. Playwright e2e against the built console, a real worker
 *    and a fresh database (Debian's Chromium: playwright.config.ts)
 *
 * Prints one closing line `tests: N passed, N failed` and exits non-zero on any
 * failure. `npm test -- --only unit,integration` runs a subset.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ZONE_SENSITIVE_UNIT_DIRS } from '../vitest.config.ts';
import { parseTestArgs, TEST_USAGE } from '../lib/infra/test-stages.ts';

const parsed = parseTestArgs(process.argv.slice(2));
if (!parsed.ok) {
  console.error(parsed.message);
  console.error(TEST_USAGE);
  process.exit(2);
}
const only: Set<string> | null = parsed.only;
const want = (stage: string) => !only || only.has(stage);
const results = 'test-results';
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });

let passed = 0;
let failed = 0;
const failures: string[] = [];

/**
 * PostgreSQL's lines about a server process that died during the run, which the test servers append here
 * (tests/helpers/test-server.ts): such a death ends every session on the server, failing whichever tests were
 * running at the time, so the closing summary repeats them beside the failed tests.
 */
const serverEvents = path.resolve('.tickflow', 'test-server-events.log');
mkdirSync(path.dirname(serverEvents), { recursive: true });
rmSync(serverEvents, { force: true });
process.env.TICKFLOW_TEST_SERVER_EVENTS = serverEvents;

const startedAt = Date.now();
/** Seconds each stage took, printed at the end: CI must stay under 30 minutes in all. */
const stageSeconds: string[] = [];

function run(label: string, cmd: string, args: string[], env: Record<string, string> = {}): boolean {
  console.log(`\n=== ${label} ===`);
  const began = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  stageSeconds.push(`${label}: ${Math.round((Date.now() - began) / 1000)} s`);
  if (r.status !== 0) failures.push(label);
  return r.status === 0;
}

/** Failed tests by name with the first line of their error, repeated at the very end so a truncated log still shows them. */
const failedTests: string[] = [];

function firstLine(message: string | undefined): string {
  return (message ?? '').replace(/\u001b\[[0-9;]*m/g, '').split('\n').find((l) => l.trim())?.trim().slice(0, 300) ?? '';
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numTotalTests: number;
  testResults: { name: string; message?: string; status: string; assertionResults: { fullName: string; status: string; failureMessages?: string[] }[] }[];
}

/** Adds the counts from a vitest JSON report; a missing report counts as one failure. */
function countVitest(file: string, label: string) {
  if (!existsSync(file)) { failed++; failures.push(`${label}: no report`); return; }
  const report = JSON.parse(readFileSync(file, 'utf8')) as VitestReport;
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  if (report.numTotalTests === 0) { failed++; failures.push(`${label}: no tests ran`); }
  for (const suite of report.testResults) {
    const where = path.relative(process.cwd(), suite.name);
    if (suite.status === 'failed' && suite.message) failedTests.push(`[${label}] ${where}: ${firstLine(suite.message)}`);
    for (const t of suite.assertionResults) {
      if (t.status === 'failed') failedTests.push(`[${label}] ${where} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    }
  }
}

interface PlaywrightSuite { title: string; specs?: { title: string; ok: boolean; tests: { results: { error?: { message?: string } }[] }[] }[]; suites?: PlaywrightSuite[] }

function countPlaywright(file: string) {
  if (!existsSync(file)) { failed++; failures.push('e2e: no report'); return; }
  const report = JSON.parse(readFileSync(file, 'utf8')) as { stats: { expected: number; unexpected: number; flaky: number; skipped: number }; suites: PlaywrightSuite[] };
  passed += report.stats.expected + report.stats.flaky;
  failed += report.stats.unexpected;
  // No spec skips a test of its own: a skipped test is one that did not run (a failure in the
  // `shared` project skips the `alone` project: playwright.config.ts), and counts as a failure.
  if (report.stats.skipped > 0) { failed += report.stats.skipped; failures.push(`e2e: ${report.stats.skipped} tests did not run`); }
  const walk = (suite: PlaywrightSuite) => {
    for (const spec of suite.specs ?? []) {
      if (!spec.ok) failedTests.push(`[e2e] ${suite.title} > ${spec.title}: ${firstLine(spec.tests.at(-1)?.results.at(-1)?.error?.message)}`);
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites) walk(suite);
}

/**
 * The integration test files the second server repeats: those whose subject is SQL whose result
 * or plan can differ between PostgreSQL versions — the engine's statements (claims, completions,
 * DAG releases, triggers and their races, the tick), the history partitions and retention,
 * migrations and the schema, stats, the lists' queries, the log search's text function and alarms. The other files' subject is
 * something else (processes and signals, an embedded server of their own, the REST layer's shape
 * and input checks, handlers, the console's auth) and they run once, on the first server, since
 * CI must stay under 30 minutes. So do the stress tests of those statements under load
 * (worker-scale, trigger-race, and engine-contention: SECOND_SERVER_EXCLUDED), whose subject is
 * the load and whose statements the second server runs in the engine files. A new file whose name
 * starts with one of these prefixes joins.
 */
const SECOND_SERVER_FILES = /^(engine-|tick-|history-|stats-|alarms-|task-log-lines|task-log-search|migrations|schema-sync|recovery|runs-search|runs-list|job-last-run|jobs-lifecycle|system-jobs)/;
const SECOND_SERVER_EXCLUDED = new Set(['engine-contention.test.ts']);

/** The files under tests/integration that SECOND_SERVER_FILES names, as paths for vitest. */
function secondServerFiles(): string[] {
  const files = readdirSync('tests/integration').filter((f) => f.endsWith('.test.ts') && SECOND_SERVER_FILES.test(f) && !SECOND_SERVER_EXCLUDED.has(f)).sort();
  if (files.length === 0) throw new Error('scripts/test.ts: SECOND_SERVER_FILES names no file under tests/integration');
  return files.map((f) => `tests/integration/${f}`);
}

const node = process.execPath;
const vitest = path.resolve('node_modules/vitest/vitest.mjs');

if (want('typecheck')) {
  const ok = run('type check', node, [path.resolve('node_modules/typescript/bin/tsc'), '--noEmit', '-p', '.']);
  if (ok) passed++; else failed++;
}

for (const dir of ZONE_SENSITIVE_UNIT_DIRS) {
  if (!existsSync(dir)) throw new Error(`vitest.config.ts: ZONE_SENSITIVE_UNIT_DIRS names a missing folder: ${dir}`);
}

// One vitest run for the three unit projects (vitest.config.ts): every unit test under UTC, and
// those of ZONE_SENSITIVE_UNIT_DIRS again under America/New_York and Australia/Sydney.
if (want('unit')) {
  const out = `${results}/unit.json`;
  run('unit tests (UTC; zone-sensitive folders also under America/New_York and Australia/Sydney)', node, [vitest, 'run', '--project', 'unit', '--project', 'unit-new-york', '--project', 'unit-sydney', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`], { TZ: 'UTC' });
  countVitest(out, 'unit');
}

// The console is built before the integration tests when the e2e stage will need it anyway: the
// tests that run `npm start` (service-manager.test.ts) then serve that build instead of compiling
// every page on first request under `next dev` (lib/infra/console-build.ts decides which).
let built: boolean | undefined;
if (want('e2e')) built = run('next build', node, [path.resolve('node_modules/next/dist/bin/next'), 'build']);

if (want('integration')) {
  const out = `${results}/integration.json`;
  run('integration tests (real PostgreSQL)', node, [vitest, 'run', '--project', 'integration', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`]);
  countVitest(out, 'integration');
  // Users bring their own PostgreSQL: CI repeats the integration tests on a second
  // server (the machine's PostgreSQL 15) when TICKFLOW_TEST_SECOND_DATABASE_URL is set.
  const second = process.env.TICKFLOW_TEST_SECOND_DATABASE_URL;
  if (second) {
    const out2 = `${results}/integration-second.json`;
    run(`integration tests (second server: ${new URL(second).host})`, node, [vitest, 'run', '--project', 'integration', ...secondServerFiles(), '--reporter=default', '--reporter=json', `--outputFile.json=${out2}`], { DATABASE_URL: second });
    countVitest(out2, 'integration (second server)');
  }
}

if (want('e2e')) {
  if (!built) {
    failed++;
  } else {
    const out = `${results}/e2e.json`;
    run('e2e tests (Playwright + Chromium)', node, [path.resolve('node_modules/@playwright/test/cli.js'), 'test', '--reporter=list,json'], {
      PLAYWRIGHT_JSON_OUTPUT_NAME: out,
    });
    countPlaywright(out);
  }
}

console.log('');
console.log(`stage times:\n${stageSeconds.map((t) => `  ${t}`).join('\n')}\n  all: ${Math.round((Date.now() - startedAt) / 1000)} s`);
if (passed + failed === 0) failures.push('no test ran');
if (failedTests.length) console.log(`failed tests:\n${failedTests.map((t) => `  ${t}`).join('\n')}`);
if (existsSync(serverEvents)) {
  const events = readFileSync(serverEvents, 'utf8').split('\n').filter(Boolean);
  if (events.length) console.log(`PostgreSQL server processes that died during the tests (every session on that server ended with them):\n${events.slice(0, 20).map((l) => `  ${l}`).join('\n')}`);
}
if (failures.length) console.log(`failed stages: ${failures.join('; ')}`);
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || failures.length > 0 ? 1 : 0);
