/**
 * History partitions (prisma/migrations/20261203000000_history_partitions, docs/operations.md
 * "History partitions"): weekly partitions on the run's scheduled_for, created ahead and
 * dropped whole by retention; the keys and foreign keys that still hold across partitions;
 * resource-key exclusion through running_resources; and the copy of existing rows when an
 * installation migrates.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cancelRun, claimTasks, completeTask, releaseHeldResourceKeys, triggerRun } from '../../lib/engine/index.ts';
import { defaultMigrationsDir, migrate } from '../../lib/infra/migrate.ts';
import { ensureHistoryPartitions, listHistoryWeeks, weekStart } from '../../lib/system-jobs/history-partitions.ts';
import { purgeOldRuns } from '../../lib/system-jobs/retention.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { NODE, insertJob } from './engine-fixtures.ts';

const t = useTestDatabase();
const DAY = 86_400_000;
/**
 * A fixed "now" with weeks on both sides of it, independent of the real clock. Every date of this file lies in
 * the past (before the partitioning migration existed): the migration of a fresh test database creates the
 * weeks from the real today to 15 days ahead, and a week it created already is neither "created" here nor empty
 * for the default partition. With future dates (2027, 2030, 2031) the file failed whenever it ran within a few
 * weeks before or during them.
 */
const NOW = new Date('2025-06-18T12:00:00.000Z'); // a Wednesday; its week starts 2025-06-16

const partitionOf = async (table: 'runs' | 'tasks' | 'task_logs', id: string | bigint) => {
  const col = table === 'task_logs' ? 'run_id' : 'id';
  const { rows } = await t.pool.query(`SELECT tableoid::regclass::text AS p FROM ${table} WHERE ${col} = $1 LIMIT 1`, [id]);
  return rows[0]?.p as string | undefined;
};

const fire = (jobId: string, scheduledFor: Date, now = scheduledFor) =>
  triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor }, now);

async function runToSuccess(jobId: string, scheduledFor: Date) {
  const made = await fire(jobId, scheduledFor);
  const claimed = await claimTasks(t.db, { ...NODE, handlers: ['part.work'] }, new Date(scheduledFor.getTime() + 10));
  for (const c of claimed) await completeTask(t.db, { taskId: c.id, attempt: c.attempt, nodeId: NODE.nodeId, outcome: 'success' }, new Date(scheduledFor.getTime() + 20));
  return made.run.id;
}

