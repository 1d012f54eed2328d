/**
 * A `sql` statement cannot outlive its attempt's timeout or Cancel by catching the cancel: a
 * PL/pgSQL loop with `EXCEPTION WHEN query_canceled` ignores pg_cancel_backend (and its own
 * statement_timeout), so worker/handlers/sql.ts terminates the backend SQL_TERMINATE_GRACE_MS
 * after the cancel. The backend is gone, the attempt ends (timeout / cancelled), and the worker's
 * slot is free again — a real worker process with one slot runs the next task.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cancelRun } from '../../lib/engine/index.ts';
import { SQL_TERMINATE_GRACE_MS } from '../../worker/handlers/sql.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { triggerOneTask, useSpawnedWorkers, waitFor, waitForFinalTask, type WorkerProcess } from './worker-fixtures.ts';

const t = useTestDatabase();
const workers = useSpawnedWorkers(t, { TICKFLOW_DB_POOL: '4', TICKFLOW_CONCURRENCY: '1', TICKFLOW_PREFETCH_MULTIPLIER: '1' });
afterEach(async () => {
  // nothing this file started may go on running in the shared server
  await t.pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%ignores-cancel%' AND pid <> pg_backend_pid()`);
});

/** One slot: the next task runs only once the stubborn attempt gave its slot back. */
function start(): WorkerProcess {
  return workers.start();
}

const STUBBORN = `DO $$ /* ignores-cancel */ BEGIN LOOP BEGIN PERFORM pg_sleep(1000); EXCEPTION WHEN query_canceled THEN RAISE NOTICE 'caught'; END; END LOOP; END $$`;

const backend = async () =>
  (
    await t.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%ignores-cancel%' AND pid <> pg_backend_pid()`,
    )
  ).rows[0]?.pid;

describe('sql: a statement that catches its cancel is terminated', () => {
  it('timeoutSeconds 3: the attempt ends as timed out, the backend is gone, the one slot runs the next task', async () => {
    const w = start();
    await w.ready;
    const id = await triggerOneTask(t.db, { timeoutSeconds: 3, steps: [{ handler: 'sql', config: { sql: STUBBORN } }] });
    await waitFor(backend, 20_000, 'the stubborn backend running');
    const next = await triggerOneTask(t.db, { steps: [{ handler: 'builtin.noop' }] });
    const done = await waitForFinalTask(t.db, id, 3000 + SQL_TERMINATE_GRACE_MS + 10_000);
    expect(done.status).toBe('dead');
    expect(done.error).toMatch(/timed out after 3s/);
    await waitFor(async () => !(await backend()), 5000, 'the stubborn backend gone');
    expect((await waitForFinalTask(t.db, next, 15_000)).status).toBe('success');
    expect(w.child.exitCode).toBeNull();
    expect(w.output()).toMatch(/the statement did not end after its cancel; terminating its backend/);
  }, 60_000);

  it('Cancel run: the run reads cancelled, the backend is gone within the grace, the slot is free', async () => {
    const w = start();
    await w.ready;
    const id = await triggerOneTask(t.db, { timeoutSeconds: 300, steps: [{ handler: 'sql', config: { sql: STUBBORN } }] });
    await waitFor(backend, 20_000, 'the stubborn backend running');
    const row = await t.db.task.findUniqueOrThrow({ where: { id } });
    const next = await triggerOneTask(t.db, { steps: [{ handler: 'builtin.noop' }] });
    const cancelledAt = Date.now();
    await cancelRun(t.db, row.runId, 'test');
    await waitFor(async () => !(await backend()), SQL_TERMINATE_GRACE_MS + 5000, 'the stubborn backend gone');
    const goneMs = Date.now() - cancelledAt;
    expect(goneMs).toBeGreaterThanOrEqual(SQL_TERMINATE_GRACE_MS - 500);
    expect((await t.db.task.findUniqueOrThrow({ where: { id } })).status).toBe('cancelled');
    expect((await waitForFinalTask(t.db, next, 15_000)).status).toBe('success');
    expect(w.child.exitCode).toBeNull();
    console.log(`stubborn backend gone ${goneMs} ms after Cancel run`);
  }, 60_000);
});
