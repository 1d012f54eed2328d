/**
 * Idle load benchmark (not a test): two workers with the default configuration (every role,
 * TICKFLOW_* defaults) on a database with nothing due, for D seconds after a start-up pause.
 * Counts the statements they send (client side: every node-postgres query, BEGIN/COMMIT,
 * LISTEN and heartbeats included) and the transactions the server committed for the database
 * (pg_stat_database.xact_commit, which also counts each autocommit statement). Prints
 * statements per second per worker.
 *
 *   node --import tsx bench/idle.ts [seconds=60]
 */
import pg from 'pg';
import { createWorker } from '../worker/create-worker.ts';
import { loadWorkerConfig } from '../worker/config.ts';
import { countStatements, withBenchDatabase } from './bench-db.ts';

export interface IdleResult {
  seconds: number;
  workers: number;
  statementsPerWorkerPerSecond: number;
  xactPerWorkerPerSecond: number;
}

export async function measureIdle(url: string, seconds: number): Promise<IdleResult> {
  const counter = countStatements();
  const config = loadWorkerConfig({ DATABASE_URL: url } as unknown as NodeJS.ProcessEnv);
  const workers = [createWorker({ config }), createWorker({ config })];
  for (const w of workers) await w.start();
  await new Promise((r) => setTimeout(r, 3000)); // start-up (registration, first passes)
  const probe = new pg.Client({ connectionString: url });
  await probe.connect();
  const xacts = async () => Number((await probe.query(`SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()`)).rows[0].xact_commit);
  const x0 = await xacts();
  counter.reset();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const statements = counter.count;
  const x1 = await xacts();
  await probe.end();
  for (const w of workers) await w.stop({ graceMs: 0 });
  // the probe's own two statements are not the workers'; pg_stat_database is updated lazily (≤ 1 s)
  return {
    seconds,
    workers: workers.length,
    statementsPerWorkerPerSecond: statements / workers.length / seconds,
    xactPerWorkerPerSecond: Math.max(0, x1 - x0 - 1) / workers.length / seconds,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const seconds = Number(process.argv[2] ?? 60);
  withBenchDatabase('idle', async (url) => {
    const r = await measureIdle(url, seconds);
    console.log(`idle: ${r.workers} workers, ${r.seconds} s: ${r.statementsPerWorkerPerSecond.toFixed(2)} statements/s per worker (client count), ${r.xactPerWorkerPerSecond.toFixed(2)} transactions/s per worker (pg_stat_database)`);
  }).catch((e) => { console.error(e); process.exit(1); });
}
