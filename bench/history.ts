/**
 * History benchmark (not a test): fills a throwaway database with HISTORY_RUNS runs (default
 * 10,000,000) spread evenly over HISTORY_DAYS days (default 90) ending now, each with one task,
 * its task_logs rows (running, then the outcome) and, for one task in HISTORY_LINES_EVERY,
 * HISTORY_LINES task log lines; then times the pages and routes operators use through the
 * same domain functions the console and the REST API call:
 *
 * - jobs list (lib/jobs listJobs, first page; and sorted by next fire)
 * - runs list: first page, a page 1,000 deep by keyset cursor, filtered by job, by status,
 *   by job + status + a 7-day range (lib/runs listRuns)
 * - a run page (lib/runs getRun)
 * - daily stats for 90 days (lib/stats getDailyStats + handlerTotals, as GET /stats/daily)
 * - the overview (lib/stats getOverview), with HISTORY_PAUSED paused jobs (default 1,000: operator-paused
 *   cron and interval jobs, and jobs whose schedule ended — a `once` job that fired, a cron year that
 *   has passed — as the tick leaves them), whose schedules the overview reads to count the ended ones
 * - the hourly stats series of every job, 48 and 168 hours (lib/stats getStatsSeries, as
 *   GET /stats/series?granularity=hour)
 * - the runs list filtered by trigger (a rare one, manual; one no run has, backfill) and searched by a
 *   short word after punctuation (`-b`, `-5`: the shortest text lib/api/like.ts lets through)
 *
 * and the engine's hot paths, claimTasks and completeTask (one task per call), on the full
 * database, on an empty copy of it taken before seeding (same jobs and partitions) and on a
 * third copy seeded with the current week's days only (the week every claim and completion
 * writes into, without the older weeks of history), taking turns call by call so the machine's
 * load weighs on all alike, with the ratios: full ÷ empty is what history and this week's rows
 * cost together, full ÷ this week what the older weeks cost. When the server loads
 * pg_stat_statements, the two statements' server execution time and buffers per call on each
 * database are printed too: the client's timings also hold the round trip and the commit's WAL
 * flush, which do not depend on the data and jitter from call to call. Optionally (HISTORY_RETENTION=1)
 * one call of the retention system job (lib/system-jobs purgeOldRuns, 30 days): the weeks it
 * drops whole, what it deletes row by row, its time and the dead tuples it leaves. The seeded
 * days get their weekly partitions first (lib/system-jobs/history-partitions.ts), as the
 * retention job creates them ahead on a live installation.
 *
 * Seeding is server-side (INSERT … SELECT generate_series), one statement per day, in one
 * CTE that inserts the day's runs, tasks, task_logs and task_log_lines together, with every
 * index in place (as a live installation writes them); then VACUUM ANALYZE, as autovacuum
 * would after such a load. The handler_stats_daily rows come from lib/stats rebuildStats.
 *
 *   HISTORY_RUNS=200000 node --import tsx bench/history.ts
 *
 * Environment: HISTORY_RUNS (10000000), HISTORY_DAYS (90), HISTORY_JOBS (200),
 * HISTORY_LINES_EVERY (10), HISTORY_LINES (5), HISTORY_PAUSED (1000), HISTORY_REPEAT (5 timed calls per page),
 * HISTORY_HOT (200 claim + complete rounds on each database),
 * HISTORY_RETENTION (0/1), HISTORY_REUSE (the URL of a database a killed run seeded: measure it
 * again without seeding), HISTORY_KEEP (1: leave the databases, for HISTORY_REUSE). Database: DATABASE_URL when set (a throwaway database is created
 * on its server), else an embedded PostgreSQL (tests/helpers/test-server.ts).
 */
import os from 'node:os';
import pg from 'pg';
import { withBenchDatabase, quantile } from './bench-db.ts';
import { SYSTEM_ACTOR } from '../lib/auth/actor.ts';
import { createPrismaClient, type PrismaClient } from '../lib/db.ts';
import { encodeCursor } from '../lib/api/cursor.ts';
import { createJob, insertNewJobs, prepareNewJob } from '../lib/jobs/create-job.ts';
import { getStatsSeries } from '../lib/stats/get-stats-series.ts';
import { listJobs } from '../lib/jobs/list-jobs.ts';
import { getRun, listRuns } from '../lib/runs/index.ts';
import { getDailyStats, handlerTotals, lastDaysRange } from '../lib/stats/get-daily-stats.ts';
import { getOverview } from '../lib/stats/get-overview.ts';
import { rebuildStats } from '../lib/stats/rebuild-stats.ts';
import { claimTasks, completeTask, triggerRun } from '../lib/engine/index.ts';
import { ensureHistoryPartitions, listHistoryWeeks, weekStart } from '../lib/system-jobs/history-partitions.ts';
import { purgeOldRuns } from '../lib/system-jobs/retention.ts';
import { getUpcomingFires } from '../lib/stats/upcoming-fires.ts';
import { withDatabase } from '../lib/infra/migrate.ts';
import { createSqlPool, HOT_PATH_SETTINGS, type SqlPool } from '../lib/sql-pool.ts';

