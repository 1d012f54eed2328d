/**
 * The completion statements' week floor (lib/engine/sql/completion-items.ts weekFloorSql): run
 * as the worker runs them — a named prepared statement, a generic plan on the hot-path pool's
 * settings — they open no weekly partition older than their batch's earliest week, so a
 * database with months of history costs them no more than a fresh one (docs/engine.md "The hot
 * path"), and every row they read is reached by a key, never by its week: the floor is a
 * condition on the week, which must not tempt the planner into walking one. The statements
 * still do their work: the results are checked too.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triggerRun } from '../../lib/engine/index.ts';
import type { ClaimedTask } from '../../lib/engine/types.ts';
import { completeDagTasksSql } from '../../lib/engine/sql/complete-dag-tasks.ts';
import { completeOnlyTasksSql } from '../../lib/engine/sql/complete-only-tasks.ts';
import { ensureHistoryPartitions } from '../../lib/system-jobs/history-partitions.ts';
import { createSqlPool, HOT_PATH_SETTINGS, type SqlClient, type SqlPool } from '../../lib/sql-pool.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { NODE, T0, at, claim, insertJob } from './engine-fixtures.ts';

const DAY = 86_400_000;
let t: TestDatabase;
let hot: SqlPool;
beforeAll(async () => {
  t = await createTestDatabase();
  // T0's week (Monday 2026-02-23) and eight weeks of history before it, before any row exists
  await ensureHistoryPartitions(t.db, T0, { from: new Date(T0.getTime() - 8 * 7 * DAY), to: new Date(T0.getTime() + 7 * DAY) });
  hot = createSqlPool(t.url, 1, { settings: HOT_PATH_SETTINGS });
});
afterAll(async () => {
  await hot.$disconnect();
  await t.close();
});

/** A statement value as an SQL literal (the values these statements take: text, numbers, booleans, dates, text arrays). */
const literal = (v: unknown): string =>
  v === null || v === undefined ? 'NULL'
    : v instanceof Date ? pg.escapeLiteral(v.toISOString())
      : Array.isArray(v) ? pg.escapeLiteral(`{${v.map((x) => JSON.stringify(String(x))).join(',')}}`)
        : pg.escapeLiteral(String(v));

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/**
 * The partitions of the history tables a plan reads or writes, by name (tasks_w20260223, …),
 * but for the scans `except` names: a search that must see every week.
 */
function partitionsIn(node: PlanNode, except: (node: PlanNode) => boolean = () => false, out = new Set<string>()): Set<string> {
  const name = node['Relation Name'];
  if (typeof name === 'string' && /^(tasks|runs|task_dependencies)_(w\d{8}|default)$/.test(name) && !except(node)) out.add(name);
  for (const child of node.Plans ?? []) partitionsIn(child, except, out);
  return out;
}

/**
 * Runs a statement function as the worker does — a named prepared statement on one session of
 * the hot-path pool (plan_cache_mode = force_generic_plan) — but under EXPLAIN ANALYZE, and
 * returns its plan (the caller checks the statement's work in the tables).
 */
