/**
 * Resolves the database Tickflow runs on: `DATABASE_URL` when set, else the
 * embedded PostgreSQL under `.tickflow/pgdata` (README "Configuration").
 */
import { existsSync, readFileSync } from 'node:fs';
import { writePrivateFile } from './private-files.ts';
import path from 'node:path';
import { runningEmbeddedServer, startEmbeddedPostgres, type EmbeddedServer } from './embedded-postgres.ts';
import { ensureDatabase, withDatabase } from './migrate.ts';

export interface ResolvedDatabase {
  url: string;
  embedded: boolean;
  /** stops an embedded server, resolving to how it ended ('' for a server that is not ours) */
  stop(): Promise<string>;
  /** the embedded server, exactly when `embedded`: the supervisor watches and restarts it (scripts/start.ts) */
  server?: EmbeddedServer;
}

/** Default port of the embedded server: away from a system PostgreSQL on 5432. */
export const DEFAULT_EMBEDDED_PORT = 54329;

/**
 * Returns the database URL to use, starting the embedded server if needed.
 * @param log line logger for progress messages
 * @param opts.reuseRunning for one-shot commands (`npm run migrate`, `npm run stats:rebuild`): an embedded
 *   server already running on this checkout's data directory (a running `npm start`'s) is used as it is, on
 *   the port it listens on, and its `stop` does nothing. Without it (`npm start`), a server left running there
 *   by a start that died is stopped and started again under this process.
 * @throws Error (with the fix in its message) when the embedded server cannot start
 */
export async function resolveDatabase(log: (line: string) => void, opts: { reuseRunning?: boolean } = {}): Promise<ResolvedDatabase> {
  if (process.env.DATABASE_URL) {
    return { url: process.env.DATABASE_URL, embedded: false, stop: async () => '' };
  }
  const port = Number(process.env.TICKFLOW_PG_PORT ?? DEFAULT_EMBEDDED_PORT);
  const dataDir = path.resolve(dataRoot(), 'pgdata');
  const running = opts.reuseRunning ? runningEmbeddedServer(dataDir) : null;
  if (running) {
    await ensureDatabase(running.adminUrl, 'tickflow');
    log(`using the embedded PostgreSQL already running on 127.0.0.1:${running.port} (pid ${running.pid}, data in ${dataDir})`);
    return { url: withDatabase(running.adminUrl, 'tickflow'), embedded: false, stop: async () => '' };
  }
  const server = await startEmbeddedPostgres({ dataDir, port, log });
  await ensureDatabase(server.adminUrl, 'tickflow');
  const url = withDatabase(server.adminUrl, 'tickflow');
  // Other commands of this checkout (npm run worker, import-crontab) find the
  // running embedded database through this file; it holds a password, so 600.
  writePrivateFile(localUrlFile(), `${url}\n`);
  log(`embedded PostgreSQL on 127.0.0.1:${port} (data in ${dataDir}; its DATABASE_URL is in ${localUrlFile()})`);
  return { url, embedded: true, stop: server.stop, server };
}

/**
 * Whether this checkout's embedded PostgreSQL has a data directory (TICKFLOW_DATA_DIR, default
 * `.tickflow`): false before the first `npm start`, or when the data directory named is another.
 */
export function embeddedDataExists(): boolean {
  return existsSync(path.join(dataRoot(), 'pgdata', 'PG_VERSION'));
}

function dataRoot(): string {
  return path.resolve(process.env.TICKFLOW_DATA_DIR ?? path.join(process.cwd(), '.tickflow'));
}

function localUrlFile(): string {
  return path.join(dataRoot(), 'database-url');
}

/**
 * DATABASE_URL, or else the URL of the embedded database that `npm start` of
 * this checkout runs (`.tickflow/database-url`), or undefined.
 */
export function databaseUrlFromEnvOrLocal(): string | undefined {
  return locateDatabaseUrl()?.url;
}

/**
 * Where a one-shot command finds its database: DATABASE_URL (`from: 'env'`), else the file a running
 * `npm start` writes for its embedded database, `database-url` in the data directory (TICKFLOW_DATA_DIR,
 * default `.tickflow` under the current directory; `from` is that file's path), else null
 * (noDatabaseMessage says what to do).
 */
export function locateDatabaseUrl(): { url: string; from: 'env' | string } | null {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, from: 'env' };
  const file = localUrlFile();
  const url = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  return url ? { url, from: file } : null;
}

/**
 * What a one-shot command (`npm run import-crontab`) says when locateDatabaseUrl finds no database: where it
 * looked, and how to point it at the Tickflow that runs: the same TICKFLOW_DATA_DIR as that `npm start`
 * (whose embedded database writes its URL there), or DATABASE_URL.
 * @param command how the command is run, for the example (`npm run import-crontab -- FILE`)
 */
export function noDatabaseMessage(command: string): string {
  const dir = process.env.TICKFLOW_DATA_DIR ? `TICKFLOW_DATA_DIR=${dataRoot()}` : `the default data directory ${dataRoot()} (TICKFLOW_DATA_DIR is not set)`;
  return (
    `no database to use: DATABASE_URL is not set, and ${localUrlFile()} does not exist. ` +
    `A running \`npm start\` with the embedded database writes that file in its data directory; this command looked in ${dir}. ` +
    `If \`npm start\` runs with TICKFLOW_DATA_DIR set, give this command the same value (TICKFLOW_DATA_DIR=<that directory> ${command}); ` +
    `if it runs with DATABASE_URL, set the same DATABASE_URL here; if Tickflow is not running, start it with \`npm start\` first.`
  );
}

/**
 * What a one-shot command says when the database named in a database-url file (`file`, locateDatabaseUrl) does not
 * answer: the file outlives the `npm start` that wrote it.
 */
export function staleDatabaseUrlMessage(file: string, url: string): string {
  let where = 'the address it names';
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || 5432}`;
  } catch {
    // keep the generic words: the URL is not printed (it holds a password)
  }
  return (
    `the embedded database named in ${file} does not answer on ${where}: the \`npm start\` that wrote it has stopped, or runs with ` +
    `another TICKFLOW_DATA_DIR. Start Tickflow (\`npm start\`), or give this command the TICKFLOW_DATA_DIR or DATABASE_URL of the one that runs.`
  );
}