const envInt = (name: string, dflt: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : dflt;
};
const RUNS = envInt('HISTORY_RUNS', 10_000_000);
const DAYS = envInt('HISTORY_DAYS', 90);
const JOBS = envInt('HISTORY_JOBS', 200);
const LINES_EVERY = envInt('HISTORY_LINES_EVERY', 10);
const LINES = envInt('HISTORY_LINES', 5);
const PAUSED = envInt('HISTORY_PAUSED', 1000);
const REPEAT = envInt('HISTORY_REPEAT', 5);
const RETENTION = process.env.HISTORY_RETENTION === '1';
/**
 * HISTORY_REUSE: the URL of a database a killed run of this script seeded and left behind (with
 * its `<name>_empty` and `<name>_week` copies beside it): measure it again without seeding, and
 * leave all three.
 */
const REUSE = process.env.HISTORY_REUSE;
/** HISTORY_KEEP=1: leave the seeded database and its two copies, for HISTORY_REUSE. */
const KEEP = process.env.HISTORY_KEEP === '1';
const TARGET_MS = 300;
const HANDLERS = ['builtin.noop', 'builtin.echo', 'builtin.sleep'];

/**
 * One day of history: $1 day start, $2 runs that day, $3 seconds between runs, $4 job ids
 * (text[]), $5 job keys, $6 handlers (by job), $7 one task in N writes log lines, $8 lines per
 * such task, $9 the run number of the day's first run (spreads jobs and outcomes).
 * Outcomes: 94 % success, 3 % failed, 1 % timeout, 1 % cancelled, 1 % skipped (no task);
 * 2 % of the runs are manual (the rest fire on the schedule, so runs_schedule_fire_uniq sees
 * one row per job and instant, as the tick writes it).
 */
const SEED_DAY_SQL = `
WITH src AS (
  SELECT g, n, j, r,
         $1::timestamptz + make_interval(secs => g * $3::float8) AS at,
         CASE WHEN r < 0.94 THEN 'success' WHEN r < 0.97 THEN 'failed' WHEN r < 0.98 THEN 'timeout'
              WHEN r < 0.99 THEN 'cancelled' ELSE 'skipped' END AS status,
         (50 + (hashint8(n * 7) & 4095))::int AS dur
    FROM generate_series(0, $2::int - 1) g,
         LATERAL (SELECT $9::bigint + g AS n) nn,
         LATERAL (SELECT (($9::bigint + g) % array_length($4::text[], 1))::int + 1 AS j) jj,
         LATERAL (SELECT (hashint8($9::bigint + g) & 2147483647)::float8 / 2147483648.0 AS r) rr
), ins_runs AS (
  INSERT INTO runs (job_id, job_key, job_version, trigger, triggered_by, scheduled_for, status, reason,
                    started_at, finished_at, duration_ms, error, trace_id, created_at, updated_at)
  SELECT ($4::text[])[j], ($5::text[])[j], 1,
         (CASE WHEN n % 50 = 0 THEN 'manual' ELSE 'schedule' END)::run_trigger,
         CASE WHEN n % 50 = 0 THEN 'user:bench' ELSE 'scheduler' END,
         at, status::run_status,
         CASE WHEN status = 'skipped' THEN 'discard_later: previous run still running' END,
         CASE WHEN status = 'skipped' THEN NULL ELSE at + interval '20 ms' END,
         at + make_interval(secs => (dur + 20) / 1000.0),
         CASE WHEN status = 'skipped' THEN 0 ELSE dur + 20 END,
         CASE status WHEN 'failed' THEN 'HTTP 502 from upstream billing-' || (n % 97)
                     WHEN 'timeout' THEN 'task main timed out after 300 s' END,
         md5('trace' || n), at, at + make_interval(secs => (dur + 20) / 1000.0)
    FROM src
  RETURNING id, job_id, scheduled_for, status, started_at, finished_at, error
), ins_tasks AS (
  INSERT INTO tasks (run_id, job_id, step_key, handler, status, attempt, max_retries, timeout_seconds,
                     schedule_at, scheduled_for, started_at, completed_at, timed_out_at, error, version, created_at, updated_at)
  SELECT r.id, r.job_id, 'main', ($6::text[])[array_position($4::text[], r.job_id)],
         r.status::text::task_status, 1, 0, 300, r.scheduled_for, r.scheduled_for, r.started_at, r.finished_at,
         CASE WHEN r.status = 'timeout' THEN r.finished_at END, r.error, 3, r.scheduled_for, r.finished_at
    FROM ins_runs r
   WHERE r.status <> 'skipped'
  RETURNING id, run_id, scheduled_for, job_id, status, started_at, completed_at
), ins_logs AS (
  INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, node_id, created_at)
  SELECT t.id, t.run_id, t.scheduled_for, 1, x.from_status::task_status, x.to_status::task_status, x.message, x.detail, 'bench-node', x.at
    FROM ins_tasks t,
         LATERAL (VALUES
           ('pending', 'running', 'claimed', NULL::jsonb, t.started_at),
           ('running', t.status::text, 'finished',
            jsonb_build_object('durationMs', (extract(epoch FROM t.completed_at - t.started_at) * 1000)::int), t.completed_at)
         ) x(from_status, to_status, message, detail, at)
  RETURNING 1
), ins_lines AS (
  INSERT INTO task_log_lines (task_id, attempt, seq, time, run_id, scheduled_for, job_id, level, stream, text)
  SELECT t.id, 1, s, t.started_at + make_interval(secs => s * 0.001), t.run_id, t.scheduled_for, t.job_id,
         (CASE WHEN t.status = 'success' THEN 'info' ELSE 'error' END)::task_log_level, 'log'::task_log_stream,
         CASE s % 3 WHEN 0 THEN 'processed batch ' || s || ' for customer cust-' || ((hashtext(t.id::text) & 2147483647) % 5000)
                    WHEN 1 THEN 'GET /api/orders/' || (hashtext(t.id::text) & 2147483647) || ' answered 200'
                    ELSE 'wrote ' || s * 1000 || ' bytes' END
    FROM ins_tasks t, generate_series(1, $8::int) s
   WHERE (hashtext(t.id::text) & 2147483647) % $7::int = 0
  RETURNING 1
)
SELECT (SELECT count(*) FROM ins_runs)::int AS runs, (SELECT count(*) FROM ins_tasks)::int AS tasks,
       (SELECT count(*) FROM ins_logs)::int AS logs, (SELECT count(*) FROM ins_lines)::int AS lines`;