describe('weekly partitions', () => {
  it('are created ahead, and a run with all it owns lands in the week of its scheduled_for', async () => {
    const created = await ensureHistoryPartitions(t.db, NOW, { from: new Date(NOW.getTime() - 70 * DAY) });
    expect(created[0]!.toISOString()).toBe('2025-04-07T00:00:00.000Z');
    expect(created.at(-1)!.getTime()).toBeGreaterThanOrEqual(NOW.getTime() + 7 * DAY);
    expect(await ensureHistoryPartitions(t.db, NOW, { from: new Date(NOW.getTime() - 70 * DAY) })).toEqual([]);
    const weeks = (await listHistoryWeeks(t.db)).map((w) => w.week.toISOString().slice(0, 10));
    expect(weeks).toContain('2025-06-16');
    expect(weekStart(NOW).toISOString()).toBe('2025-06-16T00:00:00.000Z');

    const jobId = await insertJob(t.db, { steps: [{ key: 'a', handler: 'part.work' }, { key: 'b', handler: 'part.work' }], edges: [{ from: 'a', to: 'b' }] });
    const r = await fire(jobId, NOW);
    expect(await partitionOf('runs', r.run.id)).toBe('runs_w20250616');
    const { rows } = await t.pool.query(`SELECT tableoid::regclass::text AS p, count(*)::int AS n FROM tasks WHERE run_id = $1 GROUP BY 1`, [r.run.id]);
    expect(rows).toEqual([{ p: 'tasks_w20250616', n: 2 }]);
    const deps = await t.pool.query(`SELECT tableoid::regclass::text AS p FROM task_dependencies d WHERE d.task_id IN (SELECT id FROM tasks WHERE run_id = $1)`, [r.run.id]);
    expect(deps.rows).toEqual([{ p: 'task_dependencies_w20250616' }]);
    expect(await partitionOf('task_logs', r.run.id)).toBe('task_logs_w20250616');
    // a week with no partition goes to the default partition
    const far = await fire(jobId, new Date('2025-12-31T00:00:00Z'));
    expect(await partitionOf('runs', far.run.id)).toBe('runs_default');
  });

  it('skip a week whose rows already sit in the default partition', async () => {
    const jobId = await insertJob(t.db, { steps: [{ key: 'm', handler: 'part.work' }] });
    const lonely = new Date('2025-10-08T00:00:00Z'); // week of 2025-10-06
    await fire(jobId, lonely);
    const created = (await ensureHistoryPartitions(t.db, lonely, { from: new Date('2025-09-29T00:00:00Z'), to: new Date('2025-10-20T00:00:00Z') }))
      .map((w) => w.toISOString().slice(0, 10));
    expect(created).toEqual(['2025-09-29', '2025-10-13']);
  });

  it('keep the keys: a task must belong to an existing run of the same scheduled_for, a slot fires once', async () => {
    const jobId = await insertJob(t.db, { steps: [{ key: 'm', handler: 'part.work' }] });
    const r = await fire(jobId, NOW);
    await expect(t.pool.query(`INSERT INTO tasks (run_id, job_id, step_key, handler, scheduled_for) VALUES (gen_random_uuid(), 'j', 'x', 'h', $1)`, [NOW]))
      .rejects.toThrow(/tasks_run_id_fkey_w20250616/);
    await expect(t.pool.query(`INSERT INTO tasks (run_id, job_id, step_key, handler, scheduled_for) VALUES ($1, 'j', 'x', 'h', $2)`, [r.run.id, new Date(NOW.getTime() - 14 * DAY)]))
      .rejects.toThrow(/tasks_run_id_fkey_w20250602/);
    await expect(t.pool.query(`INSERT INTO tasks (run_id, job_id, step_key, handler, scheduled_for) VALUES ($1, 'j', 'm', 'h', $2)`, [r.run.id, NOW]))
      .rejects.toThrow(/duplicate key/); // tasks_run_step_uniq, reported under its partition's index name
    const slot = { jobId, trigger: 'schedule' as const, triggeredBy: 'test', scheduledFor: new Date(NOW.getTime() + 60_000) };
    await triggerRun(t.db, slot, NOW);
    await expect(triggerRun(t.db, slot, NOW)).rejects.toThrow(/runs_schedule_fire_uniq|Unique|unique/);
  });
});

describe('resource keys across partitions', () => {
  it('at most one running task per key, whichever weeks their runs are in; the key is free again when the attempt ends', async () => {
    const handler = 'part.keyed';
    const jobA = await insertJob(t.db, { steps: [{ key: 'm', handler, resourceKey: 'db-migrate' }] });
    const jobB = await insertJob(t.db, { steps: [{ key: 'm', handler, resourceKey: 'db-migrate' }] });
    const older = await fire(jobA, new Date(NOW.getTime() - 21 * DAY), NOW);
    const newer = await fire(jobB, NOW, NOW);
    expect(await partitionOf('runs', older.run.id)).not.toBe(await partitionOf('runs', newer.run.id));
    const node = { ...NODE, handlers: [handler] };
    const first = await claimTasks(t.db, node, NOW);
    expect(first).toHaveLength(1);
    expect(await claimTasks(t.db, { ...node, nodeId: 'node-b' }, NOW)).toHaveLength(0);
    const held = await t.pool.query(`SELECT resource_key, task_id::text FROM running_resources`);
    expect(held.rows).toEqual([{ resource_key: 'db-migrate', task_id: first[0]!.id }]);
    await completeTask(t.db, { taskId: first[0]!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, new Date(NOW.getTime() + 1000));
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM running_resources`)).rows[0].n).toBe(0);
    const second = await claimTasks(t.db, { ...node, nodeId: 'node-b' }, new Date(NOW.getTime() + 2000));
    expect(second).toHaveLength(1);
    // a cancel of the running attempt leaves the key to its worker until the handler returned
    // (lib/engine/held-resource-keys.ts), whichever week the run is in
    await cancelRun(t.db, second[0]!.runId, 'test', new Date(NOW.getTime() + 3000));
    expect((await t.pool.query(`SELECT held_by FROM running_resources`)).rows).toEqual([{ held_by: 'node-b' }]);
    expect(await releaseHeldResourceKeys(t.db, { nodeId: 'node-b', taskIds: [second[0]!.id] })).toEqual(['db-migrate']);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM running_resources`)).rows[0].n).toBe(0);
  });

  it('two claimers racing for tasks of one key in different partitions: one wins', async () => {
    const handler = 'part.race';
    const jobs = await Promise.all([0, 1, 2, 3].map(() => insertJob(t.db, { steps: [{ key: 'm', handler, resourceKey: 'race-key' }] })));
    await Promise.all(jobs.map((j, i) => fire(j, new Date(NOW.getTime() - i * 7 * DAY), NOW)));
    const node = { ...NODE, handlers: [handler], limit: 10 };
    const got = await Promise.all([claimTasks(t.db, { ...node, nodeId: 'r1' }, NOW), claimTasks(t.db, { ...node, nodeId: 'r2' }, NOW)]);
    expect(got.flat()).toHaveLength(1);
  });
});

