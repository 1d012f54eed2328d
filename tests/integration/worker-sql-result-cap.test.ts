/**
 * The `sql` executor keeps a bounded part of what a statement returns (worker/handlers/sql-rows.ts
 * runCapped): at most SQL_ROW_CAP rows and SQL_ROWS_BYTE_CAP bytes of their JSON, the rest read
 * and dropped row by row, so a step returning gigabytes costs the worker no memory.
 */
import pg from 'pg';
import { afterAll, describe, expect, it, inject } from 'vitest';
import { sqlRunnerRoleName } from '../../worker/handlers/sql-restricted-role.ts';
import { runCapped, SQL_ROW_CAP, SQL_ROWS_BYTE_CAP } from '../../worker/handlers/sql-rows.ts';
import { createWorker } from '../../worker/create-worker.ts';
import { TASK_OUTPUT_CAP_BYTES } from '../../worker/output.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { testWorkerConfig, triggerOneTask, useWorkers, waitFor, waitForFinalTask } from './worker-fixtures.ts';

const t = useTestDatabase({
  afterClose: async () => {
    const c = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await c.connect();
    await c.query(`DROP ROLE IF EXISTS "${sqlRunnerRoleName(t.name)}"`).catch(() => undefined);
    await c.end();
  },
});
const workers = useWorkers();

let client: pg.PoolClient | null = null;
async function conn(): Promise<pg.PoolClient> {
  client ??= await t.pool.connect();
  return client;
}
afterAll(() => client?.release());

describe('runCapped', () => {
  it('node-postgres keeps no rows of a query read through row events (what runCapped relies on)', async () => {
    const q = new pg.Query({ text: 'SELECT g FROM generate_series(1, 3) g', values: [] });
    let seen = 0;
    q.on('row', () => seen++);
    const ended = new Promise<pg.QueryResult>((resolve, reject) => {
      q.on('end', resolve);
      q.on('error', reject);
    });
    void (await conn()).query(q);
    const res = await ended;
    expect(seen).toBe(3);
    expect(res.rows).toEqual([]);
    expect(res.rowCount).toBe(3);
  });

  it('keeps at most SQL_ROW_CAP rows and counts them all', async () => {
    const res = await runCapped(await conn(), 'SELECT g FROM generate_series(1, $1::int) g', [SQL_ROW_CAP + 500]);
    expect(res).toMatchObject({ command: 'SELECT', rowCount: SQL_ROW_CAP + 500, truncated: { received: SQL_ROW_CAP + 500 } });
    expect(res.rows).toHaveLength(SQL_ROW_CAP);
    expect(res.rows[0]).toEqual({ g: 1 });
  });

  it('keeps at most SQL_ROWS_BYTE_CAP bytes of JSON', async () => {
    const width = 300_000;
    const res = await runCapped(await conn(), `SELECT repeat('x', ${width}) AS x FROM generate_series(1, 10)`, []);
    expect(res.rowCount).toBe(10);
    expect(res.rows).toHaveLength(Math.floor(SQL_ROWS_BYTE_CAP / (width + '{"x":""}'.length + 1)));
    expect(res.truncated).toEqual({ received: 10 });
  });

  it('reports the last statement of a multi-statement text, and no truncation when everything fits', async () => {
    const res = await runCapped(await conn(), 'SELECT 1 AS a; SELECT g AS b FROM generate_series(1, 2) g', []);
    expect(res).toEqual({ command: 'SELECT', rowCount: 2, rows: [{ b: 1 }, { b: 2 }] });
    const write = await runCapped(await conn(), 'CREATE TEMP TABLE cap_t (x int); INSERT INTO cap_t SELECT generate_series(1, 4)', []);
    expect(write).toEqual({ command: 'INSERT', rowCount: 4, rows: [] });
  });

  it('rejects with the statement error', async () => {
    await expect(runCapped(await conn(), 'SELECT 1/0', [])).rejects.toThrow(/division by zero/);
    await expect(runCapped(await conn(), 'SELECT 1; SELECT nope', [])).rejects.toThrow(/column "nope" does not exist/);
  });
});

describe('a sql step returning more than the output holds', () => {
  it('rows that fill the task output cap leave room for the output\'s other fields: stored as rows, not a preview', async () => {
    const w = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim', 'reap'] }) });
    workers.push(w);
    await w.start();
    // two rows of JSON `{"pad":"x…"}` + separator that together take the whole task output cap (worker/output.ts)
    const width = Math.floor(TASK_OUTPUT_CAP_BYTES / 2) - '{"pad":""}'.length - 1;
    const id = await triggerOneTask(t.db, { steps: [{ handler: 'sql', payload: { sql: `SELECT repeat('x', ${width}) AS pad FROM generate_series(1, 3)` } }] });
    const task = await waitForFinalTask(t.db, id, 30_000);
    expect(task.status).toBe('success');
    expect(task.output).toMatchObject({ rowCount: 3, truncated: true });
    expect((task.output as { rows: unknown[] }).rows).toHaveLength(1);
  });

  it('succeeds with the first rows that fit, the statement\'s row count and a log line saying what was kept', async () => {
    const w = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim', 'reap'] }) });
    workers.push(w);
    await w.start();
    const id = await triggerOneTask(t.db, { steps: [{ handler: 'sql', payload: { sql: `SELECT repeat('y', 300000) AS y FROM generate_series(1, 40)` } }] });
    const task = await waitForFinalTask(t.db, id, 30_000);
    expect(task.status).toBe('success');
    const output = task.output as { rowCount: number; rows: unknown[]; truncated?: boolean };
    expect(output).not.toHaveProperty('outputTruncated');
    expect(output.rowCount).toBe(40);
    expect(output.rows).toHaveLength(3);
    expect(output.truncated).toBe(true);
    // task log lines are written in batches beside the completion (worker/task-log-writer.ts)
    await waitFor(
      async () => (await t.pool.query(`SELECT 1 FROM task_log_lines WHERE task_id = $1 AND text LIKE 'output keeps the first 3 of 40 row(s)%'`, [id])).rowCount,
      10_000,
      'the log line saying what the output kept',
    );
  });
});