interface Timing {
  label: string;
  firstMs: number;
  medianMs: number;
  maxMs: number;
  note: string;
}

/** Times `fn` once cold, then REPEAT times; the note is what the call returned (rows, pages). */
async function time(label: string, fn: () => Promise<string>): Promise<Timing> {
  let t = performance.now();
  let note = await fn();
  const firstMs = performance.now() - t;
  const runs: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    t = performance.now();
    note = await fn();
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  const out = { label, firstMs, medianMs: quantile(runs, 0.5), maxMs: runs[runs.length - 1]!, note };
  console.log(`  ${label}: median ${out.medianMs.toFixed(1)} ms (first ${firstMs.toFixed(1)} ms) — ${note}`);
  return out;
}

/**
 * The engine's hot paths, one task per call, `n` times on each database, as a worker runs them
 * (its hot-path pool, lib/sql-pool.ts; the completion carrying the keys its claim returned): a
 * one-step run of job `jobId` is triggered (triggerRun on the Prisma client; untimed — the
 * job's block strategy lets one run at a time), its task claimed (claimTasks, limit 1) and
 * completed (completeTask). The two databases take turns call by call (the order swapped each
 * round). Returns the median milliseconds of a claim and of a completion on each.
 */
type HotDatabase = 'empty' | 'week' | 'full';
async function hotPaths(dbs: Record<HotDatabase, PrismaClient>, hot: Record<HotDatabase, SqlPool>, jobId: string, n: number) {
  const names: HotDatabase[] = ['empty', 'week', 'full'];
  const ms = Object.fromEntries(names.map((k) => [k, { claim: [] as number[], complete: [] as number[] }])) as Record<HotDatabase, { claim: number[]; complete: number[] }>;
  for (let i = 0; i < n; i++) {
    // each database goes first, second and last equally often
    for (const which of names.map((_, k) => names[(k + i) % names.length]!)) {
      await triggerRun(dbs[which], { jobId, trigger: 'api', triggeredBy: 'bench', scheduledFor: new Date() });
      const db = hot[which];
      let t = performance.now();
      const [task] = await claimTasks(db, { nodeId: 'bench-hot', handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 1, leaseSeconds: 60 });
      ms[which].claim.push(performance.now() - t);
      if (!task) throw new Error('hot path: nothing to claim');
      t = performance.now();
      await completeTask(db, {
        taskId: task.id, runId: task.runId, jobId: task.jobId, scheduledFor: task.scheduledFor,
        attempt: task.attempt, nodeId: 'bench-hot', outcome: 'success', onlyTask: task.onlyTask,
      });
      ms[which].complete.push(performance.now() - t);
    }
  }
  const med = (a: number[]) => quantile(a.sort((x, y) => x - y), 0.5);
  return Object.fromEntries(names.map((k) => [k, { claimMs: med(ms[k].claim), completeMs: med(ms[k].complete) }])) as Record<HotDatabase, { claimMs: number; completeMs: number }>;
}