describe('retention by partition', () => {
  it('drops a week whole once every run in it is past the cutoff, and keeps a week that holds an open run', async () => {
    await ensureHistoryPartitions(t.db, NOW, { from: new Date(NOW.getTime() - 70 * DAY) });
    const jobId = await insertJob(t.db, { steps: [{ key: 'm', handler: 'part.work' }] });
    const oldWeek = new Date('2025-04-09T09:00:00Z'); // week of 2025-04-07, ten weeks before NOW
    const oldRuns = [await runToSuccess(jobId, oldWeek), await runToSuccess(jobId, new Date(oldWeek.getTime() + DAY))];
    // the next week holds one finished run and one still open
    const straddle = new Date('2025-04-15T09:00:00Z');
    const finishedThere = await runToSuccess(jobId, straddle);
    const openJob = await insertJob(t.db, { steps: [{ key: 'm', handler: 'part.never' }] });
    const open = await fire(openJob, new Date(straddle.getTime() + 1000));
    const recent = await runToSuccess(jobId, new Date(NOW.getTime() - DAY));
    // past the cutoff (2025-05-19T12:00Z), but its week (2025-05-19 to 05-26) is not: it waits for the week
    const waitsForItsWeek = await runToSuccess(jobId, new Date('2025-05-19T06:00:00Z'));
    await t.pool.query('ANALYZE runs');

    const r = await purgeOldRuns(t.db, { olderThanDays: 30 }, NOW);
    expect(r.droppedWeeks).toContain('2025-04-07');
    expect(r.droppedWeeks).not.toContain('2025-04-14');
    expect(r.busyWeeks).toEqual([]);
    expect(r.droppedRunsEstimate).toBeGreaterThanOrEqual(2);
    for (const table of ['runs', 'tasks', 'task_dependencies', 'task_logs', 'task_log_lines']) {
      expect((await t.pool.query(`SELECT to_regclass($1) AS c`, [`${table}_w20250407`])).rows[0].c).toBeNull();
    }
    for (const id of oldRuns) expect(await t.db.run.findUnique({ where: { id } })).toBeNull();
    // the kept week: its finished run went row by row, the open one stays with its task
    expect(await t.db.run.findUnique({ where: { id: finishedThere } })).toBeNull();
    expect((await t.db.run.findUniqueOrThrow({ where: { id: open.run.id } })).status).toBe('pending');
    expect(await t.db.task.count({ where: { runId: open.run.id } })).toBe(1);
    expect(r.runs).toBe(1);
    expect((await t.pool.query(`SELECT to_regclass('runs_w20250414') AS c`)).rows[0].c).not.toBeNull();
    expect(await t.db.run.findUnique({ where: { id: recent } })).not.toBeNull();
    expect(await t.db.run.findUnique({ where: { id: waitsForItsWeek } })).not.toBeNull();

    // once its open run is gone, that week goes whole on the next pass
    await cancelRun(t.db, open.run.id, 'test', new Date(straddle.getTime() + 2000));
    const again = await purgeOldRuns(t.db, { olderThanDays: 30 }, NOW);
    expect(again.droppedWeeks).toContain('2025-04-14');
    expect(again.runs).toBe(0);
    // a week later its week is past the cutoff too, and goes whole
    const later = await purgeOldRuns(t.db, { olderThanDays: 30 }, new Date(NOW.getTime() + 7 * DAY));
    expect(later.droppedWeeks).toContain('2025-05-19');
    expect(await t.db.run.findUnique({ where: { id: waitsForItsWeek } })).toBeNull();
  });
});

