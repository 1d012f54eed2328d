/**
 * Starts what the e2e tests run against: the test PostgreSQL (embedded, or
 * DATABASE_URL's server), a fresh migrated database, the built console
 * (`next start`) and one real worker (compiled, as `npm start` runs it). Accounts and
 * token: e2e/helpers/env.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { SYSTEM_ACTOR } from '../lib/auth/actor.ts';
import { createUser } from '../lib/auth/users.ts';
import { createPrismaClient } from '../lib/db.ts';
import { ensureDatabase, migrate, withDatabase } from '../lib/infra/migrate.ts';
import { ensureWorkerBuild, workerNodeArgs } from '../lib/infra/worker-build.ts';
import { bootstrap } from '../prisma/seed.ts';
import { startTestServer } from '../tests/helpers/test-server.ts';
import { E2E_ADMIN, E2E_API_TOKEN, E2E_OPERATOR, E2E_PORT, E2E_VIEWER, E2E_ZONE_VIEWER } from './helpers/env.ts';

async function waitForHealth(url: string, children: ChildProcess[], timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const c of children) if (c.exitCode !== null) throw new Error(`a process exited early (code ${c.exitCode})`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`console did not answer ${url} within ${timeoutMs} ms`);
}

/** Stops a child: SIGTERM, then SIGKILL after 10 s. */
function stopChild(c: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const t = setTimeout(() => { c.kill('SIGKILL'); resolve(); }, 10_000);
    c.once('exit', () => { clearTimeout(t); resolve(); });
    c.kill('SIGTERM');
  });
}

/**
 * Returns the teardown Playwright runs after the last test. When a step throws, what the steps before
 * it started (the database server, the database, the console, the worker) is stopped before the error
 * is passed on, so a failed start leaves no process behind holding the ports of the next attempt.
 */
export default async function globalSetup() {
  // undone last started, first stopped
  const undo: (() => Promise<void>)[] = [];
  const teardown = async () => {
    for (const step of undo.splice(0).reverse()) await step().catch((e) => console.error('e2e teardown:', e));
  };
  try {
    await start(undo);
  } catch (e) {
    await teardown();
    throw e;
  }
  return teardown;
}

async function start(undo: (() => Promise<void>)[]): Promise<void> {
  process.env.TICKFLOW_TEST_PG_PORT ??= '54333';
  const server = await startTestServer();
  undo.push(async () => { await server.stop(); });
  const dbName = `tfe2e_${Date.now().toString(36)}`;
  await ensureDatabase(server.adminUrl, dbName);
  undo.push(async () => {
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  });
  const url = withDatabase(server.adminUrl, dbName);
  await migrate(url);
  const baseUrl = `http://127.0.0.1:${E2E_PORT}`;
  const env = {
    ...process.env,
    DATABASE_URL: url,
    PORT: String(E2E_PORT),
    TICKFLOW_ADMIN_EMAIL: E2E_ADMIN.email,
    TICKFLOW_ADMIN_PASSWORD: E2E_ADMIN.password,
    TICKFLOW_API_TOKEN: E2E_API_TOKEN,
    TICKFLOW_POLL_MS: '250',
    // two spec files run at a time (playwright.config.ts), and some leave long sleeps running
    TICKFLOW_CONCURRENCY: '16',
    // run alarms reach the alarms page within seconds, and each failure is its own row (e2e/alarms.spec.ts)
    TICKFLOW_ALARM_RUN_LAG_SECONDS: '1',
    TICKFLOW_ALARM_DISPATCH_MS: '1000',
    TICKFLOW_ALARM_COLLAPSE_SECONDS: '0',
    // e2e/task-logs.spec.ts streams a shell step's output onto the run page.
    TICKFLOW_ALLOW_SHELL: '1',
    TICKFLOW_DATA_DIR: path.resolve('.tickflow', 'e2e'),
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'warn',
  };
  process.env.TICKFLOW_ADMIN_EMAIL = E2E_ADMIN.email;
  process.env.TICKFLOW_ADMIN_PASSWORD = E2E_ADMIN.password;
  await bootstrap(url, { consoleUrl: baseUrl, seed: process.env.E2E_SEED === '1' });
  const db = createPrismaClient(url, 2);
  await createUser(db, { ...E2E_OPERATOR, role: 'operator', name: 'E2E Operator' }, SYSTEM_ACTOR);
  await createUser(db, { ...E2E_VIEWER, role: 'viewer', name: 'E2E Viewer' }, SYSTEM_ACTOR);
  await createUser(db, { ...E2E_ZONE_VIEWER, role: 'viewer', name: 'E2E Zone Viewer' }, SYSTEM_ACTOR);
  await db.$disconnect();

  const nextBin = path.resolve('node_modules/next/dist/bin/next');
  if (!existsSync('.next/BUILD_ID')) {
    const build = spawnSync(process.execPath, [nextBin, 'build'], { stdio: 'inherit', env });
    if (build.status !== 0) throw new Error('next build failed');
  }
  const log = (tag: string, child: ChildProcess) => {
    const verbose = process.env.E2E_VERBOSE === '1';
    child.stdout?.on('data', (d) => verbose && process.stdout.write(`[${tag}] ${d}`));
    child.stderr?.on('data', (d) => process.stderr.write(`[${tag}] ${d}`));
  };
  // as scripts/start.ts: the console learns client addresses from the peer-address hook
  const peerAddress = pathToFileURL(path.resolve('scripts/peer-address.mjs')).href;
  const consoleProc = spawn(process.execPath, ['--import', peerAddress, nextBin, 'start', '-p', String(E2E_PORT), '-H', '127.0.0.1'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  undo.push(() => stopChild(consoleProc));
  // The worker also loads the example handler modules (docs/handlers.md; e2e/handlers.spec.ts uses them).
  const workerEnv = { ...env, TICKFLOW_HANDLERS: path.resolve('examples/handlers'), TICKFLOW_OUTBOUND_ALLOW: `127.0.0.1:${E2E_PORT}` };
  // the compiled worker, as `npm start` runs it (lib/infra/worker-build.ts)
  const workerBundle = await ensureWorkerBuild(path.resolve('.'));
  const workerProc = spawn(process.execPath, workerNodeArgs(workerBundle), { env: workerEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  undo.push(() => stopChild(workerProc));
  log('console', consoleProc);
  log('worker', workerProc);
  await waitForHealth(`${baseUrl}/api/v1/health`, [consoleProc, workerProc]);
  process.env.E2E_BASE_URL = baseUrl;
  process.env.E2E_DATABASE_URL = url;
}
