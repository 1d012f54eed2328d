/**
 * What a handler hands the worker may be hostile to read: a Proxy whose traps throw, thrown or returned,
 * or log fields whose getter throws. The attempt is recorded at once with a readable error (never left
 * for the reaper as a lost lease), a log call never throws into the handler, and the worker goes on.
 */
import { describe, expect, it } from 'vitest';
import { createWorker, type Worker } from '../../worker/create-worker.ts';
import type { Handler } from '../../worker/handlers/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { testWorkerConfig, triggerOneTask, useWorkers, waitForFinalTask } from './worker-fixtures.ts';

const t = useTestDatabase();
const workers = useWorkers();

const trap = () =>
  new Proxy(
    {},
    {
      get(_t, key) {
        if (key === 'then') return undefined; // else the promise's own resolution already fails on it
        throw new Error('get trap');
      },
      getPrototypeOf() {
        throw new Error('getPrototypeOf trap');
      },
      ownKeys() {
        throw new Error('ownKeys trap');
      },
    },
  );

const handlers: Record<string, Handler> = {
  'test.throw-proxy': async () => {
    throw trap();
  },
  'test.return-proxy': async () => trap(),
  'test.log-throwing-getter': async (ctx) => {
    ctx.taskLog.info('with a getter', {
      get bad() {
        throw new Error('getter');
      },
    } as never);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    ctx.taskLog.info('with a cycle', cyclic as never);
    ctx.taskLog.write?.({ level: 'info', stream: 'log', text: trap() as never });
    return { logged: true };
  },
};

async function startWorker(): Promise<Worker> {
  // a lease far longer than the test: only the worker's own recording can end these tasks in time
  const w = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim'], leaseSeconds: 120 }), handlers });
  workers.push(w);
  await w.start();
  return w;
}

describe('hostile values from a handler', () => {
  it('a thrown or returned Proxy fails the attempt at once with a readable error', async () => {
    await startWorker();
    const thrown = await triggerOneTask(t.db, { steps: [{ handler: 'test.throw-proxy' }] });
    const returned = await triggerOneTask(t.db, { steps: [{ handler: 'test.return-proxy' }] });
    const a = await waitForFinalTask(t.db, thrown, 8000);
    expect(a).toMatchObject({ status: 'dead', attempt: 1 });
    expect(a.error).toMatch(/cannot be (read|described)|getPrototypeOf trap|get trap/);
    const b = await waitForFinalTask(t.db, returned, 8000);
    expect(b).toMatchObject({ status: 'dead', attempt: 1 });
    expect(b.error).toMatch(/result (cannot be read|is not JSON)/);
    const next = await triggerOneTask(t.db, { steps: [{ handler: 'builtin.echo', payload: { still: 'alive' } }] });
    expect(await waitForFinalTask(t.db, next, 8000)).toMatchObject({ status: 'success', output: { still: 'alive' } });
  }, 20_000);

  it('log fields or text that cannot be read store a line instead of throwing into the handler', async () => {
    await startWorker();
    const id = await triggerOneTask(t.db, { steps: [{ handler: 'test.log-throwing-getter' }] });
    expect(await waitForFinalTask(t.db, id, 8000)).toMatchObject({ status: 'success', output: { logged: true } });
    const lines = async () =>
      (await t.pool.query<{ text: string; fields: unknown }>(`SELECT text, fields FROM task_log_lines WHERE task_id = $1 AND stream = 'log' ORDER BY seq`, [id])).rows;
    let rows = await lines();
    for (let i = 0; i < 100 && rows.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await lines();
    }
    expect(rows.map((r) => r.text)).toEqual(['with a getter', 'with a cycle', '(a value that cannot be written as text)']);
    expect(rows[0]!.fields).toEqual({ fieldsUnserialisable: expect.stringMatching(/getter/) });
    expect(rows[1]!.fields).toEqual({ fieldsUnserialisable: expect.stringMatching(/circular/i) });
  }, 20_000);
});
