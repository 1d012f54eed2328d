/**
 * System jobs: run-log retention in batches (stats untouched; task_logs deletable only inside
 * retention), idempotency-key cleanup, recycle-bin purge, stats check; seeding once; and a
 * system job run end to end through the engine (trigger -> claim -> handler -> complete).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase, offerHandlers } from '../helpers/db.ts';
import { SYSTEM_ACTOR, type Actor } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { deleteJob } from '../../lib/jobs/delete-job.ts';
import { purgeJob } from '../../lib/jobs/purge-job.ts';
import { restoreJob } from '../../lib/jobs/restore-job.ts';
import { claimTasks, completeTask, triggerRun } from '../../lib/engine/index.ts';
import { purgeOldRuns } from '../../lib/system-jobs/retention.ts';
import { deleteExpiredIdempotencyKeys } from '../../lib/system-jobs/idempotency-cleanup.ts';
import { ensureSystemJobs, systemJobInputs, SYSTEM_HANDLERS } from '../../lib/system-jobs/definitions.ts';
import { createSystemHandlers } from '../../worker/handlers/system-handlers.ts';
import { loggerTaskLog } from '../../worker/handlers/types.ts';
import { log } from '../../lib/log.ts';

const DAY = 86_400_000;
const NOW = new Date('2026-04-15T12:00:00.000Z');
const t = useTestDatabase();

beforeAll(async () => {
  await offerHandlers(t, ['ret.h', 'ret.other']);
});

let n = 0;
/** A finished one-step run at `at` (trigger, claim, complete through the engine). */
async function finishedRun(jobId: string, at: Date, outcome: 'success' | 'failed' = 'success') {
  const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: at }, at);
  const [task] = await claimTasks(t.db, { nodeId: 'n', handlers: ['ret.h'], group: 'default', labels: {}, limit: 1, leaseSeconds: 60 }, new Date(at.getTime() + 10));
  await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: 'n', outcome }, new Date(at.getTime() + 50));
  return run.id;
}
const count = async (sql: string, params: unknown[] = []) => (await t.pool.query(sql, params)).rows[0].n as number;

describe('run-log retention', () => {
  it('deletes old runs with their tasks and logs in batches, keeps recent ones and the stats', async () => {
    const job = await createJob(t.db, { key: `ret.${++n}`, name: 'ret', schedule: { kind: 'manual' }, handler: 'ret.h', policy: { blockStrategy: 'serial_execution' } }, SYSTEM_ACTOR, new Date(NOW.getTime() - 60 * DAY));
    const old: string[] = [];
    for (let i = 0; i < 7; i++) old.push(await finishedRun(job.id, new Date(NOW.getTime() - (40 - i) * DAY)));
    const recent: string[] = [];
    for (let i = 0; i < 2; i++) recent.push(await finishedRun(job.id, new Date(NOW.getTime() - (5 - i) * DAY)));
    // an old run that is still open is never deleted
    const other = await createJob(t.db, { key: `ret.${++n}`, name: 'ret', schedule: { kind: 'manual' }, handler: 'ret.other' }, SYSTEM_ACTOR, new Date(NOW.getTime() - 60 * DAY));
    const { run: open } = await triggerRun(t.db, { jobId: other.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date(NOW.getTime() - 39 * DAY) }, new Date(NOW.getTime() - 39 * DAY));

    const statsBefore = await t.pool.query(`SELECT * FROM handler_stats_daily ORDER BY stat_date, handler`);
    expect(statsBefore.rows.length).toBeGreaterThan(0);
    const logsOld = await count(`SELECT count(*)::int AS n FROM task_logs WHERE run_id = ANY($1::uuid[])`, [old]);
    expect(logsOld).toBe(7 * 3); // -> pending, pending -> running, running -> success

    const r = await purgeOldRuns(t.db, { olderThanDays: 30, batchSize: 3 }, NOW);
    expect(r).toMatchObject({ runs: 7, tasks: 7, taskLogs: logsOld, batches: 3, more: false });
    expect(await count(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[])`, [old])).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM tasks WHERE run_id = ANY($1::uuid[])`, [old])).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM task_logs WHERE run_id = ANY($1::uuid[])`, [old])).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[])`, [[...recent, open.id]])).toBe(3);
    expect(await count(`SELECT count(*)::int AS n FROM task_logs WHERE run_id = ANY($1::uuid[])`, [recent])).toBeGreaterThan(0);
    // stats untouched
    expect((await t.pool.query(`SELECT * FROM handler_stats_daily ORDER BY stat_date, handler`)).rows).toEqual(statsBefore.rows);

    // maxBatches bounds one call; the next call continues
    for (let i = 0; i < 4; i++) await finishedRun(job.id, new Date(NOW.getTime() - (50 - i) * DAY));
    const part = await purgeOldRuns(t.db, { olderThanDays: 30, batchSize: 1, maxBatches: 2 }, NOW);
    expect(part).toMatchObject({ runs: 2, batches: 2, more: true });
    expect((await purgeOldRuns(t.db, { olderThanDays: 30, batchSize: 1 }, NOW)).runs).toBe(2);
  });

  it('task_logs cannot be updated or deleted outside retention', async () => {
    await expect(t.pool.query(`DELETE FROM task_logs`)).rejects.toThrow(/append-only/);
    await expect(t.pool.query(`UPDATE task_logs SET message = 'x'`)).rejects.toThrow(/append-only/);
    await expect(t.pool.query(`TRUNCATE task_logs`)).rejects.toThrow(/append-only/);
    const c = await t.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query(`SET LOCAL tickflow.retention = 'on'`);
      // even inside retention an UPDATE is refused
      await expect(c.query(`UPDATE task_logs SET message = 'x'`)).rejects.toThrow(/append-only/);
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
  });
});

