/**
 * First-start bootstrap: makes sure an admin can sign in and,
 * on a database that never had a job, seeds demo jobs that do real work and
 * succeed. Called by scripts/start.ts after migrations; safe to call on every
 * start (it only acts on an empty database / missing admin).
 */
import { CONSOLE_HEALTH_PATH } from '../lib/infra/console-listen.ts';
import { writePrivateFile } from '../lib/infra/private-files.ts';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { SYSTEM_ACTOR } from '../lib/auth/actor.ts';
import { ensureAdminUser, INITIAL_ADMIN_FILE, initialAdminFileText } from '../lib/auth/bootstrap.ts';
import { createPrismaClient, inTransaction, type Db } from '../lib/db.ts';
import { createJob } from '../lib/jobs/create-job.ts';
import { ensureSystemJobs } from '../lib/system-jobs/definitions.ts';

export interface BootstrapResult {
  messages: string[];
  seeded: string[];
}

/** The demo jobs: keys and inputs in the REST shape of docs/design.md §5. */
export function demoJobs(consoleUrl: string): Record<string, unknown>[] {
  return [
    {
      key: 'demo.health-check',
      name: 'Console health check',
      description: 'Calls the console\'s own /api/v1/health every minute with the http executor.',
      schedule: { kind: 'cron', cron: '* * * * *', timezone: 'UTC' },
      handler: 'http',
      payload: { method: 'GET', url: `${consoleUrl}${CONSOLE_HEALTH_PATH}` },
      policy: { timeoutSeconds: 10, maxRetries: 2, misfirePolicy: 'fire_once', blockStrategy: 'discard_later' },
    },
    {
      key: 'demo.echo-every-minute',
      name: 'Echo every minute (Shanghai time)',
      description: 'A builtin.echo step on a cron evaluated in Asia/Shanghai.',
      schedule: { kind: 'cron', cron: '* * * * *', timezone: 'Asia/Shanghai' },
      handler: 'builtin.echo',
      payload: { greeting: 'hello from Tickflow' },
      policy: { timeoutSeconds: 30, misfirePolicy: 'skip' },
    },
    demoMigrationDag(),
    {
      key: 'demo.manual-report',
      name: 'Manual report',
      description: 'Only runs when someone presses Run now (try a payload override).',
      schedule: { kind: 'manual' },
      handler: 'builtin.echo',
      payload: { report: 'daily-sales', format: 'csv' },
    },
  ];
}

const SHARDS = [0, 1, 2];

/**
 * The seed document's database-migration flow (seeds/002, docs/design.md §4) as a
 * DAG of `sql` steps on the worker's scratch schema: extract -> transform ->
 * validate (one step per shard, in parallel) -> rebuild index, with an
 * `on_failure` compensation step that drops the half-written target table if
 * the transform fails (skipped by design when it succeeds).
 */
function demoMigrationDag(): Record<string, unknown> {
  const validate = (shard: number) => ({
    key: `validate-shard-${shard}`,
    name: `Validate shard ${shard}`,
    handler: 'sql',
    payload: {
      sql: `DO $$ BEGIN
  IF (SELECT count(*) FROM legacy_orders WHERE shard = ${shard}) <> (SELECT count(*) FROM orders_v2 WHERE shard = ${shard})
  THEN RAISE EXCEPTION 'shard ${shard}: row counts differ'; END IF;
  IF (SELECT coalesce(sum(round(amount_yuan * 100)), 0) FROM legacy_orders WHERE shard = ${shard})
     <> (SELECT coalesce(sum(amount_fen), 0) FROM orders_v2 WHERE shard = ${shard})
  THEN RAISE EXCEPTION 'shard ${shard}: amounts differ'; END IF;
END $$`,
    },
  });
  return {
    key: 'demo.db-migration',
    name: 'Orders table migration (DAG)',
    description: 'Extract, transform, validate three shards in parallel, rebuild the index; compensates if the transform fails. Runs real SQL in the tickflow_scratch schema.',
    schedule: { kind: 'manual' },
    steps: [
      {
        key: 'extract',
        name: 'Extract legacy orders',
        handler: 'sql',
        payload: {
          sql: `DROP TABLE IF EXISTS legacy_orders CASCADE;
CREATE TABLE legacy_orders AS
  SELECT g AS id, g % 3 AS shard, (g * 37 % 100000) / 100.0 AS amount_yuan,
         timestamp '2026-01-01' + g * interval '1 minute' AS placed_at
  FROM generate_series(1, 30000) g`,
        },
      },
      {
        key: 'transform',
        name: 'Transform to orders_v2',
        handler: 'sql',
        payload: {
          sql: `DROP TABLE IF EXISTS orders_v2;
CREATE TABLE orders_v2 AS
  SELECT id, shard, round(amount_yuan * 100)::bigint AS amount_fen,
         placed_at AT TIME ZONE 'Asia/Shanghai' AS placed_at_utc
  FROM legacy_orders`,
        },
      },
      ...SHARDS.map(validate),
      {
        key: 'rebuild-index',
        name: 'Rebuild index',
        handler: 'sql',
        payload: { sql: 'CREATE INDEX IF NOT EXISTS orders_v2_placed_idx ON orders_v2 (placed_at_utc); ANALYZE orders_v2' },
        resourceKey: 'scratch-ddl',
      },
      {
        key: 'rollback',
        name: 'Compensate: drop orders_v2',
        handler: 'sql',
        payload: { sql: 'DROP TABLE IF EXISTS orders_v2' },
      },
    ],
    edges: [
      { from: 'extract', to: 'transform', type: 'hard' },
      ...SHARDS.map((s) => ({ from: 'transform', to: `validate-shard-${s}`, type: 'hard' })),
      ...SHARDS.map((s) => ({ from: `validate-shard-${s}`, to: 'rebuild-index', type: 'hard' })),
      { from: 'transform', to: 'rollback', type: 'on_failure' },
    ],
    policy: { timeoutSeconds: 120, maxRetries: 1, blockStrategy: 'discard_later' },
  };
}

