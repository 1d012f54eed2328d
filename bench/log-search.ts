/**
 * Task log search benchmark (not a test): seeds N stored task log lines (default
 * 1,000,000: 10,000 task attempts × 100 lines over 200 jobs and 30 days, texts built from
 * a few log templates with random ids, so the trigram index sees realistic variety), runs
 * VACUUM ANALYZE (as autovacuum would after such a load), then times lib/task-logs searchTaskLogLines (the code behind
 * GET /api/v1/logs/search) for rare, medium, common and absent texts, across all jobs, in
 * one job and in a one-day range. Prints each search's time (first run and best of 3) and
 * the plan's top node. docs/task-logs.md quotes the figures.
 *
 *   node --import tsx bench/log-search.ts [lines=1000000]
 *
 * Database: DATABASE_URL when set (a throwaway database is created on its server), else an
 * embedded PostgreSQL started by tests/helpers/test-server.ts.
 */
import { withBenchDatabase } from './bench-db.ts';
import pg from 'pg';
import { SYSTEM_ACTOR } from '../lib/auth/actor.ts';
import { createPrismaClient } from '../lib/db.ts';
import { searchLinesStatement, searchTaskLogLines, SearchTaskLogLinesQuery } from '../lib/task-logs/index.ts';
import { parseOrThrow } from '../lib/api/validation.ts';
import { ensureHistoryPartitions } from '../lib/system-jobs/history-partitions.ts';

const SEED_SQL = `
INSERT INTO task_log_lines (task_id, attempt, seq, time, run_id, job_id, level, stream, text, fields, scheduled_for)
SELECT md5('task' || a)::uuid, 1, s,
       $3::timestamptz - make_interval(secs => ($4::int - a) * 30 * 86400.0 / $4::int) + make_interval(secs => s * 0.05),
       md5('run' || a)::uuid, md5('job' || (a % 200))::uuid::text,
       (CASE WHEN r < 0.01 THEN 'error' WHEN r < 0.05 THEN 'warn' ELSE 'info' END)::task_log_level,
       (CASE WHEN a % 3 = 0 THEN 'stdout' ELSE 'log' END)::task_log_stream,
       CASE (s % 7)
         WHEN 0 THEN 'GET /api/orders/' || (a * 100 + s) || ' answered 200 in ' || (r * 900)::int || ' ms'
         WHEN 1 THEN 'processed batch ' || s || ' of 100 for customer cust-' || (a % 5000)
         WHEN 2 THEN 'SELECT: ' || (r * 10000)::int || ' row(s) in ' || (r * 300)::int || ' ms'
         WHEN 3 THEN CASE WHEN r < 0.01 THEN 'upstream timeout after 30 s calling payments, retrying' ELSE 'payment ' || md5(a::text || s) || ' settled' END
         WHEN 4 THEN 'wrote ' || (r * 1e6)::int || ' bytes to s3://reports/' || (a % 365) || '/part-' || s || '.csv'
         WHEN 5 THEN 'cache hit ratio ' || round(r::numeric, 3) || ' on shard ' || (a % 16)
         ELSE 'order-' || (a * 100 + s) || ' state changed to shipped by worker-' || (a % 8)
       END,
       NULL,
       -- the run's slot: the attempt's first line, 50 ms before it
       $3::timestamptz - make_interval(secs => ($4::int - a) * 30 * 86400.0 / $4::int)
  FROM generate_series($1::int, $2::int) a, generate_series(1, 100) s,
       LATERAL (SELECT abs(hashint4(a * 101 + s))::float8 / 2147483648.0 AS r) x`;