describe('other system jobs', () => {
  it('idempotency keys older than 24 h are deleted in batches', async () => {
    for (let i = 0; i < 7; i++) {
      await t.pool.query(
        `INSERT INTO idempotency_keys (key, operation, request_hash, status_code, response, created_by, created_at) VALUES ($1, 'op', 'h', 201, '{}', 'test', $2)`,
        [`k${i}`, new Date(NOW.getTime() - (i < 5 ? 25 : 23) * 3_600_000)],
      );
    }
    const r = await deleteExpiredIdempotencyKeys(t.db, { batchSize: 2 }, NOW);
    expect(r.deleted).toBe(5);
    expect(await count(`SELECT count(*)::int AS n FROM idempotency_keys`)).toBe(2);
  });

  it('an expired key is deleted without the fresh row of another principal that used the same key', async () => {
    await t.pool.query(`DELETE FROM idempotency_keys`);
    for (const [by, hours] of [['token:a', 25], ['token:b', 1]] as const) {
      await t.pool.query(
        `INSERT INTO idempotency_keys (key, operation, request_hash, status_code, response, created_by, created_at) VALUES ('shared', 'op', 'h', 201, '{}', $1, $2)`,
        [by, new Date(NOW.getTime() - hours * 3_600_000)],
      );
    }
    expect((await deleteExpiredIdempotencyKeys(t.db, {}, NOW)).deleted).toBe(1);
    expect((await t.pool.query(`SELECT created_by FROM idempotency_keys`)).rows).toEqual([{ created_by: 'token:b' }]);
  });

  it('system jobs are seeded once and look like ordinary jobs', async () => {
    const created = await ensureSystemJobs(t.db, NOW);
    expect(created.sort()).toEqual(Object.values(SYSTEM_HANDLERS).sort());
    expect(systemJobInputs().map((j) => j.key)).toEqual(Object.values(SYSTEM_HANDLERS));
    const jobs = await t.db.job.findMany({ where: { key: { startsWith: 'system.' } }, include: { steps: true } });
    expect(jobs).toHaveLength(4);
    for (const j of jobs) {
      expect(j.status).toBe('active');
      expect(j.scheduleKind).toBe('cron');
      expect(j.nextRunAt).not.toBeNull();
      expect(j.steps.map((s) => s.handler)).toEqual([j.key]);
    }
    // No user may delete one: only the system creates it, so a deleted one would be gone for good
    // (restore needs the system, and the next start does not re-create a job it seeded).
    const stats = jobs.find((j) => j.key === SYSTEM_HANDLERS.statsCheck)!;
    const operator: Actor = { kind: 'user', id: 'op', name: 'op@example.com', role: 'operator' };
    const admin: Actor = { kind: 'user', id: 'ad', name: 'ad@example.com', role: 'admin' };
    for (const who of [operator, admin]) {
      await expect(deleteJob(t.db, stats.id, who, {}, NOW)).rejects.toMatchObject({ code: 'forbidden', message: expect.stringMatching(/^System jobs cannot be deleted: system\.stats-check keeps Tickflow running.*Pause it to stop it/) });
    }
    expect(await t.db.job.count({ where: { key: SYSTEM_HANDLERS.statsCheck, deletedAt: null } })).toBe(1);
    // One deleted before this rule (here by the system itself) is not re-created; an admin may
    // restore it (its command is the system's own), an operator may not, and no user may purge it.
    await deleteJob(t.db, stats.id, SYSTEM_ACTOR, {}, NOW);
    expect(await ensureSystemJobs(t.db, NOW)).toEqual([]);
    expect(await t.db.job.count({ where: { key: SYSTEM_HANDLERS.statsCheck, deletedAt: null } })).toBe(0);
    await expect(purgeJob(t.db, stats.id, admin)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(restoreJob(t.db, stats.id, operator, {}, NOW)).rejects.toMatchObject({ code: 'forbidden' });
    expect((await restoreJob(t.db, stats.id, admin, {}, NOW)).deletedAt).toBeNull();
  });

  it('system.recycle-bin-purge runs through the engine and purges jobs deleted long ago', async () => {
    // handlers run on the worker's wall clock (they take no injected now): dates relative to it
    const REAL = Date.now();
    const gone = await createJob(t.db, { key: `bin.${++n}`, name: 'bin', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, SYSTEM_ACTOR, new Date(REAL - 90 * DAY));
    await deleteJob(t.db, gone.id, SYSTEM_ACTOR, {}, new Date(REAL - 31 * DAY));
    const fresh = await createJob(t.db, { key: `bin.${++n}`, name: 'bin', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, SYSTEM_ACTOR, new Date(REAL - 90 * DAY));
    await deleteJob(t.db, fresh.id, SYSTEM_ACTOR, {}, new Date(REAL - 2 * DAY));

    const sys = await t.db.job.findFirstOrThrow({ where: { key: SYSTEM_HANDLERS.recycleBinPurge, deletedAt: null } });
    await triggerRun(t.db, { jobId: sys.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: NOW }, NOW);
    const [task] = await claimTasks(t.db, { nodeId: 'sys', handlers: Object.values(SYSTEM_HANDLERS), group: 'default', labels: {}, limit: 1, leaseSeconds: 60 }, NOW);
    expect(task.handler).toBe(SYSTEM_HANDLERS.recycleBinPurge);
    const handlers = createSystemHandlers(() => t.db);
    const ctx = { payload: task.payload, config: task.config, attempt: task.attempt, taskId: task.id, runId: task.runId, signal: new AbortController().signal, log: log('test'), taskLog: loggerTaskLog(log('test')), progress: () => undefined, timeoutMs: 60_000 };
    const output = (await handlers[task.handler](ctx)) as { purged: string[] };
    expect(output.purged).toContain(gone.id);
    expect(output.purged).not.toContain(fresh.id);
    const done = await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: 'sys', outcome: 'success', output }, new Date(NOW.getTime() + 100));
    expect(done.runStatus).toBe('success');
    expect(await t.db.job.count({ where: { id: gone.id } })).toBe(0);
    expect(await t.db.job.count({ where: { id: fresh.id } })).toBe(1);
  });

  it('worker nodes offline or stopped for longer than the retention are deleted, unless they still hold a running task', async () => {
    const node = async (nodeId: string, status: string, daysAgo: number) => t.pool.query(
      `INSERT INTO worker_nodes (node_id, name, host, pid, status, last_heartbeat_at) VALUES ($1, $1, 'h', 1, $2, $3)`,
      [nodeId, status, new Date(NOW.getTime() - daysAgo * DAY)],
    );
    await node('old-offline', 'offline', 8);
    await node('old-offline-busy', 'offline', 8);
    await node('recent-offline', 'offline', 6);
    await node('old-online', 'online', 8); // not offline yet: the reaper decides that, not retention
    await node('old-stopped', 'stopped', 8); // stopped cleanly: its last heartbeat is the stop
    await node('recent-stopped', 'stopped', 6);
    const job = await createJob(t.db, { key: 'ret.nodes', name: 'n', schedule: { kind: 'manual' }, handler: 'ret.h' }, SYSTEM_ACTOR, NOW);
    await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: NOW }, NOW);
    const [busy] = await claimTasks(t.db, { nodeId: 'old-offline-busy', handlers: ['ret.h'], group: 'default', labels: {}, limit: 1, leaseSeconds: 60 }, NOW);
    expect(busy).toBeDefined();

    const { deleteStaleNodes } = await import('../../lib/engine/nodes/index.ts');
    expect(await deleteStaleNodes(t.db, { olderThanDays: 7 }, NOW)).toEqual(['old-offline', 'old-stopped']);
    const left = (await t.pool.query(`SELECT node_id FROM worker_nodes WHERE node_id IN ('old-offline', 'old-offline-busy', 'recent-offline', 'old-online', 'old-stopped', 'recent-stopped') ORDER BY 1`)).rows.map((r) => r.node_id);
    expect(left).toEqual(['old-offline-busy', 'old-online', 'recent-offline', 'recent-stopped']);
    await completeTask(t.db, { taskId: busy!.id, attempt: busy!.attempt, nodeId: 'old-offline-busy', outcome: 'success' }, NOW);
  });

  it('system.retention and system.idempotency-cleanup handlers honour payload overrides', async () => {
    const handlers = createSystemHandlers(() => t.db);
    const ctx = (payload: Record<string, unknown>) => ({ payload, config: {}, attempt: 1, taskId: 'x', runId: 'x', signal: new AbortController().signal, log: log('test'), taskLog: loggerTaskLog(log('test')), progress: () => undefined, timeoutMs: 60_000 });
    const r = (await handlers[SYSTEM_HANDLERS.retention](ctx({ olderThanDays: 10_000, nodeOlderThanDays: 10_000 }))) as { runs: number; staleNodes: number };
    expect(r).toMatchObject({ runs: 0, staleNodes: 0 });
    const k = (await handlers[SYSTEM_HANDLERS.idempotencyCleanup](ctx({ olderThanHours: 1 }))) as { deleted: number };
    expect(k.deleted).toBeGreaterThanOrEqual(0);
  });

  it('system.stats-check fails its run and raises an alarm when the table drifted', async () => {
    const job = await createJob(t.db, { key: 'stats.check.copy', name: 'check', schedule: { kind: 'manual' }, handler: SYSTEM_HANDLERS.statsCheck, alarms: { onFailure: true, channels: [{ type: 'log', target: '' }] } }, SYSTEM_ACTOR, NOW);
    const handlers = createSystemHandlers(() => t.db);
    const today = new Date().toISOString().slice(0, 10);
    const { run } = await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() }, new Date());
    const ctx = { payload: {}, config: {}, attempt: 1, taskId: 'x', runId: run.id, signal: new AbortController().signal, log: log('test'), taskLog: loggerTaskLog(log('test')), progress: () => undefined, timeoutMs: 60_000 };
    // consistent: passes
    expect(await handlers[SYSTEM_HANDLERS.statsCheck](ctx)).toMatchObject({ drift: 0 });
    // a row no task produced today
    await t.pool.query(`INSERT INTO handler_stats_daily (stat_date, handler, success) VALUES ($1, 'phantom', 1)`, [today]);
    await expect(handlers[SYSTEM_HANDLERS.statsCheck](ctx)).rejects.toThrow(/stats drift on 1/);
    const alarm = await t.db.alarm.findFirstOrThrow({ where: { jobId: job.id } });
    expect(alarm).toMatchObject({ type: 'failure', channel: 'log', runId: run.id });
    expect((alarm.content as { drift: string[] }).drift[0]).toContain('phantom');
  });
});
