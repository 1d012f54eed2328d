/**
 * H1: a task's payload or output must never crash or wedge a worker.
 * - `builtin.sleep {ms: 1e100}` used to kill the process (V8 "invalid size
 *   error" building an array of 2^31-1 ms chunks); now the attempt fails with
 *   an error naming payload.ms and the same worker keeps running other tasks.
 * - output PostgreSQL cannot store (U+0000 in jsonb, lone surrogates), huge
 *   outputs and non-Error throws are made storable instead of looping through
 *   completion retries and the reaper.
 */
import { describe, expect, it } from 'vitest';
import { createWorker, type Worker } from '../../worker/create-worker.ts';
import type { Handler } from '../../worker/handlers/index.ts';
import { TASK_OUTPUT_CAP_BYTES } from '../../worker/output.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob, spawnWorker, testWorkerConfig, type JobFixture, triggerOneTask, waitForFinalTask, useWorkers } from './worker-fixtures.ts';

const t = useTestDatabase();
const workers = useWorkers();

const extraHandlers: Record<string, Handler> = {
  'test.nul-output': async () => ({ a: '\u0000', ['k\u0000']: 'lone \ud800 surrogate', ok: 'fine' }),
  'test.nul-error': async () => {
    throw new Error('bad\u0000byte');
  },
  'test.huge-output': async () => ({ big: 'x'.repeat(TASK_OUTPUT_CAP_BYTES * 3) }),
  'test.throw-null': async () => {
    throw null; // eslint-disable-line no-throw-literal
  },
  'test.throw-object': async () => {
    throw { reason: 'nope' }; // eslint-disable-line no-throw-literal
  },
  'test.circular-output': async () => {
    const o: Record<string, unknown> = { ok: true };
    o.self = o;
    return o;
  },
  'test.throw-with-cause': async () => {
    throw new Error('could not load orders', { cause: new Error('connect ECONNREFUSED 10.0.0.5:5432') });
  },
};

async function startWorker(): Promise<Worker> {
  const w = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim', 'reap'] }), handlers: extraHandlers });
  workers.push(w);
  await w.start();
  return w;
}

const runTask = (f: JobFixture) => triggerOneTask(t.db, f);

const finalTask = (id: string, ms = 15_000) => waitForFinalTask(t.db, id, ms);

describe('builtin.sleep {ms: 1e100}', () => {
  it('fails the attempt naming payload.ms; the worker process survives and runs the next task', async () => {
    const w = spawnWorker(t.url);
    try {
      await w.ready;
      const bad = await runTask({ steps: [{ handler: 'builtin.sleep', payload: { ms: 1e100 } }] });
      const x = await finalTask(bad);
      expect(x.status).toBe('dead');
      expect(x.attempt).toBe(1);
      expect(x.error).toMatch(/builtin\.sleep: payload\.ms must be a finite number between 0 and 604800000 ms, got 1e\+100/);
      const inf = await runTask({ steps: [{ handler: 'builtin.sleep', payload: { ms: '1e400' } }] });
      expect((await finalTask(inf)).error).toMatch(/payload\.ms/);
      const next = await runTask({ steps: [{ handler: 'builtin.echo', payload: { after: 'sleep' } }] });
      expect(await finalTask(next)).toMatchObject({ status: 'success', output: { after: 'sleep' } });
      expect(w.child.exitCode).toBeNull();
      expect(w.output()).not.toMatch(/Fatal JavaScript|invalid size error/);
    } finally {
      w.child.kill('SIGTERM');
      await w.exited;
    }
  }, 60_000);
});

describe('outputs PostgreSQL cannot store', () => {
  it('a \\u0000 payload cannot even be stored (so the case is built in-process)', async () => {
    await expect(t.pool.query(`SELECT '{"a":"\\u0000"}'::jsonb`)).rejects.toThrow(/unsupported Unicode escape sequence|cannot be converted/);
  });

  it('U+0000 / lone surrogates in an output or error are replaced, the task completes once, the worker goes on', async () => {
    await startWorker();
    const a = await runTask({ steps: [{ handler: 'test.nul-output' }] });
    const b = await runTask({ steps: [{ handler: 'test.nul-error' }] });
    const xa = await finalTask(a);
    expect(xa).toMatchObject({ status: 'success', attempt: 1, output: { a: '\ufffd', 'k\ufffd': 'lone \ufffd surrogate', ok: 'fine' } });
    const xb = await finalTask(b);
    expect(xb).toMatchObject({ status: 'dead', attempt: 1, error: 'bad\ufffdbyte' });
    const next = await runTask({ steps: [{ handler: 'builtin.echo', payload: { still: 'alive' } }] });
    expect(await finalTask(next)).toMatchObject({ status: 'success', output: { still: 'alive' } });
  });

  it('a huge output is stored as a capped preview', async () => {
    await startWorker();
    const id = await runTask({ steps: [{ handler: 'test.huge-output' }] });
    const x = await finalTask(id);
    expect(x.status).toBe('success');
    expect(x.output).toMatchObject({ outputTruncated: true, originalBytes: TASK_OUTPUT_CAP_BYTES * 3 + 10 });
    expect(JSON.stringify(x.output).length).toBeLessThan(80 * 1024);
  });

  it('a handler throwing a non-Error fails with a readable error', async () => {
    await startWorker();
    const a = await runTask({ steps: [{ handler: 'test.throw-null' }] });
    const b = await runTask({ steps: [{ handler: 'test.throw-object' }] });
    expect(await finalTask(a)).toMatchObject({ status: 'dead', error: 'handler threw null' });
    expect(await finalTask(b)).toMatchObject({ status: 'dead', error: 'handler threw a non-Error: {"reason":"nope"}' });
  });

  it('a result that is not JSON fails the attempt (a success it was not); a thrown error keeps its cause', async () => {
    await startWorker();
    const circular = await runTask({ steps: [{ handler: 'test.circular-output' }] });
    const caused = await runTask({ steps: [{ handler: 'test.throw-with-cause' }] });
    const c = await finalTask(circular);
    expect(c).toMatchObject({ status: 'dead', output: null });
    expect(c.error).toMatch(/^the handler's result is not JSON: .*circular/i);
    expect(await finalTask(caused)).toMatchObject({ status: 'dead', error: 'could not load orders: caused by: connect ECONNREFUSED 10.0.0.5:5432' });
  });
});
