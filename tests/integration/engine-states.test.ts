/**
 * lib/engine/states.ts agrees with the database: enum values and the
 * `tasks_valid_transition`, `runs_valid_transition` and `jobs_valid_transition`
 * triggers (every allowed pair passes, every other pair is rejected).
 */
import { describe, expect, it } from 'vitest';
import {
  JOB_STATUSES, JOB_TRANSITIONS, RUN_STATUSES, RUN_TRIGGERS, RUN_TRANSITIONS, TASK_STATUSES, TASK_TRANSITIONS,
  canJobTransition, canRunTransition, canTransition, isFinalTaskStatus,
} from '../../lib/engine/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob } from './engine-fixtures.ts';

const t = useTestDatabase();

describe('states', () => {
  it('TASK_STATUSES and RUN_STATUSES are the SQL enums, in order', async () => {
    const values = async (type: string) =>
      (await t.pool.query(`SELECT unnest(enum_range(NULL::${type}))::text AS v`)).rows.map((r) => r.v);
    expect(await values('task_status')).toEqual([...TASK_STATUSES]);
    expect(await values('run_status')).toEqual([...RUN_STATUSES]);
    expect(await values('job_status')).toEqual([...JOB_STATUSES]);
    expect(await values('run_trigger')).toEqual([...RUN_TRIGGERS]);
  });

  it('final statuses are success, dead, cancelled, skipped', () => {
    expect(TASK_STATUSES.filter(isFinalTaskStatus)).toEqual(['success', 'cancelled', 'dead', 'skipped']);
  });

  it('the transition table matches the tasks_valid_transition trigger for all 64 pairs', async () => {
    const jobId = await insertJob(t.db, {});
    const run = await t.pool.query(
      `INSERT INTO runs (job_id, job_key, job_version, trigger, triggered_by, scheduled_for, trace_id)
       VALUES ($1, 'k', 1, 'manual', 't', now(), 'x') RETURNING id, scheduled_for`, [jobId]);
    const { id: runId, scheduled_for: scheduledFor } = run.rows[0];
    const client = await t.pool.connect();
    try {
      for (const from of TASK_STATUSES) {
        for (const to of TASK_STATUSES) {
          await client.query('BEGIN');
          // Insert directly in `from` (the trigger guards UPDATEs only); running rows need a lease.
          const { rows } = await client.query(
            `INSERT INTO tasks (run_id, scheduled_for, job_id, step_key, handler, status, locked_by, lease_until)
             VALUES ($1, $4, $2, 'x', 'h', $3::task_status, 'n', now()) RETURNING id`, [runId, jobId, from, scheduledFor]);
          let allowed = true;
          try {
            await client.query('SAVEPOINT s');
            await client.query(`UPDATE tasks SET status = $2::task_status WHERE id = $1`, [rows[0].id, to]);
          } catch (e) {
            expect(String(e)).toMatch(/invalid task transition/);
            allowed = false;
            await client.query('ROLLBACK TO SAVEPOINT s');
          }
          await client.query('ROLLBACK');
          expect({ from, to, allowed }).toEqual({ from, to, allowed: canTransition(from, to) });
        }
      }
    } finally {
      client.release();
    }
    // 14 engine and retry moves + the hand-back of an unstarted task (docs/on-time.md) + 4 recovery moves (mark success, clear): docs/recovery.md
    expect(TASK_TRANSITIONS.length).toBe(19);
    expect(canTransition('dead', 'success') && canTransition('success', 'pending')).toBe(true);
  });

  /** Tries every (from, to) pair of `statuses` on a fresh row; returns the pairs the database allowed. */
  async function allowedPairs(statuses: readonly string[], insert: (from: string, c: import('pg').PoolClient) => Promise<string>, update: string, message: RegExp) {
    const client = await t.pool.connect();
    const out: { from: string; to: string; allowed: boolean }[] = [];
    try {
      for (const from of statuses) {
        for (const to of statuses) {
          await client.query('BEGIN');
          const id = await insert(from, client);
          let allowed = true;
          try {
            await client.query('SAVEPOINT s');
            await client.query(update, [id, to]);
          } catch (e) {
            expect(String(e)).toMatch(message);
            allowed = false;
            await client.query('ROLLBACK TO SAVEPOINT s');
          }
          await client.query('ROLLBACK');
          out.push({ from, to, allowed });
        }
      }
    } finally {
      client.release();
    }
    return out;
  }

  it('the run transition table matches the runs_valid_transition trigger for all 49 pairs', async () => {
    const jobId = await insertJob(t.db, {});
    const pairs = await allowedPairs(RUN_STATUSES, async (from, c) => (await c.query(
      `INSERT INTO runs (job_id, job_key, job_version, trigger, triggered_by, scheduled_for, trace_id, status, finished_at)
       VALUES ($1, 'k', 1, 'manual', 't', now(), 'x', $2::run_status, CASE WHEN $2 IN ('pending', 'running') THEN NULL ELSE now() END)
       RETURNING id`, [jobId, from])).rows[0].id,
    // finished_at follows the status (check runs_finished_when_final), so only the trigger can refuse
    `UPDATE runs SET status = $2::run_status, finished_at = CASE WHEN $2 IN ('pending', 'running') THEN NULL ELSE now() END WHERE id = $1`,
    /invalid run transition/);
    for (const p of pairs) expect(p).toEqual({ ...p, allowed: canRunTransition(p.from as never, p.to as never) });
    expect(RUN_TRANSITIONS.length).toBe(17);
  });

  it('the job transition table matches the jobs_valid_transition trigger for all 9 pairs', async () => {
    let n = 0;
    const pairs = await allowedPairs(JOB_STATUSES, async (from, c) => (await c.query(
      `INSERT INTO jobs (key, name, schedule_kind, status) VALUES ($1, 'states', 'manual', $2::job_status) RETURNING id`,
      [`states-job-${++n}`, from])).rows[0].id, `UPDATE jobs SET status = $2::job_status WHERE id = $1`, /invalid job transition/);
    for (const p of pairs) expect(p).toEqual({ ...p, allowed: canJobTransition(p.from as never, p.to as never) });
    expect(JOB_TRANSITIONS.length).toBe(5);
  });
});
