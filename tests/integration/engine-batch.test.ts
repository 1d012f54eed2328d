/**
 * engine completeTasks: several completions of one node, the one-step
 * successes in one statement and one commit (sql/complete-only-tasks.ts), the
 * rest through the general path — with the same results, logs, counters and
 * stats as completing them one by one.
 */
import { describe, expect, it } from 'vitest';
import { completeTasks, triggerRun } from '../../lib/engine/index.ts';
import type { ClaimedTask } from '../../lib/engine/types.ts';
import { rebuildStats } from '../../lib/stats/rebuild-stats.ts';
import { createPrismaClient } from '../../lib/db.ts';
import { selectLastRun } from '../../lib/engine/sql/last-runs.ts';
import { mergeStatsSlots } from '../../lib/stats/merge-slots.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { NODE, T0, at, claim, insertJob, logsOf } from './engine-fixtures.ts';

const t = useTestDatabase();

const handlers = ['batch.a', 'batch.b'];
const fire = (jobId: string) => triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
const success = (c: ClaimedTask, over: { attempt?: number; output?: unknown } = {}) => ({
  taskId: c.id, attempt: over.attempt ?? c.attempt, nodeId: NODE.nodeId, outcome: 'success' as const, onlyTask: c.onlyTask,
  output: 'output' in over ? over.output : { n: c.id.slice(0, 4) },
});

