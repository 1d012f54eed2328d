/**
 * Vitest global setup for the integration project: one server, one migrated
 * template database per test run; each test file clones its own database from
 * the template (graphile-worker's pattern, docs/conventions.md).
 */
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureDatabase, migrate, withDatabase } from '../lib/infra/migrate.ts';
import { ensureWorkerBuild, WorkerBuildError } from '../lib/infra/worker-build.ts';
import { startTestServer } from './helpers/test-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
    pgPrefix: string;
    /** the compiled worker of this run's sources (lib/infra/worker-build.ts), which spawned worker processes run; `build failed: …` when they do not build */
    workerBundle: string;
  }
}

async function dropDatabases(adminUrl: string, like: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [like]);
    for (const { datname } of rows) {
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}

function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

async function dropOrphanDatabases(adminUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE 'tft\\_%'`);
    for (const { datname } of rows) {
      const pid = Number(datname.split('_')[1]);
      if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) continue;
      await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject) {
  const server = await startTestServer();
  const prefix = `tft_${process.pid}_${Date.now().toString(36)}`;
  const template = `${prefix}_tpl`;
  // Leftovers of runs that were killed before their teardown: only those whose
  // vitest process is gone, so two runs on one server never drop each other's.
  await dropOrphanDatabases(server.adminUrl);
  await ensureDatabase(server.adminUrl, template);
  await migrate(withDatabase(server.adminUrl, template));
  project.provide('pgAdminUrl', server.adminUrl);
  project.provide('pgTemplate', template);
  project.provide('pgPrefix', prefix);
  // Worker processes run compiled, as in production; built once here from the sources of this run.
  // Sources that do not build fail the tests that spawn a worker (with esbuild's message), not the run.
  try {
    project.provide('workerBundle', await ensureWorkerBuild(path.resolve(import.meta.dirname, '..'), (line) => console.log(`[worker-build] ${line}`)));
  } catch (err) {
    if (!(err instanceof WorkerBuildError)) throw err;
    project.provide('workerBundle', `build failed: ${err.message}`);
  }
  return async () => {
    await dropDatabases(server.adminUrl, `${prefix}%`);
    await server.stop();
  };
}
