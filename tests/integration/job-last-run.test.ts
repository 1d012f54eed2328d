/**
 * A job's "Last run" (docs/console.md "Last run"): the status and the time the jobs list, the job page and
 * GET /api/v1/jobs(/:id) show belong to one run, the run created last, with its live status: a run created
 * while an older one is in flight shows as itself, and an older run ending after a newer one was created does
 * not replace it. Real PostgreSQL, injected clock.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { completeTask, triggerRun } from '../../lib/engine/index.ts';
import { getJob } from '../../lib/jobs/get-job.ts';
import { listJobs } from '../../lib/jobs/list-jobs.ts';
import { pauseJob } from '../../lib/jobs/pause-job.ts';
import { purgeOldRuns } from '../../lib/system-jobs/retention.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { at, claimStep, drive, insertJob, NODE } from './engine-fixtures.ts';

const t = useTestDatabase();

describe('a job\'s last run', () => {
  it('pairs one run\'s status with that run\'s time, while newer runs are created and older ones end', async () => {
    const key = 'last-run.serial';
    // serial_execution: a run triggered while one is in flight is created at once and waits for it
    const jobId = await insertJob(t.db, { key, blockStrategy: 'serial_execution', steps: [{ key: 'a' }, { key: 'b' }], edges: [{ from: 'a', to: 'b' }] });
    const shown = async () => {
      const [page, job] = await Promise.all([listJobs(t.db, { q: key }, SYSTEM_ACTOR, at(0)), getJob(t.db, jobId, SYSTEM_ACTOR, at(0))]);
      const row = page.items.find((j) => j.id === jobId)!;
      const pair = { id: job.lastRunId, status: job.lastRunStatus, at: job.lastRunAt };
      expect({ id: row.lastRunId, status: row.lastRunStatus, at: row.lastRunAt }).toEqual(pair);
      return pair;
    };
    const trigger = async (ms: number) => (await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 't', scheduledFor: at(ms) }, at(ms))).run.id;

    expect(await shown()).toEqual({ id: null, status: null, at: null });
    const first = await trigger(0);
    await drive(t.db, at(100));
    expect(await shown()).toEqual({ id: first, status: 'success', at: at(0).toISOString() });

    // a new run in flight: its own status beside its own time, not the previous run's success
    const older = await trigger(1000);
    await claimStep(t.db, older, 'a', at(1100));
    expect(await shown()).toEqual({ id: older, status: 'running', at: at(1000).toISOString() });

    // a run created while the older one is in flight is the last run from then on
    const newer = await trigger(2000);
    expect(await shown()).toEqual({ id: newer, status: 'pending', at: at(2000).toISOString() });

    // the older run ends after the newer one was created: the newer one is still shown, as it is
    const a = await t.db.task.findFirstOrThrow({ where: { runId: older, stepKey: 'a' } });
    await completeTask(t.db, { taskId: a.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success', error: null }, at(3000));
    const b = await claimStep(t.db, older, 'b', at(3100));
    await completeTask(t.db, { taskId: b.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success', error: null }, at(3200));
    expect((await t.db.run.findUniqueOrThrow({ where: { id: older } })).status).toBe('success');
    expect(await shown()).toEqual({ id: newer, status: 'pending', at: at(2000).toISOString() });

    // and its own end shows once it comes
    await drive(t.db, at(4000), { a: 'failed' });
    expect(await shown()).toEqual({ id: newer, status: 'failed', at: at(2000).toISOString() });

    // the answer of a change (here a pause) shows the same pair
    const paused = await pauseJob(t.db, jobId, SYSTEM_ACTOR, {}, at(5000));
    expect({ id: paused.lastRunId, status: paused.lastRunStatus, at: paused.lastRunAt }).toEqual({ id: newer, status: 'failed', at: at(2000).toISOString() });
  });

  it('a last run gone from history (retention) keeps its time and shows no status, never an older run\'s', async () => {
    const jobId = await insertJob(t.db, { key: 'last-run.purged' });
    await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 't', scheduledFor: at(0) }, at(0));
    await drive(t.db, at(100));
    await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 't', scheduledFor: at(1000) }, at(1000));
    await drive(t.db, at(1100), { main: 'failed' });
    const later = at(10 * 86_400_000);
    await purgeOldRuns(t.db, { olderThanDays: 1 }, later);
    expect(await t.db.run.count({ where: { jobId } })).toBe(0);
    const job = await getJob(t.db, jobId, SYSTEM_ACTOR, later);
    expect({ id: job.lastRunId, status: job.lastRunStatus, at: job.lastRunAt }).toEqual({ id: null, status: null, at: at(1000).toISOString() });
  });

  it('the upgrade finds each job\'s last run, a backfill\'s past slot and a skipped record included (migration 20261208000000_job_last_run)', async () => {
    const migration = readFileSync(path.resolve(import.meta.dirname, '../../prisma/migrations/20261208000000_job_last_run/migration.sql'), 'utf8');
    // the statement that fills the new columns for jobs that ran before them
    const fill = migration.slice(migration.indexOf('UPDATE jobs j SET last_run_id'), migration.indexOf('ALTER TABLE jobs DROP COLUMN'));
    expect(fill).toContain('LIMIT 1');
    const plain = await insertJob(t.db, { key: 'last-run.upgrade.plain' });
    const past = await insertJob(t.db, { key: 'last-run.upgrade.backfill' });
    const skipping = await insertJob(t.db, { key: 'last-run.upgrade.skipping', blockStrategy: 'discard_later' });
    const never = await insertJob(t.db, { key: 'last-run.upgrade.never' });
    const trigger = async (jobId: string, ms: number, slotMs = ms, trigger: 'manual' | 'backfill' = 'manual') =>
      (await triggerRun(t.db, { jobId, trigger, triggeredBy: 't', scheduledFor: at(slotMs) }, at(ms))).run;
    await trigger(plain, 0);
    await drive(t.db, at(100));
    await trigger(plain, 1000);
    await trigger(past, 0);
    await drive(t.db, at(100));
    // created last, for a slot two days before the job's other run
    await trigger(past, 2000, -2 * 86_400_000, 'backfill');
    await trigger(skipping, 0);
    expect((await trigger(skipping, 500)).status).toBe('skipped');
    const expected = await t.pool.query(`SELECT id, last_run_id, last_run_scheduled_for FROM jobs WHERE id = ANY ($1::uuid[]) ORDER BY id`, [[plain, past, skipping, never]]);
    expect(expected.rows.filter((r) => r.last_run_id).length).toBe(3);
    await t.pool.query(`UPDATE jobs SET last_run_id = NULL, last_run_scheduled_for = NULL`);
    await t.pool.query(fill);
    const filled = await t.pool.query(`SELECT id, last_run_id, last_run_scheduled_for FROM jobs WHERE id = ANY ($1::uuid[]) ORDER BY id`, [[plain, past, skipping, never]]);
    expect(filled.rows).toEqual(expected.rows);
  });
});
