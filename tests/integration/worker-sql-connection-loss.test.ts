/**
 * A `sql` attempt whose connection is terminated under it (another step's pg_terminate_backend,
 * a DBA ending a runaway query, a database restart) fails that attempt, and only that attempt:
 * the worker process carries on claiming (worker/handlers/sql.ts listens for the checked-out
 * client's 'error' event, which pg-pool leaves unhandled while a client is checked out; without a
 * listener node-postgres' "Connection terminated unexpectedly" was an uncaught 'error' event that
 * ended the whole worker process and every task on it).
 */
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/db.ts';
import { triggerOneTask, useSpawnedWorkers, waitFor, waitForFinalTask, type WorkerProcess } from './worker-fixtures.ts';
import { createPrismaClient, directSqlPool } from '../../lib/db.ts';

const t = useTestDatabase();
const { start } = useSpawnedWorkers(t);

const running = (p: WorkerProcess) => p.child.exitCode === null && p.child.signalCode === null;

/** pid of the backend running a statement whose text contains `marker` (not this test's own). */
async function backendRunning(marker: string): Promise<number | undefined> {
  const r = await t.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
    [`%${marker}%`],
  );
  return r.rows[0]?.pid;
}

describe('sql: a terminated connection fails its attempt, not the worker', () => {
  it("job K's pg_terminate_backend of job B's backend (same restricted role): B fails with a clear error, the worker lives on and claims", async () => {
    const w = start();
    await w.ready;
    const b = await triggerOneTask(t.db, { timeoutSeconds: 60, steps: [{ handler: 'sql', config: { sql: 'select pg_sleep(20) /* job-b */' } }] });
    await waitFor(() => backendRunning('job-b'), 30_000, "job B's backend running");
    const k = await triggerOneTask(t.db, {
      steps: [{ handler: 'sql', config: { sql: 'select pid, pg_terminate_backend(pid) from pg_stat_activity where usename = current_user and pid <> pg_backend_pid()' } }],
    });
    const killed = await waitForFinalTask(t.db, k, 20_000);
    expect({ status: killed.status, error: killed.error }).toEqual({ status: 'success', error: null });
    const victim = await waitForFinalTask(t.db, b, 20_000);
    expect(victim.status).toBe('dead');
    expect(victim.error).toMatch(/connection terminated/i);
    expect(running(w)).toBe(true);
    // still claiming, and its sql pool opens new connections
    const after = await waitForFinalTask(t.db, await triggerOneTask(t.db, { steps: [{ handler: 'sql', config: { sql: 'select 1 as one' } }] }), 20_000);
    expect({ status: after.status, output: after.output }).toMatchObject({ status: 'success', output: { rows: [{ one: 1 }] } });
    expect(running(w)).toBe(true);
    expect(w.output()).not.toMatch(/Emitted 'error' event/);
  }, 90_000);

  it('a DBA terminating the running statement (the Tickflow user, not the role): same', async () => {
    const w = start();
    await w.ready;
    const b = await triggerOneTask(t.db, { timeoutSeconds: 60, steps: [{ handler: 'sql', config: { sql: 'select pg_sleep(20) /* runaway */' } }] });
    const pid = await waitFor(() => backendRunning('runaway'), 30_000, 'the runaway backend');
    await t.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    const victim = await waitForFinalTask(t.db, b, 20_000);
    expect(victim.status).toBe('dead');
    expect(victim.error).toMatch(/connection terminated/i);
    const after = await waitForFinalTask(t.db, await triggerOneTask(t.db, { steps: [{ handler: 'builtin.noop' }] }), 20_000);
    expect(after.status).toBe('success');
    expect(running(w)).toBe(true);
  }, 90_000);

  it("an idle connection of a Prisma client's pool used only through directSqlPool: its termination is not an uncaught error", async () => {
    // lib/db.ts createPrismaClient: Prisma's adapter listens for the pool's errors only once its
    // engine connected; a client whose statements all went through directSqlPool never did.
    const db = createPrismaClient(t.url, 2);
    try {
      const pool = directSqlPool(db)!;
      const [{ pid }] = await pool.$queryRawUnsafe<{ pid: number }[]>(`SELECT pg_backend_pid() AS pid /* idle-direct */`);
      await t.pool.query('SELECT pg_terminate_backend($1)', [pid]);
      await waitFor(async () => (await t.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0, 5000, 'the backend gone');
      await new Promise((r) => setTimeout(r, 200));
      const rows = await pool.$queryRawUnsafe<{ one: number }[]>('SELECT 1 AS one');
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await db.$disconnect();
    }
  });
});
