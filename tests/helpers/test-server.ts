/**
 * Finds or starts the PostgreSQL server that integration and e2e tests use:
 * `DATABASE_URL`'s server when set (it must allow CREATE DATABASE), else an
 * embedded server under .tickflow/test-pg with fsync off (tests only).
 */
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../lib/infra/embedded-postgres.ts';
import { withDatabase } from '../../lib/infra/migrate.ts';

export interface TestServer {
  adminUrl: string;
  stop(): Promise<unknown>;
}

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
  });
  return server;
}
