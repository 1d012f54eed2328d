/**
 * A PostgreSQL server that one test file owns and may stop and start: an
 * embedded server (fsync off) on its own port and data directory under
 * .tickflow/, with one migrated database. For outage tests; the shared test
 * server (tests/global-setup.ts) is never stopped.
 *
 * Port: TICKFLOW_TEST_OUTAGE_PG_PORT, else TICKFLOW_TEST_PG_PORT + 4 (54335 by default).
 */
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedServer } from '../../lib/infra/embedded-postgres.ts';
import { ensureDatabase, migrate, withDatabase } from '../../lib/infra/migrate.ts';

export interface OwnServer {
  /** URL of the migrated database */
  url: string;
  port: number;
  /** stops the server (fast shutdown: connections are terminated) */
  stop(): Promise<void>;
  /** starts it again; resolves when it accepts connections */
  start(): Promise<void>;
  /** stops it for good */
  close(): Promise<void>;
}

export function ownServerPort(): number {
  const explicit = Number(process.env.TICKFLOW_TEST_OUTAGE_PG_PORT);
  if (Number.isInteger(explicit) && explicit > 0) return explicit;
  return Number(process.env.TICKFLOW_TEST_PG_PORT ?? 54331) + 4;
}

export async function startOwnServer(dbName = 'tickflow_outage'): Promise<OwnServer> {
  const port = ownServerPort();
  const dataDir = path.resolve(process.cwd(), '.tickflow', `test-outage-pg-${port}`);
  const boot = () => startEmbeddedPostgres({ dataDir, port, fast: true, log: () => undefined });
  let server: EmbeddedServer | null = await boot();
  const url = withDatabase(server.adminUrl, dbName);
  // A fresh database each time: drop what an earlier run left.
  const admin = new (await import('pg')).default.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
  await ensureDatabase(server.adminUrl, dbName);
  await migrate(url);
  return {
    url,
    port,
    async stop() {
      await server?.stop();
      server = null;
    },
    async start() {
      if (!server) server = await boot();
    },
    async close() {
      await server?.stop();
      server = null;
    },
  };
}
