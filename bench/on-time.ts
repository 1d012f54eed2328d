/**
 * Fire precision benchmark (not a test): J jobs on `*\/5 * * * * *` (every 5 s), two real
 * worker processes (the compiled worker, as `npm run worker` runs it; default
 * configuration: look-ahead, NOTIFY wake-ups, concurrency BENCH_WORKER_CONCURRENCY,
 * default 64) for D seconds. Afterwards, over the slots that fell
 * inside the measured window (both workers up): scheduled start = task started_at −
 * runs.scheduled_for (p50/p99/max), runs created ahead of their slot, missed slots (a job
 * with no run for a slot), doubled slots (two runs of one job for one slot).
 *
 *   node --import tsx bench/on-time.ts [jobs=1000] [seconds=120]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { benchWorkerArgs, quantile, withBenchDatabase } from './bench-db.ts';

export interface OnTimeResult {
  jobs: number;
  seconds: number;
  slots: number;
  runs: number;
  p50: number;
  p99: number;
  max: number;
  createdAheadShare: number;
  missed: number;
  doubled: number;
}

export async function measureOnTime(url: string, jobs: number, seconds: number): Promise<OnTimeResult> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const concurrency = process.env.BENCH_WORKER_CONCURRENCY ?? '64';
  const children: ChildProcess[] = [];
  for (let p = 0; p < 2; p++) {
    // BENCH_WORKER_PROF=dir: each worker writes a CPU profile there (node --cpu-prof) when it exits
    const prof = process.env.BENCH_WORKER_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_PROF}`] : [];
    children.push(spawn(process.execPath, await benchWorkerArgs(prof), {
      env: { ...process.env, DATABASE_URL: url, TICKFLOW_CONCURRENCY: concurrency, TICKFLOW_NODE_NAME: `bench-on-time-${p}`, LOG_LEVEL: 'warn' },
      stdio: ['ignore', process.env.BENCH_WORKER_LOG ? 'inherit' : 'ignore', 'inherit'],
    }));
  }
  try {
    // Workers up (both registered) before the jobs exist.
    for (let i = 0; i < 600; i++) {
      const { rows } = await db.query(`SELECT count(*)::int AS n FROM worker_nodes WHERE status = 'online'`);
      if (rows[0].n >= 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // First slot at least 6 s away (a 5 s boundary): the window starts there.
    const first = Math.ceil((Date.now() + 6000) / 5000) * 5000;
    await db.query(`INSERT INTO jobs (key, name, schedule_kind, cron_expression, timezone, next_run_at)
      SELECT 'bench.on-time.' || g, 'bench on time', 'cron', '*/5 * * * * *', 'UTC', to_timestamp($2 / 1000.0)
        FROM generate_series(1, $1::int) g`, [jobs, first]);
    await db.query(`INSERT INTO job_steps (job_id, key, handler) SELECT id, 'main', 'builtin.noop' FROM jobs WHERE key LIKE 'bench.on-time.%'`);
    await db.query(`UPDATE jobs SET updated_at = now() WHERE key LIKE 'bench.on-time.%'`); // (steps exist before any fire)
    const last = first + Math.floor((seconds * 1000) / 5000) * 5000;
    await new Promise((r) => setTimeout(r, Math.max(0, last - Date.now()) + 3000));
    const { rows } = await db.query<{ slots: number; runs: number; doubled: number; ahead: number; late: number[] }>(`
      WITH w AS (SELECT to_timestamp($1 / 1000.0) AS a, to_timestamp($2 / 1000.0) AS b),
      r AS (SELECT r.* FROM runs r, w WHERE r.job_key LIKE 'bench.on-time.%' AND r.trigger = 'schedule'
              AND r.scheduled_for BETWEEN w.a AND w.b AND r.status <> 'cancelled')
      SELECT (SELECT count(*) FROM generate_series((SELECT a FROM w), (SELECT b FROM w), interval '5 seconds'))::int * $3 AS slots,
             (SELECT count(DISTINCT (job_id, scheduled_for)) FROM r)::int AS runs,
             (SELECT count(*) - count(DISTINCT (job_id, scheduled_for)) FROM r)::int AS doubled,
             (SELECT count(*) FILTER (WHERE created_at < scheduled_for) FROM r)::int AS ahead,
             (SELECT array_agg((extract(epoch FROM t.started_at - r.scheduled_for) * 1000)::float8)
                FROM r JOIN tasks t ON t.run_id = r.id AND t.started_at IS NOT NULL) AS late`, [first, last, jobs]);
    const x = rows[0]!;
    if (process.env.BENCH_DEBUG) {
      const d = await db.query(`SELECT scheduled_for, status::text, count(*)::int, min(created_at - scheduled_for)::text AS min_ahead, max(created_at - scheduled_for)::text AS max_ahead
        FROM runs WHERE job_key LIKE 'bench.on-time.%' GROUP BY 1, 2 ORDER BY 1, 2`);
      for (const r of d.rows) console.log(JSON.stringify(r));
      const j = await db.query(`SELECT next_run_at, status::text, count(*)::int FROM jobs WHERE key LIKE 'bench.on-time.%' GROUP BY 1, 2 ORDER BY 1`);
      for (const r of j.rows) console.log(JSON.stringify(r));
      console.log({ first: new Date(first), last: new Date(last) });
      const a = await db.query(`SELECT application_name, state, wait_event_type, wait_event, now() - xact_start AS xact_age, left(query, 120) AS q
        FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`);
      console.log(a.rows);
      const t = await db.query(`SELECT t.status::text, t.locked_by, t.lease_until, t.started_at, t.attempt, count(*)::int FROM tasks t JOIN runs r ON r.id = t.run_id
        WHERE r.status = 'running' GROUP BY 1, 2, 3, 4, 5`);
      console.log(t.rows);
    }
    const late = (x.late ?? []).sort((a, b) => a - b);
    return {
      jobs, seconds, slots: x.slots, runs: x.runs,
      p50: quantile(late, 0.5), p99: quantile(late, 0.99), max: late.at(-1) ?? NaN,
      createdAheadShare: x.runs ? x.ahead / x.runs : 0,
      missed: x.slots - x.runs, doubled: x.doubled,
    };
  } finally {
    await db.end();
    await Promise.all(children.map((ch) => new Promise<void>((resolve) => {
      if (ch.exitCode !== null) return resolve();
      ch.on('exit', () => resolve());
      ch.kill('SIGTERM');
    })));
  }
}

export function formatOnTime(r: OnTimeResult): string {
  return `on time: ${r.jobs} jobs every 5 s, 2 workers, ${r.seconds} s: scheduled start p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ` +
    `max ${r.max.toFixed(1)} ms; ${r.runs}/${r.slots} slots fired, ${r.missed} missed, ${r.doubled} doubled, ${(r.createdAheadShare * 100).toFixed(1)}% created ahead`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const jobs = Number(process.argv[2] ?? 1000);
  const seconds = Number(process.argv[3] ?? 120);
  withBenchDatabase('ontime', async (url) => console.log(formatOnTime(await measureOnTime(url, jobs, seconds))))
    .catch((e) => { console.error(e); process.exit(1); });
}