/** Server-side figures of one statement on one database: mean execution ms and shared buffers touched per call. */
interface ServerFigures { calls: number; execMs: number; buffers: number }

/**
 * The hot paths' own statements as the server counted them (pg_stat_statements, the claim's and
 * the one-step completion's prepared statements, lib/engine/sql/claim-tasks.ts and
 * complete-only-tasks.ts) since `resetServerFigures`, per database: their execution time without
 * the round trip and the commit's WAL flush, which the client's timings include and which do not
 * depend on the data. Null when the server does not load pg_stat_statements
 * (shared_preload_libraries; PostgreSQL docs, "pg_stat_statements").
 */
async function serverFigures(pool: pg.Pool, names: Record<HotDatabase, string>): Promise<Record<HotDatabase, { claim?: ServerFigures; complete?: ServerFigures }> | null> {
  try {
    const { rows } = await pool.query<{ db: string; label: string; calls: number; exec_ms: number; buffers: number }>(
      `SELECT d.datname AS db, substring(s.query FROM '^/\\* tickflow:([a-z-]+) \\*/') AS label, sum(s.calls)::int AS calls,
              sum(s.total_exec_time) / sum(s.calls) AS exec_ms, sum(s.shared_blks_hit + s.shared_blks_read)::float8 / sum(s.calls) AS buffers
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = ANY($1::text[])
          AND (s.query LIKE '/* tickflow:claim-tasks */%' OR s.query LIKE '/* tickflow:complete-only-tasks */%')
        GROUP BY 1, 2`, [Object.values(names)]);
    const out = Object.fromEntries(Object.keys(names).map((k) => [k, {}])) as Record<HotDatabase, { claim?: ServerFigures; complete?: ServerFigures }>;
    for (const r of rows) {
      const which = (Object.keys(names) as HotDatabase[]).find((k) => names[k] === r.db);
      if (!which) continue;
      out[which][r.label === 'claim-tasks' ? 'claim' : 'complete'] = { calls: r.calls, execMs: r.exec_ms, buffers: r.buffers };
    }
    return out;
  } catch {
    return null;
  }
}

/** Starts pg_stat_statements' counts afresh (false when the server does not load it). */
async function resetServerFigures(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await pool.query('SELECT pg_stat_statements_reset()');
    return true;
  } catch {
    return false;
  }
}

/** The seeding and stats-rebuild statements take minutes at 10 M runs: no query timeout on that client (lib/db-timeouts.ts). */
const SEEDING = { queryTimeoutMs: 0 };

const fmt = (n: number) => n.toLocaleString('en-US');