describe('completeTasks', () => {
  it('one-step successes in one statement, a DAG task and a stale attempt beside them; counters and stats as if one by one', async () => {
    const oneStep = [
      ...(await Promise.all([0, 1, 2].map(() => insertJob(t.db, { steps: [{ key: 'main', handler: 'batch.a' }] })))),
      ...(await Promise.all([0, 1].map(() => insertJob(t.db, { steps: [{ key: 'main', handler: 'batch.b' }] })))),
    ];
    const dag = await insertJob(t.db, { steps: [{ key: 'a', handler: 'batch.a' }, { key: 'b', handler: 'batch.b' }], edges: [{ from: 'a', to: 'b' }] });
    for (const id of [...oneStep, dag]) await fire(id);
    const claimed = await claim(t.db, at(40), { handlers, limit: 100 });
    expect(claimed).toHaveLength(6);
    const dagRoot = claimed.find((c) => !c.onlyTask)!;
    const singles = claimed.filter((c) => c.onlyTask);
    const [stale, ...fresh] = singles;

    const inputs = [success(dagRoot), success(stale!, { attempt: 2 }), ...fresh.map((c, i) => success(c, i === 0 ? { output: null } : {}))];
    const results = await completeTasks(t.db, inputs, at(160));
    expect(results.map((r) => r.status)).toEqual(inputs.map(() => 'fulfilled'));
    const values = results.map((r) => (r.status === 'fulfilled' ? r.value : null));
    expect(values[0]).toMatchObject({ applied: true, task: { id: dagRoot.id, status: 'success' } });
    expect(values[0]!.runStatus).toBeUndefined(); // its run goes on with step b
    expect(values[1]).toEqual({ applied: false }); // stale attempt: nothing changed
    for (const [i, c] of fresh.entries()) {
      expect(values[i + 2]).toEqual({ applied: true, task: { id: c.id, runId: c.runId, status: 'success', attempt: 1 }, runStatus: 'success' });
    }

    const staleRow = await t.db.task.findUniqueOrThrow({ where: { id: stale!.id } });
    expect(staleRow.status).toBe('running');
    // its own attempt completes next, in a batch of one
    const [late] = await completeTasks(t.db, [success(stale!)], at(200));
    expect(late).toMatchObject({ status: 'fulfilled', value: { applied: true, runStatus: 'success' } });

    for (const c of fresh) {
      const row = await t.db.task.findUniqueOrThrow({ where: { id: c.id } });
      expect(row).toMatchObject({ status: 'success', leaseUntil: null, lockedBy: NODE.nodeId });
      expect(row.completedAt).toEqual(at(160));
      const logs = await logsOf(t.db, c.id);
      expect(logs.map((l) => `${l.fromStatus}>${l.toStatus}`)).toEqual(['null>pending', 'pending>running', 'running>success']);
      expect(logs[2]!.detail).toEqual({ durationMs: 120 });
      const run = await t.db.run.findUniqueOrThrow({ where: { id: c.runId } });
      expect(run).toMatchObject({ status: 'success', durationMs: 120 });
    }
    // a JSON null output stays the JSON value null, as in a single completion
    const nullOut = await t.pool.query(`SELECT output IS NULL AS sql_null, output::text AS text FROM tasks WHERE id = $1`, [fresh[0]!.id]);
    expect(nullOut.rows[0]).toEqual({ sql_null: false, text: 'null' });
    const jobs = await t.db.job.findMany({ where: { id: { in: oneStep } } });
    const lastRuns = await Promise.all(jobs.map((j) => selectLastRun(t.db, j)));
    expect(jobs.map((j, i) => [j.successRuns, lastRuns[i]?.status, j.consecutiveFailures])).toEqual(oneStep.map(() => [1, 'success', 0]));

    // stats: summed per handler inside the statement; the rebuild from detail rows agrees
    const stats = mergeStatsSlots(await t.db.handlerStatsDaily.findMany({ where: { handler: { in: handlers } }, orderBy: { handler: 'asc' } }));
    // durations: 120 ms for the attempts completed at 160 ms, 160 ms for the stale task's own attempt
    const staleHandler = claimed.find((c) => c.id === stale!.id)!.handler;
    const expectedDuration = (h: string) => claimed.filter((c) => c.handler === h).reduce((a, c) => a + (c.id === stale!.id ? 160 : 120), 0);
    expect(staleHandler).toMatch(/^batch\.[ab]$/);
    expect(stats.map((s) => [s.handler, s.success, Number(s.totalDurationMs), s.latenessCount, Number(s.totalLatenessMs)])).toEqual([
      ['batch.a', 4, expectedDuration('batch.a'), 4, 4 * 40],
      ['batch.b', 2, expectedDuration('batch.b'), 2, 2 * 40],
    ]);
    const date = T0.toISOString().slice(0, 10);
    expect((await rebuildStats(t.db, { from: date, to: date, timeZone: 'UTC' })).drift).toEqual([]);
  });

  it('a batch the database refuses as a whole applies nothing and throws', async () => {
    // its own handler: the DAG of the test above left a ready task of batch.b behind
    const jobs = await Promise.all([0, 1].map(() => insertJob(t.db, { steps: [{ key: 'main', handler: 'batch.poison' }] })));
    for (const id of jobs) await fire(id);
    const [good, poisoned] = await claim(t.db, at(40), { handlers: ['batch.poison'], limit: 100 });
    expect([good?.onlyTask, poisoned?.onlyTask]).toEqual([true, true]);
    // PostgreSQL refuses U+0000 in jsonb (22P05): the whole statement fails
    const bad = success(poisoned!, { output: { s: '\u0000' } });
    await expect(completeTasks(t.db, [success(good!), bad], at(100))).rejects.toThrow(/unsupported Unicode escape sequence|\\u0000/);
    expect((await t.db.task.findMany({ where: { id: { in: [good!.id, poisoned!.id] } } })).map((x) => x.status)).toEqual(['running', 'running']);
    await expect(completeTasks(t.db, [success(good!), { ...success(poisoned!), nodeId: 'node-b' }], at(100))).rejects.toThrow(/one node/);
  });

  it('the engine statements run as named prepared statements, unless TICKFLOW_PREPARED_STATEMENTS=0', async () => {
    const preparedAfterOneCompletion = async () => {
      const db = createPrismaClient(t.url, 1); // one connection: the catalogue below is that session's
      try {
        const jobId = await insertJob(db, { steps: [{ key: 'main', handler: 'batch.prep' }] });
        await triggerRun(db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
        const [c] = await claim(db, at(40), { handlers: ['batch.prep'] });
        await completeTasks(db, [success(c!)], at(100));
        const rows = await db.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM pg_prepared_statements ORDER BY name`);
        return rows.map((r) => r.name.replace(/_[0-9a-f]{16}$/, ''));
      } finally {
        await db.$disconnect();
      }
    };
    const names = await preparedAfterOneCompletion();
    expect(names).toEqual(expect.arrayContaining(['tf_insert-runs', 'tf_complete-only-tasks']));
    expect(names.every((n) => n.startsWith('tf_'))).toBe(true); // Prisma's own queries and the claim stay unnamed

    process.env.TICKFLOW_PREPARED_STATEMENTS = '0';
    try {
      expect(await preparedAfterOneCompletion()).toEqual([]);
    } finally {
      delete process.env.TICKFLOW_PREPARED_STATEMENTS;
    }
  });
});
