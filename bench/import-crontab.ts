/**
 * Crontab-import benchmark (not a test): imports N entries (default 1,000, the documented maximum,
 * MAX_CRONTAB_ENTRIES) through lib/jobs importCrontab, as POST /api/v1/jobs/import does, on a fresh
 * database, and prints the wall time of a dry run and of the import (docs/operations.md "Limits and long transactions").
 *
 *   TICKFLOW_TEST_PG_PORT=54560 node --import tsx bench/import-crontab.ts [entries=1000]
 *
 * Database: DATABASE_URL when set (a throwaway database is created on its server), else an
 * embedded PostgreSQL started by tests/helpers/test-server.ts.
 */
import { withBenchDatabase } from './bench-db.ts';
import { createPrismaClient } from '../lib/db.ts';
import { importCrontab } from '../lib/jobs/import-crontab.ts';
import type { Actor } from '../lib/auth/actor.ts';

const admin: Actor = { kind: 'user', id: 'u-bench', name: 'bench@example.com', role: 'admin' };

async function main() {
  const entries = Number(process.argv[2] ?? 1000);
  const text = Array.from({ length: entries }, (_, i) => `0 5 * * * echo job${i}`).join('\n');
  await withBenchDatabase('import', async (url) => {
    const db = createPrismaClient(url, 4);
    try {
      for (const [label, dryRun, keyPrefix] of [['dry run', true, 'dry.'], ['import', false, 'imp.']] as const) {
        const t0 = performance.now();
        const r = await importCrontab(db, { text, timezone: 'UTC', keyPrefix, dryRun }, admin);
        const ms = performance.now() - t0;
        console.log(`${label}: ${entries} entries -> ${r.created.length} jobs, ${r.skipped.length} skipped in ${ms.toFixed(0)} ms (${(ms / entries).toFixed(2)} ms/entry)`);
      }
    } finally {
      await db.$disconnect();
    }
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