async function main() {
  console.log(`history bench: ${fmt(RUNS)} runs over ${DAYS} days, ${JOBS} jobs, log lines for 1 task in ${LINES_EVERY} (${LINES} each)`);
  const onDatabase = REUSE ? (fn: (url: string) => Promise<void>) => fn(REUSE) : (fn: (url: string) => Promise<void>) => withBenchDatabase('history', fn, { keep: KEEP });
  await onDatabase(async (url) => {
    let db = createPrismaClient(url, 4, SEEDING);
    const now = new Date();
    const start = new Date(Math.floor(now.getTime() / 86_400_000) * 86_400_000 - (DAYS - 1) * 86_400_000);

    // Jobs through the domain function, as the console creates them; one extra job for the hot paths.
    const jobs: { id: string; key: string; handler: string }[] = REUSE
      ? await db.$queryRawUnsafe(`SELECT j.id::text, j.key, s.handler FROM jobs j JOIN job_steps s ON s.job_id = j.id
                                   WHERE j.key LIKE 'history.0%' ORDER BY j.key`)
      : [];
    for (let i = 0; i < (REUSE ? 0 : JOBS); i++) {
      const handler = HANDLERS[i % HANDLERS.length]!;
      const job = await createJob(db, {
        key: `history.${String(i).padStart(4, '0')}`, name: `History job ${i}`,
        schedule: { kind: 'cron', cron: `${i % 60} * * * *`, timezone: 'UTC' }, handler,
      }, SYSTEM_ACTOR, start);
      jobs.push({ id: job.id, key: job.key, handler });
    }
    const hot = REUSE
      ? (await db.job.findFirstOrThrow({ where: { key: 'history.hot' }, select: { id: true } }))
      : await createJob(db, { key: 'history.hot', name: 'Hot path', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, SYSTEM_ACTOR, start);
    // Paused jobs, read by the overview: a quarter each operator-paused cron and interval jobs, `once` jobs that
    // fired and cron jobs whose year field has passed (both paused by the tick: their schedule ended). Created
    // once (also on a reused database seeded before they were part of the bench).
    if ((await db.job.count({ where: { key: { startsWith: 'history.paused.' } } })) === 0) {
      const kinds = [
        { schedule: { kind: 'cron', cron: '7 * * * *', timezone: 'Europe/Paris' } },
        { schedule: { kind: 'interval', intervalSeconds: 300 } },
        { schedule: { kind: 'once', runAt: new Date(start.getTime() + 86_400_000).toISOString() } },
        { schedule: { kind: 'cron', cron: `0 0 12 * * * ${now.getUTCFullYear()}-${now.getUTCFullYear() + 1}`, timezone: 'UTC' } },
      ];
      const made = Array.from({ length: PAUSED }, (_, i) => prepareNewJob({
        key: `history.paused.${String(i).padStart(5, '0')}`, name: `Paused job ${i}`, handler: 'builtin.noop', ...kinds[i % kinds.length],
      }, SYSTEM_ACTOR, start));
      await insertNewJobs(db, made, SYSTEM_ACTOR, start);
      await db.$executeRawUnsafe(`UPDATE jobs SET status = 'paused' WHERE key LIKE 'history.paused.%'`);
      // the year field run out: 7 fields, the last one a year before now
      await db.$executeRawUnsafe(`UPDATE jobs SET cron_expression = '0 0 12 * * * ${now.getUTCFullYear() - 1}' WHERE key LIKE 'history.paused.%' AND cron_expression LIKE '0 0 12 %'`);
    }
    // The weekly partitions of the seeded days, as the retention job has created them on a live
    // installation (before the copy: the empty database has the same partitions).
    await ensureHistoryPartitions(db, now, { from: start });
    const weeks = (await listHistoryWeeks(db)).length;
    // The empty database for the hot paths: a copy of this one with the same jobs and no history.
    await db.$disconnect();
    const name = new URL(url).pathname.slice(1);
    const emptyName = `${name}_empty`;
    const weekName = `${name}_week`;
    const admin = new pg.Client({ connectionString: withDatabase(url, 'postgres') });
    await admin.connect();
    if (!REUSE) {
      await admin.query(`CREATE DATABASE "${emptyName}" TEMPLATE "${name}"`);
      await admin.query(`CREATE DATABASE "${weekName}" TEMPLATE "${name}"`);
    }
    const emptyDb = createPrismaClient(withDatabase(url, emptyName), 2);
    const weekDb = createPrismaClient(withDatabase(url, weekName), 2);
    db = createPrismaClient(url, 4, SEEDING);
    const pool = new pg.Pool({ connectionString: url, max: 2, options: '-c work_mem=64MB' });
    const weekPool = new pg.Pool({ connectionString: withDatabase(url, weekName), max: 1, options: '-c work_mem=64MB' });
    // the days of the week the hot paths write into (lib/system-jobs/history-partitions.ts weekStart)
    const thisWeek = weekStart(now).getTime();
    try {

      // Seed day by day, ending before `now` (the last day is today, up to now).
      const perDay = Math.ceil(RUNS / DAYS);
      const t0 = performance.now();
      let seeded = { runs: 0, tasks: 0, logs: 0, lines: 0 };
      if (REUSE) {
        const { rows: [c] } = await pool.query(`SELECT (SELECT count(*) FROM runs)::int AS runs, (SELECT count(*) FROM tasks)::int AS tasks,
            (SELECT count(*) FROM task_logs)::int AS logs, (SELECT count(*) FROM task_log_lines)::int AS lines`);
        seeded = c;
      }
      for (let d = 0; d < (REUSE ? 0 : DAYS); d++) {
        const dayStart = new Date(start.getTime() + d * 86_400_000);
        const count = Math.min(perDay, RUNS - d * perDay);
        if (count <= 0) break;
        const span = Math.min(86_400_000, now.getTime() - 60_000 - dayStart.getTime()); // today: up to a minute ago
        const dayParams = [
          dayStart.toISOString(), count, span / 1000 / count, jobs.map((j) => j.id), jobs.map((j) => j.key),
          jobs.map((j) => j.handler), LINES_EVERY, LINES, d * perDay,
        ];
        const { rows: [r] } = await pool.query(SEED_DAY_SQL, dayParams);
        // the same rows (the seed is deterministic) in the copy that holds this week only
        if (dayStart.getTime() >= thisWeek) await weekPool.query(SEED_DAY_SQL, dayParams);
        seeded = { runs: seeded.runs + r.runs, tasks: seeded.tasks + r.tasks, logs: seeded.logs + r.logs, lines: seeded.lines + r.lines };
        const s = (performance.now() - t0) / 1000;
        process.stdout.write(`\rday ${d + 1}/${DAYS}: ${fmt(seeded.runs)} runs, ${fmt(seeded.tasks)} tasks, ${fmt(seeded.logs)} task_logs, ${fmt(seeded.lines)} log lines; ${s.toFixed(0)} s (${fmt(Math.round(seeded.runs / s))} runs/s)   `);
      }
      const seedS = (performance.now() - t0) / 1000;
      const seededIn = REUSE ? 'seeded by an earlier run (HISTORY_REUSE)' : `seeded in ${seedS.toFixed(0)} s`;
      // the last run as insert-runs.ts writes it: the run created last (lib/engine/sql/last-runs.ts reads it per page)
      await pool.query(`UPDATE jobs j SET total_runs = c.n, success_runs = c.ok, last_run_at = l.created_at,
                               last_run_id = l.id, last_run_scheduled_for = l.scheduled_for
                          FROM (SELECT job_id, count(*)::int AS n, count(*) FILTER (WHERE status = 'success')::int AS ok
                                  FROM runs GROUP BY job_id) c,
                               (SELECT DISTINCT ON (job_id) job_id, id, scheduled_for, created_at FROM runs
                                 ORDER BY job_id, created_at DESC, scheduled_for DESC, id DESC) l
                         WHERE j.id::text = c.job_id AND l.job_id = c.job_id`);
      const v0 = performance.now();
      await pool.query('VACUUM ANALYZE');
      if (!REUSE) await weekPool.query('VACUUM ANALYZE');
      const vacuumS = (performance.now() - v0) / 1000;
      const r0 = performance.now();
      const range = lastDaysRange(DAYS, 'UTC', now);
      await rebuildStats(db, { ...range, apply: true }, now);
      const statsS = (performance.now() - r0) / 1000;
      // a partitioned table's own size is 0: its partitions hold the rows
      const { rows: sizes } = await pool.query(`SELECT p.name, pg_size_pretty(sum(pg_total_relation_size(t.relid))) AS size
          FROM unnest(ARRAY['runs', 'tasks', 'task_logs', 'task_log_lines', 'task_dependencies']) AS p(name),
               LATERAL pg_partition_tree(p.name::regclass) t
         WHERE t.isleaf GROUP BY p.name ORDER BY p.name`);
      const { rows: [dbSize] } = await pool.query(`SELECT pg_size_pretty(pg_database_size(current_database())) AS size`);
      console.log(`\n${seededIn}; VACUUM ANALYZE ${vacuumS.toFixed(0)} s; rebuildStats over ${DAYS} days ${statsS.toFixed(0)} s; database ${dbSize.size} (${sizes.map((s) => `${s.name} ${s.size}`).join(', ')})`);

      // Fixtures for the pages: a job, a run in the middle of the history, the cursor of page 1,000.
      const job = jobs[7 % jobs.length]!;
      const { rows: [mid] } = await pool.query(`SELECT id FROM runs WHERE scheduled_for < $1 AND status = 'failed' ORDER BY scheduled_for DESC LIMIT 1`,
        [new Date(start.getTime() + (DAYS / 2) * 86_400_000)]);
      const { rows: [deep] } = await pool.query(`SELECT id, scheduled_for FROM runs ORDER BY scheduled_for DESC, id DESC OFFSET $1 LIMIT 1`, [50 * 999 - 1]);
      const deepCursor = deep ? encodeCursor({ s: 'runs', v: deep.scheduled_for.toISOString(), id: deep.id }) : undefined;
      const weekAgo = new Date(now.getTime() - 7 * 86_400_000).toISOString();
      const page = (p: { items: unknown[]; total: number; totalCapped: boolean }) => `${p.items.length} rows, total ${fmt(p.total)}${p.totalCapped ? '+' : ''}`;

      console.log('\npages (in-process domain functions, server time):');
      const results: Timing[] = [];
      results.push(await time('jobs list, first page', async () => `${(await listJobs(db, {}, SYSTEM_ACTOR)).items.length} jobs`));
      // Sorted by next fire, the list also reads every job's run created ahead (docs/on-time.md "Next fire").
      results.push(await time('jobs list, sorted by next fire', async () => `${(await listJobs(db, { sort: 'next_run_at' }, SYSTEM_ACTOR)).items.length} jobs`));
      results.push(await time('runs list, first page', async () => page(await listRuns(db, {}, SYSTEM_ACTOR))));
      if (deepCursor) results.push(await time('runs list, page 1,000 (keyset)', async () => page(await listRuns(db, { cursor: deepCursor }, SYSTEM_ACTOR))));
      results.push(await time('runs of one job, first page', async () => page(await listRuns(db, { jobId: job.id }, SYSTEM_ACTOR))));
      results.push(await time('failed runs, all jobs', async () => page(await listRuns(db, { status: 'failed' }, SYSTEM_ACTOR))));
      results.push(await time('one job, failed, last 7 days', async () => page(await listRuns(db, { jobId: job.id, status: 'failed', from: weekAgo, to: now.toISOString() }, SYSTEM_ACTOR))));
      results.push(await time('runs search by error text', async () => page(await listRuns(db, { q: 'billing-42' }, SYSTEM_ACTOR))));
      if (mid) results.push(await time('run page', async () => `${(await getRun(db, mid.id, SYSTEM_ACTOR)).tasks.length} task(s)`));
      results.push(await time(`stats, ${DAYS} days`, async () => {
        const { days } = await getDailyStats(db, range);
        return `${days.length} day rows, ${handlerTotals(days).length} handlers`;
      }));
      results.push(await time('overview', async () => {
        const o = await getOverview(db, new Date());
        return `${o.runs24h.total} runs in 24 h; ${o.jobs.paused} paused, ${o.jobs.scheduleEnded} schedule ended`;
      }));

      results.push(await time('stats series, hourly, all jobs, 48 h', async () => `${(await getStatsSeries(db, { granularity: 'hour', hours: 48 }, SYSTEM_ACTOR)).daily.length} hours`));
      results.push(await time('stats series, hourly, all jobs, 168 h', async () => `${(await getStatsSeries(db, { granularity: 'hour', hours: 168 }, SYSTEM_ACTOR)).daily.length} hours`));
      results.push(await time('runs list, trigger manual', async () => page(await listRuns(db, { trigger: 'manual' }, SYSTEM_ACTOR))));
      results.push(await time('runs list, trigger backfill (none)', async () => page(await listRuns(db, { trigger: 'backfill' }, SYSTEM_ACTOR))));
      results.push(await time('runs search, short word (-5)', async () => page(await listRuns(db, { q: '-5' }, SYSTEM_ACTOR))));
      results.push(await time('runs search, short word, no match (-b)', async () => page(await listRuns(db, { q: '-b' }, SYSTEM_ACTOR))));
      results.push(await time('of the overview: next 24 h of fires (reads jobs only)', async () => `${(await getUpcomingFires(db, new Date())).length} jobs`));

      const hotRuns = envInt('HISTORY_HOT', 200);
      // Both databases analysed, as autovacuum keeps a live one (the full one was, after seeding):
      // on a server with autovacuum off the empty copy would otherwise be planned with no statistics.
      await emptyDb.$executeRawUnsafe('ANALYZE');
      const { rows: [weekRuns] } = await weekPool.query(`SELECT count(*)::int AS n FROM runs`);
      const hotPools: Record<HotDatabase, SqlPool> = {
        empty: createSqlPool(withDatabase(url, emptyName), 1, { settings: HOT_PATH_SETTINGS }),
        week: createSqlPool(withDatabase(url, weekName), 1, { settings: HOT_PATH_SETTINGS }),
        full: createSqlPool(url, 1, { settings: HOT_PATH_SETTINGS }),
      };
      const counted = await resetServerFigures(pool);
      const { empty, week, full } = await hotPaths({ empty: emptyDb, week: weekDb, full: db }, hotPools, hot.id, hotRuns);
      const server = counted ? await serverFigures(pool, { empty: emptyName, week: weekName, full: name }) : null;
      await Promise.all(Object.values(hotPools).map((p) => p.$disconnect()));
      const ratio = { claim: full.claimMs / empty.claimMs, complete: full.completeMs / empty.completeMs };
      const olderWeeks = { claim: full.claimMs / week.claimMs, complete: full.completeMs / week.completeMs };

      let retention = '';
      if (RETENTION) {
        const before = await pool.query(`SELECT count(*)::int AS n FROM runs WHERE scheduled_for < $1`, [new Date(now.getTime() - 30 * 86_400_000)]);
        const p0 = performance.now();
        const r = await purgeOldRuns(db, { olderThanDays: 30, maxBatches: 1_000_000 }, now);
        const ms = performance.now() - p0;
        await new Promise((resolve) => setTimeout(resolve, 1500)); // backends report their statistics to pg_stat_* within a second
        // every partition of the history tables, summed per table
        const { rows: dead } = await pool.query(`SELECT p.relname, sum(s.n_dead_tup)::bigint AS dead
            FROM pg_stat_user_tables s JOIN pg_inherits i ON i.inhrelid = s.relid JOIN pg_class p ON p.oid = i.inhparent
           WHERE p.relname IN ('runs', 'tasks', 'task_logs', 'task_log_lines') GROUP BY p.relname ORDER BY p.relname`);
        const after = await pool.query(`SELECT count(*)::int AS n FROM runs WHERE scheduled_for < $1`, [new Date(now.getTime() - 30 * 86_400_000)]);
        retention = `retention (30 days, one call of purgeOldRuns, ${(ms / 1000).toFixed(1)} s): dropped ${r.droppedWeeks.length} whole week(s) ` +
          `(${r.droppedWeeks.join(', ') || 'none'}; ≈ ${fmt(r.droppedRunsEstimate)} runs), then deleted row by row ${fmt(r.runs)} runs, ${fmt(r.tasks)} tasks, ` +
          `${fmt(r.taskLogs)} task_logs, ${fmt(r.taskLogLines)} log lines (the week that straddles the cutoff); ${fmt(before.rows[0].n)} runs were older ` +
          `than the cutoff, ${fmt(after.rows[0].n)} are left; busy weeks: ${r.busyWeeks.length}; dead tuples left: ${dead.map((d) => `${d.relname} ${fmt(Number(d.dead))}`).join(', ')}`;
      }

      const cpu = os.cpus();
      const { rows: [ver] } = await pool.query(`SHOW server_version`);
      console.log(`\n${new Date().toISOString().slice(0, 10)}, ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, PostgreSQL ${ver.server_version}`);
      console.log(`${fmt(seeded.runs)} runs, ${fmt(seeded.tasks)} tasks, ${fmt(seeded.logs)} task_logs, ${fmt(seeded.lines)} task log lines over ${DAYS} days in ${weeks} weekly partitions; database ${dbSize.size}; ${seededIn}`);
      console.log(`\n| page / route | median ms | first ms | max ms | ≤ ${TARGET_MS} ms | result |`);
      console.log('|---|---:|---:|---:|:---:|---|');
      for (const r of results) console.log(`| ${r.label} | ${r.medianMs.toFixed(1)} | ${r.firstMs.toFixed(1)} | ${r.maxMs.toFixed(1)} | ${r.maxMs <= TARGET_MS ? 'yes' : 'NO'} | ${r.note} |`);
      const weekNote = `this week only (${fmt(weekRuns.n)} runs)`;
      console.log(`| claimTasks (1 task), median of ${hotRuns} | ${full.claimMs.toFixed(2)} | | | | empty database ${empty.claimMs.toFixed(2)} ms, ratio full ÷ empty ${ratio.claim.toFixed(2)}; ${weekNote} ${week.claimMs.toFixed(2)} ms, ratio full ÷ this week ${olderWeeks.claim.toFixed(2)} |`);
      console.log(`| completeTask, median of ${hotRuns} | ${full.completeMs.toFixed(2)} | | | | empty database ${empty.completeMs.toFixed(2)} ms, ratio full ÷ empty ${ratio.complete.toFixed(2)}; ${weekNote} ${week.completeMs.toFixed(2)} ms, ratio full ÷ this week ${olderWeeks.complete.toFixed(2)} |`);
      if (server) {
        const line = (label: string, part: 'claim' | 'complete') => {
          const f = (which: HotDatabase) => {
            const x = server[which][part];
            return x ? `${x.execMs.toFixed(3)} ms, ${x.buffers.toFixed(1)} buffers (${x.calls} calls)` : 'not counted';
          };
          const ratioOf = (a?: ServerFigures, b?: ServerFigures) => (a && b ? (a.execMs / b.execMs).toFixed(2) : '–');
          return `${label}: full ${f('full')}; empty ${f('empty')}; this week only ${f('week')}; ratio full ÷ empty ${ratioOf(server.full[part], server.empty[part])}, full ÷ this week ${ratioOf(server.full[part], server.week[part])}`;
        };
        console.log(`\nserver execution time per call (pg_stat_statements; without the round trip and the commit's WAL flush):`);
        console.log(`  ${line('claim statement', 'claim')}`);
        console.log(`  ${line('completion statement', 'complete')}`);
      } else {
        console.log(`\nserver execution time per call: not measured (the server does not load pg_stat_statements)`);
      }
      if (retention) console.log(`\n${retention}`);
    } finally {
      await pool.end();
      await weekPool.end();
      await db.$disconnect();
      await emptyDb.$disconnect();
      await weekDb.$disconnect();
      if (!REUSE && !KEEP) {
        await admin.query(`DROP DATABASE IF EXISTS "${emptyName}" WITH (FORCE)`).catch(() => undefined);
        await admin.query(`DROP DATABASE IF EXISTS "${weekName}" WITH (FORCE)`).catch(() => undefined);
      }
      await admin.end();
    }
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