describe('migrating an installation with history', () => {
  it('copies every run, task, dependency, log row and line into the partitioned tables, keys and resource locks intact', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tickflow-migrations-'));
    const name = `${t.name}_mig`;
    const admin = new URL(t.url);
    const { default: pg } = await import('pg');
    const adminClient = new pg.Client({ connectionString: t.url });
    await adminClient.connect();
    try {
      await adminClient.query(`CREATE DATABASE "${name}"`);
      const all = readdirSync(defaultMigrationsDir()).filter((n) => /^\d{14}_/.test(n)).sort();
      const before = all.filter((n) => n < '20261203000000');
      for (const n of before) cpSync(path.join(defaultMigrationsDir(), n), path.join(dir, n), { recursive: true });
      admin.pathname = `/${name}`;
      const url = admin.toString();
      await migrate(url, dir);
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        const sf = new Date();
        const run = await db.query(`INSERT INTO runs (job_id, job_key, job_version, trigger, triggered_by, scheduled_for, trace_id, status, started_at)
                                    VALUES ('j', 'k', 1, 'manual', 't', $1, 'x', 'running', $1) RETURNING id`, [sf]);
        const runId = run.rows[0].id;
        const a = await db.query(`INSERT INTO tasks (run_id, job_id, step_key, handler, scheduled_for, status, locked_by, lease_until, resource_key)
                                  VALUES ($1, 'j', 'a', 'h', $2, 'running', 'n', now() + interval '1 minute', 'rk') RETURNING id`, [runId, sf]);
        const b = await db.query(`INSERT INTO tasks (run_id, job_id, step_key, handler, scheduled_for, pending_parents) VALUES ($1, 'j', 'b', 'h', $2, 1) RETURNING id`, [runId, sf]);
        await db.query(`INSERT INTO task_dependencies (task_id, parent_task_id) VALUES ($1, $2)`, [b.rows[0].id, a.rows[0].id]);
        await db.query(`INSERT INTO task_logs (task_id, run_id, to_status, message) VALUES ($1, $2, 'pending', 'created'), ($1, $2, 'running', 'claimed')`, [a.rows[0].id, runId]);
        await db.query(`INSERT INTO task_log_lines (task_id, attempt, seq, time, run_id, job_id, text) VALUES ($1, 1, 1, now(), $2, 'j', 'hello')`, [a.rows[0].id, runId]);
        const lastLog = (await db.query(`SELECT max(id)::text AS id FROM task_logs`)).rows[0].id;
        // an orphan log row (its run long gone) must not stop the migration
        await db.query(`INSERT INTO task_logs (task_id, run_id, to_status, message) VALUES (gen_random_uuid(), gen_random_uuid(), 'pending', 'orphan')`);

        const result = await migrate(url);
        expect(result.applied).toContain('20261203000000_history_partitions');
        const count = async (sql: string) => Number((await db.query(sql)).rows[0].n);
        expect(await count(`SELECT count(*) AS n FROM runs`)).toBe(1);
        expect(await count(`SELECT count(*) AS n FROM tasks WHERE run_id = '${runId}' AND scheduled_for = '${sf.toISOString()}'`)).toBe(2);
        expect(await count(`SELECT count(*) AS n FROM task_dependencies`)).toBe(1);
        expect(await count(`SELECT count(*) AS n FROM task_logs`)).toBe(3);
        expect(await count(`SELECT count(*) AS n FROM task_log_lines WHERE scheduled_for = '${sf.toISOString()}'`)).toBe(1);
        expect((await db.query(`SELECT resource_key, task_id::text FROM running_resources`)).rows).toEqual([{ resource_key: 'rk', task_id: a.rows[0].id }]);
        expect((await db.query(`SELECT relkind FROM pg_class WHERE relname = 'runs'`)).rows[0].relkind).toBe('p');
        expect((await db.query(`SELECT tableoid::regclass::text AS p FROM runs`)).rows[0].p).toMatch(/^runs_w\d{8}$/);
        // the id sequence carries on after the copied rows
        const next = await db.query(`INSERT INTO task_logs (task_id, run_id, scheduled_for, to_status) VALUES ($1, $2, $3, 'success') RETURNING id::text`, [a.rows[0].id, runId, sf]);
        expect(BigInt(next.rows[0].id)).toBeGreaterThan(BigInt(lastLog));
      } finally {
        await db.end();
      }
    } finally {
      await adminClient.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await adminClient.end();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
