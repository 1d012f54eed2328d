/**
 * Finds or starts the PostgreSQL server that integration and e2e tests use:
 * `DATABASE_URL`'s server when set (it must allow CREATE DATABASE), else an
 * embedded server under .tickflow/test-pg with fsync off (tests only).
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../lib/infra/embedded-postgres.ts';
import { withDatabase } from '../../lib/infra/migrate.ts';

export interface TestServer {
  adminUrl: string;
  stop(): Promise<unknown>;
}

/** PostgreSQL's log lines about a server process that died and the restart of all sessions it causes. */
const SERVER_CRASH_LINE = /was terminated by signal|terminating any other active server processes|all server processes terminated|PANIC:/;

export async function startTestServer(): Promise<TestServer> {
  if (process.env.DATABASE_URL) {
    return { adminUrl: withDatabase(process.env.DATABASE_URL, 'postgres'), stop: async () => undefined };
  }
  const port = Number(process.env.TICKFLOW_TEST_PG_PORT ?? 54331);
  const server: EmbeddedServer = await startEmbeddedPostgres({
    dataDir: path.resolve(process.cwd(), '.tickflow', `test-pg-${port}`),
    port,
    fast: true,
    log: (l) => console.log(`[test-pg] ${l}`),
    // A backend that dies (a signal, a crash) makes PostgreSQL end every session of every test
    // running at the time: say so where the failures show, with the pid and signal that started it.
    serverLog: (l) => {
      if (!SERVER_CRASH_LINE.test(l)) return;
      console.log(`[test-pg] ${l}`);
      // npm test repeats them in its closing summary (scripts/test.ts)
      const events = process.env.TICKFLOW_TEST_SERVER_EVENTS;
      if (events) appendFileSync(events, `${port}: ${l}\n`);
    },
  });
  return server;
}
