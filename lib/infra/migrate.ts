/**
 * Applies the SQL migrations under prisma/migrations in Prisma's own layout and
 * history table, because `prisma migrate deploy` needs a native engine these
 * machines cannot download (docs/toolchain.md "Prisma 7 here"). A machine that does
 * have the engine sees the same history: same table, sha256 checksums, and the
 * advisory lock key Prisma's migrate engine takes (72707369).
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { SEED_STATS_TZ_SQL } from '../stats/seed-zone-sql.ts';
import { isValidTimeZone, postgresTimeZone } from '../schedule/timezone.ts';
import { explainConnectError } from './database-connect-error.ts';

const PRISMA_MIGRATE_LOCK_KEY = 72707369;
/** How long migrate() waits for the server to accept its connection (ms). */
const CONNECT_TIMEOUT_MS = 10_000;

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

/** The default migrations folder: prisma/migrations beside package.json. */
export function defaultMigrationsDir(): string {
  return path.resolve(process.cwd(), 'prisma', 'migrations');
}

/**
 * Applies every migration folder not yet recorded, in name order, one
 * transaction each, under a transaction-level advisory lock so concurrent
 * starters serialise (also through a transaction-mode pooler).
 * @param databaseUrl postgres:// URL of the target database
 * @param migrationsDir folder holding `<timestamp>_<name>/migration.sql`
 * @throws DatabaseConnectError (lib/infra/database-connect-error.ts) when the database cannot be
 *   connected to: missing, refusing the user, or unreachable;
 *   Error when a recorded migration's file changed (checksum mismatch),
 *   when a previous attempt failed half-way, or when a migration's SQL fails.
 */
export async function migrate(databaseUrl: string, migrationsDir = defaultMigrationsDir()): Promise<MigrationResult> {
  const client = await connectClient(databaseUrl);
  // Every step holds the lock as a transaction-level advisory lock (pg_advisory_xact_lock), never a
  // session-level one: behind a transaction-mode pooler (PgBouncer) a session lock would stay with
  // whichever server connection ran it, and the unlock could land on another, leaving the lock held
  // for every later start. Each migration re-reads the history under the lock, so concurrent
  // starters apply each migration once (docs/operations.md "Connection poolers").
  const inLockedTransaction = async <T>(fn: () => Promise<T>): Promise<T> => {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1)', [PRISMA_MIGRATE_LOCK_KEY]);
      const result = await fn();
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  };
  const recordedMigrations = async () => {
    const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
      'SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"',
    );
    return new Map(rows.filter((r) => r.rolled_back_at === null).map((r) => [r.migration_name, r]));
  };
  try {
    await inLockedTransaction(() => client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`));
    const names = (await readdir(migrationsDir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const applied: string[] = [];
    let alreadyApplied = 0;
    for (const name of names) {
      const sql = await readFile(path.join(migrationsDir, name, 'migration.sql'), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      const wasApplied = await inLockedTransaction(async () => {
        const previous = (await recordedMigrations()).get(name);
        if (previous) {
          if (previous.finished_at === null) {
            throw new Error(`Migration ${name} failed earlier and was never finished; fix the database by hand, then delete its row from _prisma_migrations.`);
          }
          if (previous.checksum !== checksum) {
            throw new Error(`Migration ${name} was changed after it was applied (checksum differs); add a new migration instead of editing an applied one.`);
          }
          return true;
        }
        try {
          await client.query(sql);
        } catch (error) {
          throw new Error(`Migration ${name} failed: ${(error as Error).message}`);
        }
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, now(), 1)`,
          [randomUUID(), checksum, name],
        );
        return false;
      });
      if (wasApplied) alreadyApplied++;
      else applied.push(name);
    }
    // TICKFLOW_STATS_TZ only seeds the stats zone setting; once stored, the database's value wins.
    const statsZone = process.env.TICKFLOW_STATS_TZ?.trim();
    if (statsZone && isValidTimeZone(statsZone)) await client.query(SEED_STATS_TZ_SQL, [postgresTimeZone(statsZone)]);
    return { applied, alreadyApplied };
  } finally {
    await client.end();
  }
}

/**
 * One connection for migrating or reading the migration history.
 * @throws DatabaseConnectError (explainConnectError) when it cannot connect
 */
async function connectClient(databaseUrl: string): Promise<pg.Client> {
  // A host that drops packets would otherwise hold the start for the kernel's connect timeout (about 2 min).
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A connection lost mid-migration (terminated, server restart) rejects the statement in flight;
  // without a listener its 'error' event would also be an uncaught exception.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    // a refused authentication can leave the socket open, which would keep `npm run migrate` alive
    await client.end().catch(() => undefined);
    throw explainConnectError(error, databaseUrl);
  }
  return client;
}

/**
 * The migrations of `migrationsDir` not recorded as finished in the database (all of them on a
 * database without Tickflow's schema), in name order. Reads only; a one-shot command that needs
 * the schema (`npm run stats:rebuild`) refuses to run against a database that lacks some.
 * @throws DatabaseConnectError when the database cannot be connected to (as migrate)
 */
export async function pendingMigrations(databaseUrl: string, migrationsDir = defaultMigrationsDir()): Promise<string[]> {
  const client = await connectClient(databaseUrl);
  try {
    const names = (await readdir(migrationsDir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    const { rows } = await client.query<{ table: string | null }>(`SELECT to_regclass('"_prisma_migrations"')::text AS table`);
    if (!rows[0]?.table) return names;
    const done = await client.query<{ migration_name: string }>(
      'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const applied = new Set(done.rows.map((r) => r.migration_name));
    return names.filter((n) => !applied.has(n));
  } finally {
    await client.end();
  }
}

/**
 * The one line `npm start` and `npm run migrate` print after migrating: the names applied on an
 * upgrade; on a new database, only how many (every migration, a long line that says nothing more).
 */
export function migrationSummary(result: MigrationResult): string {
  if (result.applied.length === 0) return `database schema up to date (${result.alreadyApplied} migrations)`;
  if (result.alreadyApplied === 0) return `database schema created (${result.applied.length} migrations)`;
  return `applied migrations: ${result.applied.join(', ')}`;
}

/**
 * Creates `database` on the server of `adminUrl` unless it exists.
 * @param adminUrl URL of any database on that server (e.g. /postgres)
 * @param template optional template database to clone (CREATE DATABASE ... TEMPLATE)
 */
export async function ensureDatabase(adminUrl: string, database: string, template?: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => undefined); // as in migrate(): a lost connection rejects the statement instead
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (rowCount) return false;
    const ident = (s: string) => '"' + s.replace(/"/g, '""') + '"';
    await client.query(`CREATE DATABASE ${ident(database)}${template ? ` TEMPLATE ${ident(template)}` : ''}`);
    return true;
  } finally {
    await client.end();
  }
}

/** Returns `url` with its database name replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = '/' + encodeURIComponent(database);
  return u.toString();
}
