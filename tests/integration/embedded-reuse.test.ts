/**
 * One-shot commands beside a running `npm start` (lib/infra/database-url.ts resolveDatabase
 * `reuseRunning`, scripts/migrate.ts, scripts/stats-rebuild.ts): they use the embedded database
 * that start runs, on the port it listens on, and never stop it nor point `.tickflow/database-url`
 * elsewhere; stats:rebuild refuses to start an empty database of its own or to read one without
 * Tickflow's schema. A real server on a data directory of its own, started as `npm start` starts it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveDatabase, type ResolvedDatabase } from '../../lib/infra/database-url.ts';
import { databaseAnswers } from '../../lib/infra/database-probe.ts';
import { ensureDatabase, pendingMigrations, withDatabase } from '../../lib/infra/migrate.ts';
import { freePort } from '../helpers/free-port.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataRoot = path.join(ROOT, '.tickflow', `embedded-reuse-test-${process.pid}`);
const urlFile = path.join(dataRoot, 'database-url');
const saved = { DATABASE_URL: process.env.DATABASE_URL, TICKFLOW_DATA_DIR: process.env.TICKFLOW_DATA_DIR, TICKFLOW_PG_PORT: process.env.TICKFLOW_PG_PORT };
let stack: ResolvedDatabase | undefined;

afterAll(async () => {
  await stack?.stop();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(dataRoot, { recursive: true, force: true });
});

const postmasterPid = () => Number(readFileSync(path.join(dataRoot, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]);
const portOf = (url: string) => new URL(url).port;

describe('a one-shot command beside a running npm start', { timeout: 120_000 }, () => {
  it('uses the running embedded database on its port, leaves it running and the URL file as it was', async () => {
    delete process.env.DATABASE_URL;
    process.env.TICKFLOW_DATA_DIR = dataRoot;
    const startPort = await freePort();
    process.env.TICKFLOW_PG_PORT = String(startPort);
    stack = await resolveDatabase(() => undefined); // as npm start does
    expect(stack.embedded).toBe(true);
    const fileBefore = readFileSync(urlFile, 'utf8');
    const pid = postmasterPid();

    // The command's shell lacks the start's TICKFLOW_PG_PORT: it must still find the server where it is.
    const otherPort = await freePort();
    process.env.TICKFLOW_PG_PORT = String(otherPort);
    const lines: string[] = [];
    const oneShot = await resolveDatabase((l) => lines.push(l), { reuseRunning: true });
    expect(portOf(oneShot.url)).toBe(String(startPort));
    expect(oneShot.embedded).toBe(false);
    expect(lines.join('\n')).toContain(`already running on 127.0.0.1:${startPort}`);
    expect(await databaseAnswers(oneShot.url)).toBe(true);
    await oneShot.stop();
    expect(postmasterPid()).toBe(pid);
    expect(await databaseAnswers(stack.url)).toBe(true);
    expect(readFileSync(urlFile, 'utf8')).toBe(fileBefore);

    // The commands themselves, as npm runs them, with no port or URL in their environment.
    const env = { ...process.env, TICKFLOW_DATA_DIR: dataRoot } as NodeJS.ProcessEnv;
    delete env.TICKFLOW_PG_PORT;
    delete env.DATABASE_URL;
    for (const script of ['scripts/migrate.ts', 'scripts/stats-rebuild.ts']) {
      const r = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env, encoding: 'utf8', timeout: 90_000 });
      expect({ script, status: r.status, stderr: r.stderr.includes('stopping it first') }).toEqual({ script, status: 0, stderr: false });
      expect(`${r.stdout}${r.stderr}`).toContain(`already running on 127.0.0.1:${startPort}`);
      expect(postmasterPid()).toBe(pid);
      expect(await databaseAnswers(stack.url)).toBe(true);
      expect(readFileSync(urlFile, 'utf8')).toBe(fileBefore);
    }
  });

  it('stats:rebuild refuses a data directory no npm start used and a database without the schema, saying what to do, and creates nothing', async () => {
    const env = { ...process.env } as NodeJS.ProcessEnv;
    delete env.TICKFLOW_PG_PORT;
    delete env.DATABASE_URL;
    const fresh = path.join(ROOT, '.tickflow', `embedded-reuse-none-${process.pid}`);
    try {
      const none = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/stats-rebuild.ts'], { cwd: ROOT, env: { ...env, TICKFLOW_DATA_DIR: fresh }, encoding: 'utf8', timeout: 90_000 });
      expect(none.status).toBe(1);
      expect(none.stderr).toContain(`stats:rebuild: no database to use`);
      expect(none.stderr).toContain(`TICKFLOW_DATA_DIR=${fresh}`);
      expect(existsSync(path.join(fresh, 'pgdata'))).toBe(false);
      // Its arguments are read before any database: a typo of --apply, a reversed range or an
      // unknown option is refused (exit 1, with the usage), never run as a rebuild without it.
      for (const [argv, message] of [
        [['--aply'], 'stats:rebuild: unknown option --aply'],
        [['--from', '2026-12-07', '--to', '2026-12-01'], 'stats:rebuild: --from 2026-12-07 is after --to 2026-12-01'],
      ] as const) {
        const bad = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/stats-rebuild.ts', ...argv], { cwd: ROOT, env: { ...env, TICKFLOW_DATA_DIR: fresh }, encoding: 'utf8', timeout: 90_000 });
        expect(bad.status).toBe(1);
        expect(bad.stderr).toContain(message);
        expect(bad.stderr).toContain('usage: npm run stats:rebuild');
      }
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
    // a database of the running server that was never migrated
    await ensureDatabase(stack!.server!.adminUrl, 'never_migrated');
    const url = withDatabase(stack!.server!.adminUrl, 'never_migrated');
    const bare = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/stats-rebuild.ts'], { cwd: ROOT, env: { ...env, DATABASE_URL: url }, encoding: 'utf8', timeout: 90_000 });
    expect(bare.status).toBe(1);
    expect(bare.stderr).toMatch(/stats:rebuild: this database lacks \d+ of Tickflow's migrations \(the first: \d+_init\); run `npm run migrate` \(or `npm start`\) on it first/);
    expect(await pendingMigrations(url)).toContain('20261129000000_init');
  });
});