async function seedDemoJobs(db: Db, consoleUrl: string): Promise<string[]> {
  const seeded: string[] = [];
  for (const input of demoJobs(consoleUrl)) {
    const job = await createJob(db, input, SYSTEM_ACTOR);
    seeded.push(job.key);
  }
  return seeded;
}

/** How long the bootstrap's one transaction may take (ms): an admin's password hash and a few job creations. */
const BOOTSTRAP_TRANSACTION_MS = 60_000;

/**
 * Ensures an admin and seeds demo data on a database that never had a job, in one transaction
 * serialised across concurrent starters (a transaction-level advisory lock).
 * @param databaseUrl the migrated database
 * @param opts.consoleUrl base URL the demo http job calls
 * @param opts.seed false to skip demo jobs (TICKFLOW_SEED=0 does the same)
 */
export async function bootstrap(databaseUrl: string, opts: { consoleUrl: string; seed?: boolean }): Promise<BootstrapResult> {
  const db = createPrismaClient(databaseUrl, 2);
  const messages: string[] = [];
  let seeded: string[] = [];
  try {
    const dir = path.resolve(process.env.TICKFLOW_DATA_DIR ?? '.tickflow');
    const file = path.join(dir, INITIAL_ADMIN_FILE);
    const wantSeed = (opts.seed ?? true) && process.env.TICKFLOW_SEED !== '0';
    // Consoles started side by side on a new database each check, then create: under one
    // transaction-level lock (what a transaction-mode pooler passes on) the second waits for the
    // first and finds what it made, instead of failing on a job key or an admin email it also made.
    const { admin, system } = await inTransaction(
      db,
      async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('tickflow:bootstrap', 0))`;
        const admin = await ensureAdminUser(tx);
        // Seed once per database: a marker row keeps purged demo jobs from coming back.
        const marker = await tx.setting.findUnique({ where: { key: 'demo_seeded_at' } });
        if (wantSeed && !marker && (await tx.job.count()) === 0) {
          seeded = await seedDemoJobs(tx, opts.consoleUrl);
          await tx.setting.create({ data: { key: 'demo_seeded_at', value: new Date().toISOString() } });
        }
        // System jobs (retention, idempotency cleanup, recycle-bin purge, stats check) are
        // part of the product, not demo data: ensured on every start, seeded once
        // (ensureSystemJobs remembers what it seeded); no user may delete one
        // (lib/jobs/handler-permissions.ts deleteRefusal), only pause it.
        return { admin, system: await ensureSystemJobs(tx) };
      },
      { timeoutMs: BOOTSTRAP_TRANSACTION_MS },
    );
    if (admin?.password) {
      await mkdir(dir, { recursive: true });
      writePrivateFile(file, initialAdminFileText({ email: admin.email, password: admin.password }));
      messages.push(`created admin ${admin.email} with password ${admin.password} (also saved in ${file}; change it under Settings → Users, then delete that file)`);
    } else if (admin) {
      messages.push(`created admin ${admin.email} (password from TICKFLOW_ADMIN_PASSWORD)`);
    } else if (existsSync(file)) {
      // a password in clear on disk outlives its use unless someone is told, on every start
      messages.push(`${file} still holds the first admin password: once you have changed it under Settings → Users, delete that file`);
    }
    if (seeded.length) messages.push(`seeded demo jobs: ${seeded.join(', ')}`);
    if (system.length) messages.push(`created system jobs: ${system.join(', ')}`);
    return { messages, seeded };
  } finally {
    await db.$disconnect();
  }
}
