/**
 * Interactive-transaction benchmark (not a test): each operation that runs in one Prisma
 * transaction, at the documented maximum of its input, timed on a fresh database, beside the
 * transaction timeout it must stay well within (lib/db.ts TRANSACTION_TIMEOUT_MS, LONG_TRANSACTION_TIMEOUT_MS;
 * docs/operations.md "Limits and long transactions"):
 * - crontab import of 1,000 entries (MAX_CRONTAB_ENTRIES), and its dry run;
 * - bulk resume / pause / delete of 500 jobs (BulkJobsInput);
 * - create and DAG save of a job with 500 steps and 2,000 edges (CreateJobInput, SaveDagInput);
 * - a bulk trigger of 1,000 runs (TriggerJobInput), a backfill of 1,000 slots (BACKFILL_MAX_SLOTS).
 *
 *   TICKFLOW_TEST_PG_PORT=54560 node --import tsx bench/transactions.ts
 *
 * Database: DATABASE_URL when set (a throwaway database is created on its server), else an
 * embedded PostgreSQL started by tests/helpers/test-server.ts.
 */
import { withBenchDatabase } from './bench-db.ts';
import { createPrismaClient, LONG_TRANSACTION_TIMEOUT_MS, TRANSACTION_TIMEOUT_MS } from '../lib/db.ts';
import { importCrontab } from '../lib/jobs/import-crontab.ts';
import { bulkJobs } from '../lib/jobs/bulk-jobs.ts';
import { createJob } from '../lib/jobs/create-job.ts';
import { saveDag } from '../lib/jobs/save-dag.ts';
import { triggerJob } from '../lib/jobs/trigger-job.ts';
import { backfillJob } from '../lib/jobs/backfill-job.ts';
import type { Actor } from '../lib/auth/actor.ts';

const admin: Actor = { kind: 'user', id: 'u-bench', name: 'bench@example.com', role: 'admin' };

/** Times `fn` (the whole call: an upper bound of its transaction) beside the timeout of its transaction. */
async function timed<T>(label: string, fn: () => Promise<T>, timeoutMs = TRANSACTION_TIMEOUT_MS): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  const ms = performance.now() - t0;
  console.log(`${label.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms  (${((100 * ms) / timeoutMs).toFixed(1)} % of its ${timeoutMs / 1000} s timeout)`);
  return out;
}

function dag(n: number, perStep: number, name: string) {
  const steps = Array.from({ length: n }, (_, i) => ({ key: `s${i}`, name: `${name} ${i}`, handler: 'builtin.noop' }));
  const edges: { from: string; to: string }[] = [];
  for (let i = 0; i < n && edges.length < 2000; i++) {
    for (let d = 1; d <= perStep && i + d < n && edges.length < 2000; d++) edges.push({ from: `s${i}`, to: `s${i + d}` });
  }
  return { steps, edges };
}

async function main() {
  await withBenchDatabase('tx', async (url) => {
    const db = createPrismaClient(url, 4);
    try {
      const text = (n: number) => Array.from({ length: n }, (_, i) => `0 5 * * * echo job${i}`).join('\n');
      await timed('import 1,000 crontab entries (dry run)', () => importCrontab(db, { text: text(1000), timezone: 'UTC', keyPrefix: 'dry.', dryRun: true }, admin));
      await timed('import 1,000 crontab entries', () => importCrontab(db, { text: text(1000), timezone: 'UTC', keyPrefix: 'imp.' }, admin));
      const ids = (await db.job.findMany({ select: { id: true }, take: 500, orderBy: { key: 'asc' } })).map((j) => j.id);
      await timed('bulk resume 500 jobs', () => bulkJobs(db, 'resume', { ids }, admin), LONG_TRANSACTION_TIMEOUT_MS);
      await timed('bulk pause 500 jobs', () => bulkJobs(db, 'pause', { ids }, admin), LONG_TRANSACTION_TIMEOUT_MS);
      await timed('bulk delete 500 jobs', () => bulkJobs(db, 'delete', { ids }, admin), LONG_TRANSACTION_TIMEOUT_MS);
      const big = dag(500, 5, 'step');
      const job = await timed('create a job of 500 steps, 2,000 edges', () => createJob(db, { key: 'bench.dag', name: 'dag', schedule: { kind: 'manual' }, ...big }, admin));
      const changed = dag(500, 5, 'renamed');
      await timed('save a DAG of 500 steps, 2,000 edges', () => saveDag(db, job.id, { ...changed, expectedVersion: job.version }, admin), LONG_TRANSACTION_TIMEOUT_MS);
      const one = await createJob(db, { key: 'bench.one', name: 'one', schedule: { kind: 'cron', cron: '* * * * *' }, handler: 'builtin.noop' }, admin, new Date(Date.now() - 2 * 86400_000));
      await timed('bulk trigger of 1,000 runs', () => triggerJob(db, one.id, { runs: Array.from({ length: 1000 }, (_, i) => ({ payload: { i } })) }, admin));
      const to = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 120_000);
      await timed('backfill of 1,000 slots', () => backfillJob(db, one.id, { from: new Date(to.getTime() - 999 * 60_000).toISOString(), to: to.toISOString() }, admin));
    } finally {
      await db.$disconnect();
    }
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
