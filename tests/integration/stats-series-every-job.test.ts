/**
 * The stats series of every job (lib/stats/detail-stats-sql.ts, the hourly view of GET /stats/series
 * without a job) reads the tasks and runs of the range of scheduled_for its logs belong to: its rows
 * are exactly the per-job series' (the job branch, which reads each job's runs) added up, per hour
 * and handler, also for a retry logged weeks after its run's slot (which widens that range) and a
 * backfill run (no lateness). Real PostgreSQL, logs written as the engine writes them.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { queryDetailStats, type DetailStatsRow } from '../../lib/stats/detail-stats-sql.ts';
import { ensureHistoryPartitions } from '../../lib/system-jobs/history-partitions.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob } from './engine-fixtures.ts';

const t = useTestDatabase();
const NOW = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
const H = 3_600_000;

/** One run with one task and its finishing log (and a `dead` one), as the engine leaves them. */
async function finished(jobId: string, handler: string, slot: Date, o: { at: Date; outcome: string; attempt?: number; trigger?: string; dead?: boolean; durationMs?: number }) {
  const runId = randomUUID();
  const taskId = randomUUID();
  const status = o.dead ? 'failed' : o.outcome;
  await t.db.$executeRawUnsafe(
    `INSERT INTO runs (id, job_id, job_key, job_version, trigger, triggered_by, scheduled_for, status, finished_at, trace_id)
     VALUES ($1::uuid, $2, 'k', 1, $3::run_trigger, 'test', $4, $5::run_status, $6, 'trace')`,
    runId, jobId, o.trigger ?? 'schedule', slot, status, o.at);
  const startedAt = new Date(o.at.getTime() - (o.durationMs ?? 40));
  await t.db.$executeRawUnsafe(
    `INSERT INTO tasks (id, run_id, job_id, step_key, handler, status, attempt, schedule_at, scheduled_for, started_at, completed_at)
     VALUES ($1::uuid, $2::uuid, $3, 'main', $4, $5::task_status, $6, $7, $7, $8, $9)`,
    taskId, runId, jobId, handler, o.dead ? 'dead' : o.outcome, o.attempt ?? 1, slot, startedAt, o.at);
  await t.db.$executeRawUnsafe(
    `INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, created_at)
     VALUES ($1::uuid, $2::uuid, $3, $4, 'running', $5::task_status, 'finished', jsonb_build_object('durationMs', $6::int), $7)`,
    taskId, runId, slot, o.attempt ?? 1, o.outcome, o.durationMs ?? 40, o.at);
  if (o.dead) {
    await t.db.$executeRawUnsafe(
      `INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, created_at)
       VALUES ($1::uuid, $2::uuid, $3, $4, 'failed', 'dead', 'dead', $5)`,
      taskId, runId, slot, o.attempt ?? 1, o.at);
  }
}

/** Rows of several series added up per (bucket, handler), as handler_stats_daily adds them. */
function addUp(series: DetailStatsRow[][]): DetailStatsRow[] {
  const out = new Map<string, DetailStatsRow>();
  for (const r of series.flat()) {
    const k = `${r.bucket}\u0000${r.handler}`;
    const a = out.get(k);
    if (!a) {
      out.set(k, { ...r, durationBuckets: [...r.durationBuckets] });
      continue;
    }
    a.success += r.success; a.failure += r.failure; a.timeout += r.timeout; a.deadLetter += r.deadLetter;
    a.totalDurationMs += r.totalDurationMs; a.maxDurationMs = Math.max(a.maxDurationMs, r.maxDurationMs);
    a.totalLatenessMs += r.totalLatenessMs; a.latenessCount += r.latenessCount;
    a.durationBuckets = a.durationBuckets.map((v, i) => v + (r.durationBuckets[i] ?? 0));
  }
  return [...out.values()].sort((x, y) => (x.bucket < y.bucket ? -1 : x.bucket > y.bucket ? 1 : x.handler < y.handler ? -1 : x.handler > y.handler ? 1 : 0));
}

describe('stats series of every job', () => {
  it('is the per-job series added up, per hour and handler, with late retries and backfills', async () => {
    await ensureHistoryPartitions(t.db, NOW, { from: new Date(NOW.getTime() - 40 * 24 * H) });
    const jobs = [await insertJob(t.db), await insertJob(t.db), await insertJob(t.db)];
    const outcomes = ['success', 'success', 'failed', 'timeout'];
    for (let i = 0; i < 120; i++) {
      const slot = new Date(NOW.getTime() - i * 1.7 * H);
      await finished(jobs[i % 3]!, ['h.a', 'h.b'][i % 2]!, slot, {
        at: new Date(slot.getTime() + (i % 7) * 61_000 + 500), outcome: outcomes[i % 4]!, durationMs: 20 + i * 97,
        trigger: i % 11 === 0 ? 'manual' : 'schedule', dead: i % 13 === 0,
      });
    }
    // a retry logged now for a slot five weeks back, and a backfill of a slot three weeks back
    await finished(jobs[0]!, 'h.a', new Date(NOW.getTime() - 35 * 24 * H), { at: new Date(NOW.getTime() - 2 * H), outcome: 'success', attempt: 2 });
    await finished(jobs[1]!, 'h.b', new Date(NOW.getTime() - 21 * 24 * H), { at: new Date(NOW.getTime() - 5 * H), outcome: 'failed', trigger: 'backfill' });

    for (const hours of [6, 48, 168]) {
      const p = { start: new Date(NOW.getTime() - hours * H), end: new Date(NOW.getTime() + 1), timeZone: 'Europe/Paris', granularity: 'hour' as const };
      const all = await queryDetailStats(t.db, p);
      const perJob = await Promise.all(jobs.map((jobId) => queryDetailStats(t.db, { ...p, jobId })));
      expect(all.length, `${hours} h`).toBeGreaterThan(0);
      expect(all, `${hours} h`).toEqual(addUp(perJob));
      const onlyB = await queryDetailStats(t.db, { ...p, handlers: ['h.b'] });
      expect(onlyB).toEqual(all.filter((r) => r.handler === 'h.b'));
    }
    // a window without logs
    expect(await queryDetailStats(t.db, { start: new Date(NOW.getTime() + 10 * H), end: new Date(NOW.getTime() + 11 * H), timeZone: 'UTC', granularity: 'hour' })).toEqual([]);
  });
});
