/**
 * An operator's action whose locks cross another session's is replayed, not answered with an
 * error (lib/db.ts inTransaction): the reported case was a bulk pause deadlocking with a worker
 * (40P01) and answering 500. Here the other session is plain SQL taking the same rows in the
 * opposite order, so the pause is the deadlock's victim every time. With a worker, a bulk pause
 * does not get that far: it takes its locks in the engine's order (tested below).
 */
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../lib/auth/actor.ts';
import { runTick } from '../../lib/engine/tick/run-tick.ts';
import { bulkJobs, pauseJob } from '../../lib/jobs/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob } from './worker-fixtures.ts';

const t = useTestDatabase();
const alice: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000001', name: 'alice@example.com', role: 'operator' };
const ms = (d: Date, n: number) => new Date(d.getTime() + n);

/** A job with a run created ahead of its next slot (the tick's look-ahead), and that run's id. */
async function jobWithAheadRun(key: string, at: Date): Promise<{ jobId: string; runId: string }> {
  const jobId = await insertJob(t.db, { key, cron: '*/5 * * * * *', nextRunAt: ms(at, 5000) });
  await runTick(t.db, { limit: 100, lookaheadMs: 3000 }, ms(at, 2500));
  const { rows } = await t.pool.query<{ id: string }>(`SELECT id FROM runs WHERE job_id = $1 AND status = 'pending'`, [jobId]);
  expect(rows).toHaveLength(1);
  return { jobId, runId: rows[0]!.id };
}

/**
 * Holds the run row, lets `action` lock the job row and wait for the run, then asks for the job
 * row: a cycle PostgreSQL breaks by aborting the first waiter, the action. Returns its result.
 */
async function crossLocks<T>(jobId: string, runId: string, action: () => Promise<T>): Promise<T> {
  const other = await t.pool.connect();
  try {
    await other.query('BEGIN');
    await other.query(`SELECT 1 FROM runs WHERE id = $1 FOR UPDATE`, [runId]);
    const result = action();
    // the action holds the job row once it waits for the run row
    for (let i = 0; i < 200; i++) {
      const { rows } = await t.pool.query(`SELECT 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE NOT l.granted AND a.pid <> pg_backend_pid()`);
      if (rows.length) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await other.query(`UPDATE jobs SET description = description WHERE id = $1`, [jobId]);
    await other.query('COMMIT');
    return await result;
  } finally {
    other.release();
  }
}

describe('domain transactions replay a lock conflict', () => {
  it('a pause that deadlocks with another session is replayed and carried out', async () => {
    const S = new Date('2026-12-01T00:00:00.000Z');
    const { jobId, runId } = await jobWithAheadRun('replay-one', S);
    const job = await crossLocks(jobId, runId, () => pauseJob(t.db, jobId, alice, {}, ms(S, 2600)));
    expect(job.status).toBe('paused');
    // the run created ahead of the slot went with the pause
    const { rows } = await t.pool.query(`SELECT status FROM runs WHERE id = $1`, [runId]);
    expect(rows[0].status).toBe('cancelled');
  });

  it('a bulk pause, likewise (the reported 500)', async () => {
    const S = new Date('2026-12-01T01:00:00.000Z');
    const a = await jobWithAheadRun('replay-bulk-a', S);
    const b = await jobWithAheadRun('replay-bulk-b', S);
    const jobs = await crossLocks(b.jobId, b.runId, () => bulkJobs(t.db, 'pause', { ids: [a.jobId, b.jobId] }, alice, ms(S, 2600)));
    expect(jobs.map((j) => j.status)).toEqual(['paused', 'paused']);
  });
});

describe('a bulk pause takes its locks in the engine\'s order (lib/engine/lock-order.ts)', () => {
  it('does not deadlock with a session locking tasks in ascending id across jobs, as a lease renewal does', async () => {
    // Two jobs with runs created ahead, where the task of the job that sorts first has the higher
    // task id. Taken job by job, the pause would hold that task while waiting for the other job's.
    const S = new Date('2026-12-01T04:00:00.000Z');
    let pair: { first: { jobId: string; taskId: string }; second: { jobId: string; taskId: string } } | null = null;
    for (let i = 0; i < 40 && !pair; i++) {
      const made: { jobId: string; taskId: string }[] = [];
      for (const k of [0, 1]) {
        const { jobId, runId } = await jobWithAheadRun(`order-${i}-${k}`, S);
        const { rows } = await t.pool.query<{ id: string }>(`SELECT id::text FROM tasks WHERE run_id = $1`, [runId]);
        made.push({ jobId, taskId: rows[0]!.id });
      }
      const [first, second] = made.sort((x, y) => (x.jobId < y.jobId ? -1 : 1));
      if (first!.taskId > second!.taskId) pair = { first: first!, second: second! };
    }
    expect(pair, 'two jobs whose task ids run against their job ids').not.toBeNull();
    const { first, second } = pair!;

    const other = await t.pool.connect();
    try {
      await other.query('BEGIN');
      // this session would be the deadlock's victim: it detects the cycle first
      await other.query(`SET LOCAL deadlock_timeout = '100ms'`);
      await other.query(`SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE`, [second.taskId]);
      const paused = bulkJobs(t.db, 'pause', { ids: [first.jobId, second.jobId] }, alice, ms(S, 2600));
      for (let i = 0; i < 200; i++) {
        const { rows } = await t.pool.query(`SELECT 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE NOT l.granted AND a.pid <> pg_backend_pid()`);
        if (rows.length) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      // the higher task id, next in ascending order: free, since the pause waits before taking it
      await other.query(`SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE`, [first.taskId]);
      await other.query('COMMIT');
      expect((await paused).map((j) => j.status)).toEqual(['paused', 'paused']);
    } finally {
      other.release();
    }
    const { rows } = await t.pool.query(`SELECT status FROM tasks WHERE id = ANY ($1::uuid[])`, [[first.taskId, second.taskId]]);
    expect(rows.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
  });
});

describe('a slot that comes while an action waits for its locks', () => {
  it('is left alone: the pause decides at the clock of the moment it holds the run, not of its request', async () => {
    // The reported case: a bulk pause requested 0.3 s before a slot, committed after it, cancelled runs whose
    // handlers had started. Here the pause is requested 100 ms before the slot and waits 400 ms for the run row.
    const S = new Date('2026-12-01T02:00:00.000Z');
    const { jobId, runId } = await jobWithAheadRun('slot-came', S);
    const other = await t.pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(`SELECT 1 FROM runs WHERE id = $1 FOR UPDATE`, [runId]);
      const paused = pauseJob(t.db, jobId, alice, {}, ms(S, 4900));
      await new Promise((r) => setTimeout(r, 400));
      await other.query('COMMIT');
      expect((await paused).status).toBe('paused');
    } finally {
      other.release();
    }
    const { rows } = await t.pool.query(`SELECT status, error FROM runs WHERE id = $1`, [runId]);
    expect(rows[0]).toEqual({ status: 'pending', error: null });
  });

  it('a pause that holds the run before the slot still cancels it, stamped no earlier than the run was created', async () => {
    const S = new Date('2026-12-01T03:00:00.000Z');
    const { jobId, runId } = await jobWithAheadRun('slot-ahead', S);
    await pauseJob(t.db, jobId, alice, {}, ms(S, 2000));
    const { rows } = await t.pool.query(`SELECT status, finished_at >= created_at AS ordered FROM runs WHERE id = $1`, [runId]);
    expect(rows[0]).toEqual({ status: 'cancelled', ordered: true });
  });
});