async function explainPrepared(run: (db: SqlClient) => Promise<unknown>): Promise<PlanNode> {
  const c = await hot.pool.connect();
  try {
    let plan: PlanNode | undefined;
    const explaining: SqlClient = {
      $queryRawUnsafe: async <T,>(q: string, ...values: unknown[]) => {
        // EXPLAIN EXECUTE takes no bind parameters: the values go as literals, typed by the PREPARE
        const args = values.map(literal).join(', ');
        await c.query(`PREPARE floor_probe AS ${q}`);
        try {
          const rows = await c.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE floor_probe(${args})`);
          plan = rows.rows[0]!['QUERY PLAN'][0]!.Plan;
        } finally {
          await c.query('DEALLOCATE floor_probe');
        }
        return [] as T;
      },
      $executeRawUnsafe: async () => { throw new Error('not expected'); },
    };
    await run(explaining);
    return plan!;
  } finally {
    c.release();
  }
}

const item = (c: ClaimedTask) => ({ taskId: c.id, runId: c.runId, jobId: c.jobId, scheduledFor: c.scheduledFor, attempt: c.attempt, output: null, error: null, exitCode: null });
/**
 * The scans of history partitions in a plan that reach no row by a key: each must find its rows
 * by an equality on a key column, never by the week alone (a young week's plan, cached, would
 * otherwise walk the whole week once it has filled: docs/engine.md "The hot path").
 */
function unkeyedScans(node: PlanNode, out: string[] = []): string[] {
  const name = node['Relation Name'];
  if (typeof name === 'string' && /^(tasks|runs|task_dependencies)_/.test(name) && /Scan/.test(node['Node Type'] as string)
    && !/\b(id|parent_task_id|run_id|task_id|job_id) = /.test(String(node['Index Cond'] ?? ''))) {
    out.push(`${name} ${node['Index Name'] ?? ''} ${node['Index Cond'] ?? '(no condition)'}`);
  }
  for (const child of node.Plans ?? []) unkeyedScans(child, out);
  return out;
}

/**
 * The weeks before T0's (Monday 2026-02-23) among the tasks and runs partitions in `parts`; the
 * default partition holds rows of no week and is never pruned. Dependency rows are read by their
 * parent's id alone (task_dependencies_parent_idx has no week), in every week: docs/engine.md.
 */
const oldWeeks = (parts: Set<string>) => [...parts].filter((p) => /^(tasks|runs)_/.test(p) && (/_w(\d{8})$/.exec(p)?.[1] ?? '99999999') < '20260223');

describe('completion statements prune the weeks before their batch (weekFloorSql)', () => {
  it('a DAG completion with a hand-off: no partition of an older week is opened; the step succeeds and its child is handed over', async () => {
    const jobId = await insertJob(t.db, { steps: [{ key: 'a', handler: 'test.work' }, { key: 'b', handler: 'test.work' }], edges: [{ from: 'a', to: 'b' }] });
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
    const [a] = (await claim(t.db, at(10))).filter((c) => c.runId === run.id);
    expect(a?.stepKey).toBe('a');

    const plan = await explainPrepared((db) => completeDagTasksSql(db, {
      nodeId: NODE.nodeId, message: 'test', jobFirst: false, bookStats: true, items: [{ ...item(a!), handoff: true }],
      handoff: { handlers: ['test.work'], group: 'default', labels: {}, leaseSeconds: 30 },
    }, at(20)));
    const parts = partitionsIn(plan);
    expect([...parts]).toContain('tasks_w20260223');
    expect(oldWeeks(parts)).toEqual([]);
    expect(unkeyedScans(plan)).toEqual([]);

    const tasks = await t.db.task.findMany({ where: { runId: run.id }, select: { stepKey: true, status: true, lockedBy: true } });
    expect(Object.fromEntries(tasks.map((x) => [x.stepKey, x.status]))).toEqual({ a: 'success', b: 'running' });
    expect(tasks.find((x) => x.stepKey === 'b')?.lockedBy).toBe(NODE.nodeId);
  });

  it('a one-step completion: no partition of an older week is opened; the run ends', async () => {
    const jobId = await insertJob(t.db, { steps: [{ key: 'only', handler: 'test.work' }] });
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
    const [only] = (await claim(t.db, at(10))).filter((c) => c.runId === run.id);
    expect(only?.onlyTask).toBe(true);

    const plan = await explainPrepared((db) => completeOnlyTasksSql(db, { nodeId: NODE.nodeId, message: 'test', items: [item(only!)] }, at(20)));
    // but the probe for another pending run of the job (it ends the run only when there is
    // none), which must see every week: a backfill queues runs in past weeks
    const parts = partitionsIn(plan, (n) => /^runs_/.test(n['Relation Name'] as string) && /^o(_\d+)?$/.test(n.Alias as string));
    expect([...parts]).toContain('tasks_w20260223');
    expect(oldWeeks(parts)).toEqual([]);
    expect(unkeyedScans(plan)).toEqual([]);

    expect(await t.db.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true } })).toEqual({ status: 'success' });
  });
});