async function main() {
  const total = Number(process.argv[2] ?? 1_000_000);
  const attempts = Math.ceil(total / 100);
  await withBenchDatabase('logsearch', async (url) => {
    // work_mem as on the worker's log connection (worker/create-worker.ts): the trigram index's merges run in it
    const pool = new pg.Pool({ connectionString: url, max: 2, options: '-c work_mem=64MB' });
    // an idle client cut off when the database is dropped at the end is not this bench's error
    pool.on('error', () => undefined);
    const now = new Date('2026-11-30T00:00:00Z');
    // the weekly partitions of the seeded month, as the retention job creates them ahead
    const setup = createPrismaClient(url, 1);
    await ensureHistoryPartitions(setup, now, { from: new Date(now.getTime() - 31 * 86_400_000) });
    await setup.$disconnect();
    const t0 = performance.now();
    const chunk = 500; // attempts per statement: 50,000 lines
    for (let a = 1; a <= attempts; a += chunk) {
      await pool.query(SEED_SQL, [a, Math.min(attempts, a + chunk - 1), now.toISOString(), attempts]);
      process.stdout.write(`\rseeded ${Math.min(attempts, a + chunk - 1) * 100} lines`);
    }
    const seedMs = performance.now() - t0;
    // What autovacuum does soon after a bulk load: merge the trigram index's pending list and
    // set hint bits / the visibility map. Without it the first search also pays for that.
    const v0 = performance.now();
    await pool.query('VACUUM ANALYZE task_log_lines');
    console.log(`\nVACUUM ANALYZE took ${((performance.now() - v0) / 1000).toFixed(1)} s`);
    const { rows: [size] } = await pool.query(`SELECT count(*)::int AS n,
      (SELECT pg_size_pretty(sum(pg_total_relation_size(relid))) FROM pg_partition_tree('task_log_lines')) AS size,
      -- a partitioned index has no size of its own: its partitions' indexes hold the entries
      (SELECT pg_size_pretty(sum(pg_relation_size(relid))) FROM pg_partition_tree('task_log_lines_plain_trgm_idx')) AS trgm
      FROM task_log_lines`);
    console.log(`\n${size.n} lines seeded in ${(seedMs / 1000).toFixed(1)} s (${Math.round(size.n / (seedMs / 1000))} lines/s, server-side generate_series); table + indexes ${size.size}, trigram index ${size.trgm}`);

    const db = createPrismaClient(url, 2);
    // The client's first query pays its own start-up (connection, query compiler): not the search's.
    await db.$queryRawUnsafe('SELECT 1');
    const day = (d: string) => new Date(`${d}T00:00:00Z`).toISOString();
    // job 17 of the seed's 200 (a job id is a uuid: the search refuses anything else)
    const { rows: [{ id: job17 }] } = await pool.query(`SELECT md5('job' || 17)::uuid::text AS id`);
    const cases: { label: string; query: Record<string, string> }[] = [
      { label: 'rare text, all jobs (one order id)', query: { q: `order-${Math.floor(attempts / 2) * 100 + 6} ` } },
      { label: 'medium text, all jobs (~1 in 700 lines)', query: { q: 'upstream timeout' } },
      { label: 'common text, all jobs (~1 in 7 lines)', query: { q: 'cache hit ratio' } },
      { label: 'absent text, all jobs', query: { q: 'zebra-unicorn-42' } },
      { label: 'medium text, one job', query: { q: 'upstream timeout', jobId: job17 } },
      { label: 'common text, one job', query: { q: 'processed batch', jobId: job17 } },
      { label: 'absent text, one job', query: { q: 'zebra-unicorn-42', jobId: job17 } },
      { label: 'common text, one day', query: { q: 'settled', from: day('2026-11-10'), to: day('2026-11-11') } },
      { label: 'absent text, one day', query: { q: 'zebra-unicorn-42', from: day('2026-11-10'), to: day('2026-11-11') } },
    ];
    let worst = 0;
    for (const c of cases) {
      const times: number[] = [];
      let hits = 0;
      for (let i = 0; i < 3; i++) {
        const s = performance.now();
        const r = await searchTaskLogLines(db, c.query, SYSTEM_ACTOR);
        times.push(performance.now() - s);
        hits = r.lines.length;
      }
      // the very statement the search runs (its first page), explained with the same parameters
      const statement = searchLinesStatement({ ...parseOrThrow(SearchTaskLogLinesQuery, c.query), limit: 101, after: null });
      const plan = await pool.query(`EXPLAIN ${statement.sql}`, statement.params);
      // the line table's scans, one entry per kind with the number of weekly partitions it
      // covers (the joins to tasks and runs fetch at most 101 rows by key and are left out)
      const scans = new Map<string, number>();
      for (const r of plan.rows as { 'QUERY PLAN': string }[]) {
        const l = r['QUERY PLAN'];
        if (!/Scan/.test(l) || !/task_log_lines/.test(l)) continue;
        const kind = l.trim().replace(/\s+\(cost.*$/, '').replace(/^->\s*/, '').replace(/task_log_lines_(w\d+|default)(_\w+)?/g, 'task_log_lines_*$2').replace(/ task_log_lines_\d+$/, '');
        scans.set(kind, (scans.get(kind) ?? 0) + 1);
      }
      const nodes = [...scans].map(([kind, n]) => `${kind} ×${n}`);
      worst = Math.max(worst, Math.min(...times));
      console.log(`${c.label.padEnd(42)} ${String(hits).padStart(3)} hits  first ${times[0]!.toFixed(1).padStart(7)} ms  best ${Math.min(...times).toFixed(1).padStart(7)} ms  [${nodes.join(' / ')}]`);
    }
    console.log(`slowest search (best of 3): ${worst.toFixed(1)} ms over ${size.n} lines`);
    await db.$disconnect();
    await pool.end();
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
