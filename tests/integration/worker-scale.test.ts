/**
 * Four worker processes against one database: 1,000 jobs due in the same
 * second, then 10,000 queued tasks. Each fire creates exactly one run; each
 * task's successful attempt happens exactly once (task_logs running -> success).
 * TICKFLOW_SCALE_TASKS overrides the task count (default 10000).
 */
import { describe, expect, it } from 'vitest';
import { triggerRun } from '../../lib/engine/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { spawnWorker, useWorkerProcesses, waitFor } from './worker-fixtures.ts';

const JOBS = 1000;
const TASKS = Number(process.env.TICKFLOW_SCALE_TASKS ?? 10_000);
const STEPS_PER_RUN = 1000;

const t = useTestDatabase();
const procs = useWorkerProcesses('all');

/** Polls a count query until 0; fails fast when it stops moving for 60 s (stuck, not slow). */
async function untilNoneLeft(sql: string, params: unknown[], what: string): Promise<void> {
  let last = -1;
  let lastChange = Date.now();
  for (;;) {
    const n = (await t.pool.query<{ n: number }>(sql, params)).rows[0]!.n;
    if (n === 0) return;
    if (n !== last) {
      last = n;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > 60_000) {
      throw new Error(`no progress for 60 s waiting for ${what}: ${n} left\n${procs.map((p) => p.output().slice(-2000)).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function ensureWorkers(): Promise<void> {
  if (procs.length === 0) {
    for (let i = 0; i < 4; i++) {
      procs.push(
        spawnWorker(t.url, {
          LOG_LEVEL: 'warn',
          TICKFLOW_CONCURRENCY: '8',
          TICKFLOW_DB_POOL: '5',
          TICKFLOW_TICK_BATCH: '50',
          TICKFLOW_POLL_MS: '500',
          TICKFLOW_HEARTBEAT_MS: '2000',
          TICKFLOW_REAP_MS: '2000',
        }),
      );
    }
    // "ready" is logged at info; with LOG_LEVEL=warn wait for the node rows instead.
    await waitFor(async () => (await t.db.workerNode.count({ where: { status: 'online' } })) === 4, 90_000, '4 nodes online'); // generous: 4 processes start slowly on a loaded 2-core machine
  }
  if (procs.some((p) => p.child.exitCode !== null)) throw new Error(`a worker exited:\n${procs.map((p) => p.output()).join('\n')}`);
}

describe('4 workers, one database', () => {
  it('1,000 jobs due in the same second: each fire creates exactly one run', async () => {
    const slot = new Date(Math.floor(Date.now() / 60_000) * 60_000); // this minute's nominal slot
    await t.pool.query(
      `WITH j AS (
         INSERT INTO jobs (key, name, schedule_kind, cron_expression, timezone, misfire_policy, block_strategy, next_run_at, created_at)
         SELECT 'scale-' || g, 'scale ' || g, 'cron', '* * * * *', 'UTC', 'fire_once', 'serial_execution', $1::timestamptz, $1::timestamptz - interval '1 day'
           FROM generate_series(1, $2::int) g
         RETURNING id)
       INSERT INTO job_steps (job_id, key, handler) SELECT id, 'main', 'builtin.noop' FROM j`,
      [slot, JOBS],
    );

    await ensureWorkers();

    await waitFor(
      async () => (await t.db.job.count({ where: { key: { startsWith: 'scale-' }, nextRunAt: { lte: slot } } })) === 0,
      180_000,
      'every job fired',
      500,
    );
    // Stop later slots from adding load; the slot under test is done firing. The rows are locked
    // in ascending id, the engine's order for several jobs (lib/engine/lock-order.ts), so this
    // statement cannot deadlock with the workers' batched completions.
    await t.pool.query(
      `UPDATE jobs SET status = 'paused'
        WHERE id IN (SELECT id FROM jobs WHERE key LIKE 'scale-%' ORDER BY id FOR UPDATE)`,
    );

    const fired = await t.pool.query<{ runs: number; jobs: number; dup: number }>(
      `SELECT count(*)::int AS runs, count(DISTINCT job_id)::int AS jobs,
              (SELECT count(*) FROM (SELECT job_id, scheduled_for FROM runs WHERE trigger = 'schedule'
                                      GROUP BY 1, 2 HAVING count(*) > 1) d)::int AS dup
         FROM runs WHERE trigger = 'schedule' AND scheduled_for = $1`,
      [slot],
    );
    expect(fired.rows[0]).toEqual({ runs: JOBS, jobs: JOBS, dup: 0 });
    const firers = await t.pool.query<{ n: number }>(`SELECT count(DISTINCT triggered_by)::int AS n FROM runs WHERE scheduled_for = $1`, [slot]);
    expect(firers.rows[0]!.n).toBeGreaterThanOrEqual(1);

    await untilNoneLeft(`SELECT count(*)::int AS n FROM tasks WHERE status <> 'success'`, [], 'scheduled tasks done');
  }, 400_000);

  it(`${TASKS} queued tasks: each successful attempt happens exactly once`, async () => {
    const runs = Math.ceil(TASKS / STEPS_PER_RUN);
    const runIds: string[] = [];
    for (let r = 0; r < runs; r++) {
      const steps = Math.min(STEPS_PER_RUN, TASKS - r * STEPS_PER_RUN);
      const { rows } = await t.pool.query<{ id: string }>(
        `INSERT INTO jobs (key, name, schedule_kind, block_strategy) VALUES ($1, $1, 'manual', 'serial_execution') RETURNING id::text`,
        [`bulk-${r}`],
      );
      await t.pool.query(
        `INSERT INTO job_steps (job_id, key, handler) SELECT $1::uuid, 's' || g, 'builtin.noop' FROM generate_series(1, $2::int) g`,
        [rows[0]!.id, steps],
      );
      const { run } = await triggerRun(t.db, { jobId: rows[0]!.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
      runIds.push(run.id);
    }
    await ensureWorkers();
    const started = Date.now();
    await untilNoneLeft(`SELECT count(*)::int AS n FROM tasks WHERE run_id = ANY($1::uuid[]) AND status <> 'success'`, [runIds], `${TASKS} tasks done`);
    const seconds = (Date.now() - started) / 1000;
    console.log(`[worker-scale] ${TASKS} tasks on 4 workers in ${seconds.toFixed(1)} s (${Math.round(TASKS / seconds)}/s)`);

    const check = await t.pool.query<{ tasks: number; exactly_once: number; attempts_1: number; nodes: number }>(
      `WITH s AS (
         SELECT t.id, t.attempt,
                (SELECT count(*) FROM task_logs l WHERE l.task_id = t.id AND l.from_status = 'running' AND l.to_status = 'success') AS successes
           FROM tasks t WHERE t.run_id = ANY($1::uuid[]))
       SELECT count(*)::int AS tasks,
              count(*) FILTER (WHERE successes = 1)::int AS exactly_once,
              count(*) FILTER (WHERE attempt = 1)::int AS attempts_1,
              (SELECT count(DISTINCT locked_by) FROM tasks WHERE run_id = ANY($1::uuid[]))::int AS nodes
         FROM s`,
      [runIds],
    );
    expect(check.rows[0]).toMatchObject({ tasks: TASKS, exactly_once: TASKS, attempts_1: TASKS });
    expect(check.rows[0]!.nodes).toBe(4); // the work was shared
    const runsDone = await t.pool.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND status = 'success'`, [runIds]);
    expect(runsDone.rows[0].n).toBe(runs);
  }, 600_000);
});
