/**
 * Task log lines (docs/task-logs.md) on a real PostgreSQL: the writer's batching, limits
 * and progress coalescing; executors writing lines through a real worker; keyset paging;
 * lease-reclaimed attempts; search; retention; and survival of a kill -9 of a real worker
 * process (every line older than the last flush interval is stored, without gaps).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { SYSTEM_ACTOR, type Actor } from '../../lib/auth/actor.ts';
import { reclaimExpiredLeases } from '../../lib/engine/index.ts';
import { purgeOldRuns } from '../../lib/system-jobs/retention.ts';
import { listTaskLogLines, searchTaskLogLines } from '../../lib/task-logs/index.ts';
import { MAX_LOG_PAGE_BYTES } from '../../lib/task-logs/queries.ts';
import { log } from '../../lib/log.ts';
import { encodeCursor } from '../../lib/api/cursor.ts';
import { createWorker, type Worker } from '../../worker/create-worker.ts';
import type { WorkerConfig } from '../../worker/config.ts';
import { sqlRunnerRoleName } from '../../worker/handlers/index.ts';
import { DEFAULT_TASK_LOG_CONFIG, TaskLogWriter, type Queryable, type TaskLogWriterConfig } from '../../worker/task-log-writer.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { spawnWorker, testWorkerConfig, triggerOneTask, useWorkers, waitFor, waitForFinalTask, type JobFixture } from './worker-fixtures.ts';

const t = useTestDatabase({
  afterClose: async (db) => {
    const c = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await c.connect();
    await c.query(`DROP ROLE IF EXISTS "${sqlRunnerRoleName(db.name)}"`).catch(() => undefined);
    await c.end();
  },
});
const workers = useWorkers();
const VIEWER: Actor = { kind: 'user', id: 'v', name: 'viewer@example.com', role: 'viewer' };

/** A pool wrapper that counts round trips, so a test can prove lines go in batches. */
function countingPool(pool: Queryable): Queryable & { calls: number } {
  const w = {
    calls: 0,
    query(text: string, values?: unknown[]) {
      w.calls++;
      return pool.query(text, values);
    },
  };
  return w;
}

function writer(pool: Queryable, over: Partial<TaskLogWriterConfig> = {}, clock = () => new Date()) {
  return new TaskLogWriter({ ...DEFAULT_TASK_LOG_CONFIG, flushMs: 1000, ...over }, { pool, clock, logger: log('test') });
}

const taskIds = () => ({ taskId: crypto.randomUUID(), runId: crypto.randomUUID(), jobId: 'job-x', scheduledFor: new Date() });

async function lines(taskId: string, attempt = 1) {
  const { rows } = await t.pool.query(
    `SELECT seq, level::text AS level, stream::text AS stream, text, fields, time FROM task_log_lines WHERE task_id = $1 AND attempt = $2 ORDER BY seq`,
    [taskId, attempt],
  );
  return rows as { seq: number; level: string; stream: string; text: string; fields: Record<string, unknown> | null; time: Date }[];
}

async function startWorker(over: Partial<WorkerConfig> = {}): Promise<Worker> {
  const w = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim'], taskLog: { flushMs: 100 }, ...over }) });
  workers.push(w);
  await w.start();
  return w;
}

describe('writer', () => {
  it('sends the lines of many attempts in one statement, numbered per attempt in write order', async () => {
    const pool = countingPool(t.pool);
    const w = writer(pool);
    const a = taskIds();
    const b = taskIds();
    const la = w.open({ ...a, attempt: 1 });
    const lb = w.open({ ...b, attempt: 2 });
    for (let i = 1; i <= 500; i++) {
      la.taskLog.info(`a line ${i}`, { i });
      lb.taskLog.warn(`b line ${i}`);
    }
    expect(pool.calls).toBe(0); // writing never waits for the database
    await w.flush();
    expect(pool.calls).toBe(1);
    const got = await lines(a.taskId);
    expect(got.map((l) => l.seq)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    expect(got[41]).toMatchObject({ seq: 42, level: 'info', stream: 'log', text: 'a line 42', fields: { i: 42 } });
    expect((await lines(b.taskId, 2)).length).toBe(500);
    expect((await lines(b.taskId, 2))[0]).toMatchObject({ level: 'warn', text: 'b line 1' });
    await w.stop();
  });

  it('flushes by itself within the flush interval', async () => {
    const w = writer(t.pool, { flushMs: 100 });
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    const at = Date.now();
    l.taskLog.info('soon stored');
    await waitFor(async () => (await lines(a.taskId)).length === 1, 1000, 'the line to be stored');
    expect(Date.now() - at).toBeLessThan(1000);
    await w.stop();
  });

  it('keeps at most maxLines per attempt and writes one marker saying how much was dropped', async () => {
    const w = writer(t.pool, { maxLines: 10 });
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    for (let i = 1; i <= 25; i++) l.taskLog.info(`line ${i}`);
    l.close();
    await w.flush();
    const got = await lines(a.taskId);
    expect(got).toHaveLength(11);
    expect(got.slice(0, 10).map((x) => x.text)).toEqual(Array.from({ length: 10 }, (_, i) => `line ${i + 1}`));
    expect(got[10]).toMatchObject({ seq: 11, level: 'warn', stream: 'system', fields: { droppedLines: 15, droppedBytes: 15 * 'line 10'.length } });
    expect(got[10]!.text).toMatch(/^15 line\(s\) .* dropped: over the limit of 10 lines/);
    await w.stop();
  });

  it('past a limit stores no later line, even one that would fit, and ends with the latest progress report and the marker', async () => {
    const w = writer(t.pool, { maxLines: 5, maxBytes: 150, maxLineBytes: 120 });
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    l.taskLog.info('first');
    l.progress(1, 4);
    await w.flush(); // sent: a later report cannot replace it in place
    l.taskLog.info('x'.repeat(190)); // over the byte limit: dropped
    l.taskLog.info('short'); // would fit, but stored after the dropped line it would read as its successor
    l.progress(3, 4);
    for (let i = 0; i < 10; i++) l.taskLog.info(`more ${i}`);
    l.progress(4, 4, 'all 4 done');
    l.close();
    await w.flush();
    const got = await lines(a.taskId);
    expect(got.map((x) => [x.seq, x.stream, x.text])).toEqual([
      [1, 'log', 'first'],
      [2, 'progress', '1 / 4'],
      [3, 'progress', 'all 4 done'],
      [4, 'system', expect.stringMatching(/^12 line\(s\) .* dropped: over the limit of 5 lines \/ 150 B/)],
    ]);
    expect(got[2]!.fields).toEqual({ done: 4, total: 4 });
    const times = got.map((x) => x.time.getTime());
    expect(times).toEqual([...times].sort((x, y) => x - y));
    await w.stop();
  });

  it('writes the line saying how the attempt ended past the limits, before the marker', async () => {
    const w = writer(t.pool, { maxLines: 3 });
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    for (let i = 1; i <= 5; i++) l.taskLog.info(`line ${i}`);
    l.close({ level: 'error', text: 'attempt failed: boom' });
    await w.flush();
    expect((await lines(a.taskId)).map((x) => [x.seq, x.stream, x.level, x.text])).toEqual([
      [1, 'log', 'info', 'line 1'],
      [2, 'log', 'info', 'line 2'],
      [3, 'log', 'info', 'line 3'],
      [4, 'system', 'error', 'attempt failed: boom'],
      [5, 'system', 'warn', expect.stringMatching(/^2 line\(s\) .* dropped: over the limit of 3 lines/)],
    ]);
    await w.stop();
  });

  it('keeps at most maxBytes per attempt (text plus fields), cuts a long line, and stores NUL as U+FFFD', async () => {
    const w = writer(t.pool, { maxBytes: 1000, maxLineBytes: 100 });
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    l.taskLog.info('x'.repeat(500)); // cut to 100 bytes + a note
    l.taskLog.info('nul\u0000here');
    for (let i = 0; i < 20; i++) l.taskLog.info('y'.repeat(90));
    l.close();
    await w.flush();
    const got = await lines(a.taskId);
    expect(got[0]!.text).toMatch(/^x{100}… \[400 bytes cut\]$/);
    expect(got[1]!.text).toBe('nul\uFFFDhere');
    const stored = got.filter((x) => x.stream !== 'system');
    const bytes = stored.reduce((n, x) => n + Buffer.byteLength(x.text, 'utf8'), 0);
    expect(bytes).toBeLessThanOrEqual(1000);
    const marker = got[got.length - 1]!;
    expect(marker.stream).toBe('system');
    expect(marker.fields).toMatchObject({ droppedLines: 22 - stored.length });
    await w.stop();
  });

  it('stores fields PostgreSQL would refuse as they would be stored as output (bigint as text, U+FFFD for NUL and lone surrogates)', async () => {
    const w = writer(t.pool);
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    l.taskLog.info('odd fields', { big: 10n, lone: '\ud800x', nul: 'a\u0000b', pair: '\ud83d\ude00' } as unknown as Record<string, unknown>);
    l.taskLog.info('plain "quotes" \\ and \n newline', { nested: { list: [1, 'two', null] } });
    await w.stop();
    const got = await lines(a.taskId);
    expect(got[0]!.fields).toEqual({ big: '10', lone: '\uFFFDx', nul: 'a\uFFFDb', pair: '\ud83d\ude00' });
    expect(got[1]).toMatchObject({ text: 'plain "quotes" \\ and \n newline', fields: { nested: { list: [1, 'two', null] } } });
  });

  it('keeps the name and message of an Error given as fields or as one of them (JSON.stringify writes it as {})', async () => {
    const w = writer(t.pool);
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    const enoent = Object.assign(new Error('open /x: no such file', { cause: new Error('disk gone') }), { code: 'ENOENT' });
    l.taskLog.error('read failed', { err: enoent, file: '/x' });
    l.taskLog.error('as the fields', new TypeError('not a function') as unknown as Record<string, unknown>);
    await w.stop();
    const got = await lines(a.taskId);
    expect(got[0]!.fields).toEqual({ err: { name: 'Error', message: 'open /x: no such file: caused by: disk gone', code: 'ENOENT' }, file: '/x' });
    expect(got[1]!.fields).toEqual({ name: 'TypeError', message: 'not a function' });
  });

  it('a handler in plain JavaScript that logs in pino\'s order, (fields, text) or (error, text), stores the same line', async () => {
    const w = writer(t.pool);
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    const pinoOrder = l.taskLog as unknown as Record<'info' | 'error' | 'warn', (...args: unknown[]) => void>;
    pinoOrder.info({ orderId: 42 }, 'charged');
    pinoOrder.error(Object.assign(new Error('card declined'), { code: 'E_CARD' }), 'charge failed');
    pinoOrder.error(new RangeError('amount out of range'));
    pinoOrder.warn({ skipped: 2 });
    await w.stop();
    const got = await lines(a.taskId);
    expect(got.map((x) => [x.level, x.text, x.fields])).toEqual([
      ['info', 'charged', { orderId: 42 }],
      ['error', 'charge failed', { err: { name: 'Error', message: 'card declined', code: 'E_CARD' } }],
      ['error', 'amount out of range', { err: { name: 'RangeError', message: 'amount out of range' } }],
      ['warn', '', { skipped: 2 }],
    ]);
  });

  it('endAll (a worker ending on an uncaught exception) writes why on every open attempt, past its limits too, and sends it', async () => {
    const w = writer(t.pool, { maxLines: 2 });
    const a = taskIds();
    const b = taskIds();
    const la = w.open({ ...a, attempt: 1 });
    const lb = w.open({ ...b, attempt: 2 });
    for (let i = 1; i <= 4; i++) la.taskLog.info(`a ${i}`);
    lb.taskLog.info('b 1');
    await w.endAll('the worker process stopped: uncaught exception (…): boom', 10_000);
    expect(w.buffered).toBe(0);
    expect((await lines(a.taskId)).map((x) => [x.seq, x.stream, x.level, x.text])).toEqual([
      [1, 'log', 'info', 'a 1'],
      [2, 'log', 'info', 'a 2'],
      [3, 'system', 'error', 'the worker process stopped: uncaught exception (…): boom'],
      [4, 'system', 'warn', expect.stringMatching(/^2 line\(s\) .* dropped/)],
    ]);
    expect((await lines(b.taskId, 2)).map((x) => x.text)).toEqual(['b 1', 'the worker process stopped: uncaught exception (…): boom']);
    await w.stop();
  });

  it('endAll masks in every open attempt\'s line the secret values of any of them: the exception may quote one', async () => {
    const w = writer(t.pool);
    const a = taskIds();
    const b = taskIds();
    w.open({ ...a, attempt: 1 }, ['tok-9f8e7d6c5b4a']);
    w.open({ ...b, attempt: 1 });
    await w.endAll('the worker process stopped: uncaught exception (…): connect to https://x.example/?t=tok-9f8e7d6c5b4a failed', 10_000);
    for (const id of [a.taskId, b.taskId]) expect((await lines(id)).map((x) => x.text)).toEqual(['the worker process stopped: uncaught exception (…): connect to https://x.example/?t=*** failed']);
    await w.stop();
  });

  it('coalesces progress reports made between two flushes into one line with the latest values', async () => {
    const w = writer(t.pool);
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    for (let i = 1; i <= 100; i++) l.progress(i, 100);
    l.taskLog.info('between');
    await w.flush();
    l.progress(100, 100, 'all done');
    await w.flush();
    const got = await lines(a.taskId);
    expect(got.map((x) => [x.seq, x.stream, x.text])).toEqual([
      [1, 'progress', '100 / 100'],
      [2, 'log', 'between'],
      [3, 'progress', 'all done'],
    ]);
    expect(got[0]!.fields).toEqual({ done: 100, total: 100 });
    await w.stop();
  });

  it('keeps write order when a line comes between two progress reports: the later report is a line of its own', async () => {
    const w = writer(t.pool);
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    l.progress(1, 3);
    l.progress(2, 3);
    l.taskLog.info('item 2 done');
    l.progress(3, 3);
    await w.flush();
    const got = await lines(a.taskId);
    expect(got.map((x) => [x.seq, x.stream, x.text])).toEqual([
      [1, 'progress', '2 / 3'],
      [2, 'log', 'item 2 done'],
      [3, 'progress', '3 / 3'],
    ]);
    // seq is write order, and so is time
    const times = got.map((x) => x.time.getTime());
    expect(times).toEqual([...times].sort((x, y) => x - y));
    await w.stop();
  });

  it('keeps a batch the database could not take and sends it on the next flush', async () => {
    let fail = true;
    const flaky: Queryable = {
      query: (text, values) => (fail ? Promise.reject(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' })) : t.pool.query(text, values)),
    };
    const w = writer(flaky);
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    l.taskLog.info('one');
    await w.flush();
    expect(await lines(a.taskId)).toHaveLength(0);
    l.taskLog.info('two');
    fail = false;
    await waitFor(async () => (await lines(a.taskId)).length === 2, 5000, 'the kept lines to be stored');
    expect((await lines(a.taskId)).map((x) => x.text)).toEqual(['one', 'two']);
    await w.stop();
  });

  it('a refused batch is kept whole even when new lines filled the buffer meanwhile (no silent hole)', async () => {
    let failNext = true;
    let refuse: () => void = () => undefined;
    const gated: Queryable = {
      query: (text, values) => {
        if (!failNext) return t.pool.query(text, values);
        failNext = false;
        // the first flush is answered only when the test says, with a refusal
        return new Promise((_, reject) => (refuse = () => reject(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }))));
      },
    };
    const w = writer(gated, { maxBufferedLines: 3, flushMs: 1000 });
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    for (const x of ['one', 'two', 'three']) l.taskLog.info(x);
    const first = w.flush(); // the three lines are in flight
    for (const x of ['four', 'five', 'six']) l.taskLog.info(x); // the buffer is full again
    refuse();
    await first;
    l.close();
    await waitFor(async () => (await lines(a.taskId)).length === 6, 5000, 'every line to be stored');
    expect((await lines(a.taskId)).map((x) => [x.seq, x.text])).toEqual([
      [1, 'one'], [2, 'two'], [3, 'three'], [4, 'four'], [5, 'five'], [6, 'six'],
    ]);
    await w.stop();
  });

  it('a batch stored by a statement whose answer was lost is sent again without a refusal or a duplicate', async () => {
    // the first INSERT commits on the server but its answer never arrives (a statement timeout
    // after a stall, a connection lost after the commit): the writer keeps the batch and resends it
    let lose = true;
    const lossy: Queryable = {
      query: async (text, values) => {
        const r = await t.pool.query(text, values);
        if (lose) {
          lose = false;
          throw Object.assign(new Error('Query read timeout'), {});
        }
        return r;
      },
    };
    const warnings: string[] = [];
    const logger = Object.assign(Object.create(log('test')), { warn: (_o: unknown, msg: string) => warnings.push(msg) });
    const w = new TaskLogWriter({ ...DEFAULT_TASK_LOG_CONFIG, flushMs: 50 }, { pool: lossy, clock: () => new Date(), logger });
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    l.taskLog.info('one');
    l.taskLog.info('two');
    await w.flush();
    l.taskLog.info('three');
    await waitFor(async () => (await lines(a.taskId)).length === 3, 5000, 'the third line');
    await w.stop();
    expect((await lines(a.taskId)).map((x) => x.text)).toEqual(['one', 'two', 'three']);
    expect(warnings.filter((m) => /refused by the database/.test(m))).toEqual([]);
  });

  it('an attempt run again on the same attempt number by another worker numbers its lines on after the first run\'s', async () => {
    // a held task whose worker died a moment after starting it goes back on the same attempt
    // (docs/on-time.md "Prefetch"): the second run's writer must not start at seq 1 again
    const t0 = Date.now() - 60_000;
    const a = taskIds();
    const first = writer(t.pool, {}, () => new Date(t0));
    const l1 = first.open({ ...a, attempt: 1 });
    for (const x of ['a1', 'a2', 'a3']) l1.taskLog.info(x);
    await first.flush();
    await first.stop();
    let now = t0 + 30_000;
    const second = writer(t.pool, {}, () => new Date(now++));
    const l2 = second.open({ ...a, attempt: 1 });
    l2.taskLog.info('b1');
    l2.taskLog.info('b2');
    await second.flush();
    // a later flush of the same opening goes on from the base it learnt
    l2.taskLog.info('b3');
    l2.close({ level: 'info', text: 'b ended' });
    await second.flush();
    await second.stop();
    const stored = await lines(a.taskId);
    expect(stored.map((x) => [x.seq, x.text])).toEqual([[1, 'a1'], [2, 'a2'], [3, 'a3'], [4, 'b1'], [5, 'b2'], [6, 'b3'], [7, 'b ended']]);
    // another attempt of the same task numbers from 1
    const third = writer(t.pool, {}, () => new Date(now++));
    third.open({ ...a, attempt: 2 }).taskLog.info('c1');
    await third.stop();
    expect((await lines(a.taskId, 2)).map((x) => [x.seq, x.text])).toEqual([[1, 'c1']]);
  });

  it('holds at most maxBufferedLines unsent lines; the rest is dropped and counted in the marker', async () => {
    const w = writer(t.pool, { maxBufferedLines: 100 });
    const a = taskIds();
    const l = w.open({ ...a, attempt: 1 });
    for (let i = 1; i <= 150; i++) l.taskLog.info(`held ${i}`);
    l.close();
    await w.stop();
    const got = await lines(a.taskId);
    expect(got).toHaveLength(101);
    expect(got[99]!.text).toBe('held 100');
    expect(got[100]).toMatchObject({ seq: 101, stream: 'system', fields: { droppedLines: 50 } });
    expect(got[100]!.text).toMatch(/^50 line\(s\) .* dropped: 50 while the database could not keep up$/);
  });

  it('the append-only rule: no UPDATE, DELETE only inside retention', async () => {
    const w = writer(t.pool);
    const a = taskIds();
    w.open({ ...a, attempt: 1 }).taskLog.info('fixed');
    await w.flush();
    await expect(t.pool.query(`UPDATE task_log_lines SET text = 'changed' WHERE task_id = $1`, [a.taskId])).rejects.toThrow(/append-only/);
    await expect(t.pool.query(`DELETE FROM task_log_lines WHERE task_id = $1`, [a.taskId])).rejects.toThrow(/append-only/);
    await w.stop();
  });
});

describe('executors write lines through a real worker', () => {
  let server: Server;
  let base: string;
  let savedOutboundAllow: string | undefined;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(req.url?.startsWith('/missing') ? 404 : 200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // this test's server is on loopback: allow exactly it (lib/net/outbound.ts)
    savedOutboundAllow = process.env.TICKFLOW_OUTBOUND_ALLOW;
    process.env.TICKFLOW_OUTBOUND_ALLOW = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    if (savedOutboundAllow === undefined) delete process.env.TICKFLOW_OUTBOUND_ALLOW;
    else process.env.TICKFLOW_OUTBOUND_ALLOW = savedOutboundAllow;
    await new Promise<void>((r) => server.close(() => r()));
  });

  const run = async (f: JobFixture) => {
    const id = await triggerOneTask(t.db, f);
    await waitForFinalTask(t.db, id);
    await waitFor(async () => (await lines(id)).length > 0, 3000, 'lines');
    // the last flush after the attempt ended
    await new Promise((r) => setTimeout(r, 300));
    return { id, got: await lines(id) };
  };

  it('shell: each stdout and stderr line on its stream, the command and the exit code', async () => {
    await startWorker({ allowShell: true });
    const { got } = await run({ steps: [{ handler: 'shell', config: { command: ['/bin/sh', '-c', 'echo one; echo two; echo oops >&2; printf "no newline"'] } }] });
    const out = got.filter((l) => l.stream === 'stdout').map((l) => l.text);
    expect(out).toEqual(['one', 'two', 'no newline']);
    expect(got.filter((l) => l.stream === 'stderr').map((l) => [l.level, l.text])).toEqual([['warn', 'oops']]);
    expect(got[0]!.text).toMatch(/^\$ \/bin\/sh -c /);
    expect(got[got.length - 1]).toMatchObject({ stream: 'log', level: 'info', fields: { exitCode: 0 } });
  });

  it('http: request and response summary lines, without the query string; a failure adds its error line', async () => {
    await startWorker();
    const { got } = await run({ steps: [{ handler: 'http', config: { url: `${base}/ok?token=secret` } }] });
    expect(got.map((l) => l.text)).toEqual([`GET ${base}/ok?…`, expect.stringMatching(/^200 OK in \d+ ms, 11 bytes \(application\/json\)$/)]);
    expect(JSON.stringify(got)).not.toContain('secret');
    const bad = await run({ steps: [{ handler: 'http', config: { url: `${base}/missing` } }] });
    expect(bad.got.map((l) => [l.level, l.stream])).toEqual([['info', 'log'], ['error', 'log'], ['error', 'system']]);
    expect(bad.got[2]!.text).toMatch(/^attempt failed: http: GET .* answered 404/);
  });

  it('an attempt that times out ends its lines in the words of its error, whether or not the handler honoured the abort', async () => {
    await startWorker();
    const honoured = await run({ timeoutSeconds: 1, steps: [{ handler: 'builtin.sleep', payload: { ms: 3000 } }] });
    expect(honoured.got.filter((l) => l.stream === 'system').map((l) => [l.level, l.text])).toEqual([['error', 'attempt timed out after 1s']]);
    const ignored = await run({ timeoutSeconds: 1, steps: [{ handler: 'builtin.ignore-abort', payload: { ms: 1800 } }] });
    const last = ignored.got.filter((l) => l.stream === 'system');
    expect(last).toHaveLength(1);
    expect(last[0]!.text).toMatch(/^attempt timed out after 1s \(the handler ignored its abort and returned \d+ ms later\)$/);
  });

  it('an attempt cancelled while its heartbeat comes before the cancel\'s notification ends its lines as cancelled, not as a lost lease', async () => {
    const w = await startWorker();
    const id = await triggerOneTask(t.db, { steps: [{ handler: 'builtin.sleep', payload: { ms: 60_000 } }] });
    await waitFor(async () => (await t.db.task.findUniqueOrThrow({ where: { id } })).status === 'running', 15_000, 'running');
    // the cancel's change without its NOTIFY (lib/engine/sql/cancel-run-tasks.ts): the heartbeat finds it first
    await t.pool.query(`UPDATE tasks SET status = 'cancelled', lease_until = NULL, completed_at = now(), error = 'cancelled by test' WHERE id = $1`, [id]);
    // this renewal, or the worker's own one if it came first
    await w.heartbeat.runOnce(new Date());
    await waitFor(async () => (await lines(id)).some((l) => l.stream === 'system'), 10_000, 'the attempt\'s last line');
    expect((await lines(id)).filter((l) => l.stream === 'system').map((l) => l.text)).toEqual(['attempt aborted: cancelled']);
  });

  it('the line saying how an attempt ended is written even when the attempt is past its line limit', async () => {
    await startWorker({ taskLog: { flushMs: 100, maxLines: 0 } });
    const { got } = await run({ timeoutSeconds: 1, steps: [{ handler: 'builtin.sleep', payload: { ms: 3000 } }] });
    expect(got.map((l) => [l.stream, l.level, l.text])).toEqual([
      ['system', 'error', 'attempt timed out after 1s'],
      ['system', 'warn', expect.stringMatching(/^1 line\(s\) .* dropped: over the limit of 0 lines/)],
    ]);
  });

  it('sql: the statement and its row count', async () => {
    await startWorker();
    const { got } = await run({ steps: [{ handler: 'sql', config: { sql: 'SELECT generate_series(1, 3) AS n' } }] });
    expect(got.map((l) => l.text)).toEqual(['SELECT generate_series(1, 3) AS n', expect.stringMatching(/^SELECT: 3 row\(s\) in \d+ ms$/)]);
    expect(got[1]!.fields).toMatchObject({ rowCount: 3, command: 'SELECT' });
  });

  it('handler lines and progress through ctx, read back with keyset paging', async () => {
    const w = createWorker({
      config: testWorkerConfig(t.url, { roles: ['claim'], taskLog: { flushMs: 100 } }),
      handlers: {
        'test.chatty': async (ctx) => {
          for (let i = 1; i <= 250; i++) ctx.taskLog.info(`item ${i}`, { i });
          ctx.progress(250, 250, 'processed 250 items');
          return null;
        },
      },
    });
    workers.push(w);
    await w.start();
    const { id } = await run({ steps: [{ handler: 'test.chatty' }] });
    const seen: number[] = [];
    let afterSeq = 0;
    for (let pages = 0; pages < 10; pages++) {
      const page = await listTaskLogLines(t.db, id, { afterSeq: String(afterSeq), limit: '100' }, VIEWER);
      seen.push(...page.lines.map((l) => l.seq));
      afterSeq = page.nextAfterSeq;
      if (!page.more) {
        expect(page).toMatchObject({ attempt: 1, attempts: 1, final: true, leaseReclaimed: false, progress: { done: 250, total: 250, text: 'processed 250 items' } });
        break;
      }
    }
    expect(seen).toEqual(Array.from({ length: 251 }, (_, i) => i + 1));
    // a page after the end is empty and keeps the cursor
    const end = await listTaskLogLines(t.db, id, { afterSeq: String(afterSeq) }, VIEWER);
    expect(end).toMatchObject({ lines: [], nextAfterSeq: afterSeq, more: false });
    // bad input names the field
    await expect(listTaskLogLines(t.db, id, { limit: '0' }, VIEWER)).rejects.toMatchObject({ code: 'validation', fields: { limit: expect.any(String) } });
    await expect(listTaskLogLines(t.db, id, { attempt: '2' }, VIEWER)).rejects.toMatchObject({ code: 'validation', fields: { attempt: expect.any(String) } });
    await expect(listTaskLogLines(t.db, 'nope', {}, VIEWER)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a page ends at MAX_LOG_PAGE_BYTES of text with more, and the next pages carry on without a gap', async () => {
    const w = createWorker({
      config: testWorkerConfig(t.url, { roles: ['claim'], taskLog: { flushMs: 100, maxBytes: 8 * 1024 * 1024 } }),
      handlers: {
        'test.wide': async (ctx) => {
          for (let i = 1; i <= 300; i++) ctx.taskLog.info(`${String(i).padStart(4, '0')} ${'x'.repeat(7995)}`);
          return null;
        },
      },
    });
    workers.push(w);
    await w.start();
    const { id } = await run({ steps: [{ handler: 'test.wide' }] });
    const stored = (await lines(id)).length;
    expect(stored).toBeGreaterThanOrEqual(300);
    const seen: number[] = [];
    let afterSeq = 0;
    const pages: { lines: number; bytes: number; more: boolean }[] = [];
    for (let i = 0; i < 10; i++) {
      const page = await listTaskLogLines(t.db, id, { afterSeq: String(afterSeq), limit: '1000' }, VIEWER);
      seen.push(...page.lines.map((l) => l.seq));
      pages.push({ lines: page.lines.length, bytes: page.lines.reduce((n, l) => n + Buffer.byteLength(l.text), 0), more: page.more });
      afterSeq = page.nextAfterSeq;
      if (!page.more) break;
    }
    // 300 lines of 8,000 bytes are 2.4 MB: three pages, each within the budget plus its last line
    expect(pages.length).toBe(3);
    for (const p of pages) expect(p.bytes - 8000).toBeLessThan(MAX_LOG_PAGE_BYTES);
    expect(pages[0]).toMatchObject({ lines: 132, more: true });
    expect(seen).toEqual(Array.from({ length: stored }, (_, i) => i + 1));
  });
});

describe('kill -9 of a real worker process', () => {
  it('keeps every line up to the last flush, and the reclaimed attempt says so', async () => {
    const flushMs = 200;
    const w = spawnWorker(t.url, {
      TICKFLOW_ALLOW_SHELL: '1',
      TICKFLOW_ROLES: 'claim',
      TICKFLOW_LEASE_SECONDS: '2',
      TICKFLOW_TASK_LOG_FLUSH_MS: String(flushMs),
    });
    await w.ready;
    const id = await triggerOneTask(t.db, {
      steps: [{ handler: 'shell', config: { command: ['/bin/sh', '-c', 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); echo "line $i"; sleep 0.01; done'] }, timeoutSeconds: 120 }],
    });
    await waitFor(async () => (await lines(id)).length >= 50, 15_000, '50 lines stored');
    await new Promise((r) => setTimeout(r, 700));
    const killedAt = Date.now();
    w.child.kill('SIGKILL');
    await w.exited;
    const got = await lines(id);
    // contiguous from 1: nothing lost in the middle
    expect(got.map((l) => l.seq)).toEqual(Array.from({ length: got.length }, (_, i) => i + 1));
    const stdout = got.filter((l) => l.stream === 'stdout');
    expect(stdout.map((l) => l.text)).toEqual(Array.from({ length: stdout.length }, (_, i) => `line ${i + 1}`));
    // at most the last flush interval (plus the in-flight insert) is missing
    const newest = got[got.length - 1]!.time.getTime();
    expect(killedAt - newest).toBeLessThan(1000);

    // the reaper reclaims the lease; the page says that lines of the last flush may be missing
    const task = await t.db.task.findUniqueOrThrow({ where: { id } });
    await reclaimExpiredLeases(t.db, { limit: 10 }, new Date(task.leaseUntil!.getTime() + 1000));
    const page = await listTaskLogLines(t.db, id, { attempt: '1' }, VIEWER);
    expect(page).toMatchObject({ final: true, leaseReclaimed: true });
    expect(page.lines.length).toBe(Math.min(500, got.length));
  }, 60_000);
});

describe('search', () => {
  it('finds a substring across jobs or in one job, newest first, with task, run and job', async () => {
    // lines of two real tasks (so the step key and job key resolve), at known times
    const clockTimes = ['2026-03-01T10:00:00Z', '2026-03-01T11:00:00Z', '2026-03-01T12:00:00Z'].map((s) => new Date(s));
    let now = clockTimes[0]!;
    const w2 = writer(t.pool, {}, () => now);
    const a = await triggerOneTask(t.db, { key: 'search.a', steps: [{ handler: 'builtin.noop' }] });
    const b = await triggerOneTask(t.db, { key: 'search.b', steps: [{ handler: 'builtin.noop' }] });
    const ta = await t.db.task.findUniqueOrThrow({ where: { id: a } });
    const tb = await t.db.task.findUniqueOrThrow({ where: { id: b } });
    const la = w2.open({ taskId: ta.id, runId: ta.runId, jobId: ta.jobId, attempt: 1, scheduledFor: ta.scheduledFor });
    const lb = w2.open({ taskId: tb.id, runId: tb.runId, jobId: tb.jobId, attempt: 1, scheduledFor: tb.scheduledFor });
    la.taskLog.info('Order 100_% Shipped');
    now = clockTimes[1]!;
    lb.taskLog.error('order 100_% failed: card declined');
    now = clockTimes[2]!;
    la.taskLog.info('nothing to see');
    await w2.stop();

    const all = await searchTaskLogLines(t.db, { q: 'ORDER 100_%' }, VIEWER);
    expect(all.lines.map((l) => l.text)).toEqual(['order 100_% failed: card declined', 'Order 100_% Shipped']);
    expect(all.lines[0]).toMatchObject({ taskId: tb.id, attempt: 1, seq: 1, runId: tb.runId, jobId: tb.jobId, jobKey: 'search.b', jobPurged: false, stepKey: 'main', level: 'error' });
    // a purged job's lines are kept, and the hit says the job is gone (no page to link to)
    await t.pool.query('DELETE FROM jobs WHERE id = $1', [tb.jobId]);
    expect((await searchTaskLogLines(t.db, { q: 'ORDER 100_%' }, VIEWER)).lines.map((l) => [l.jobKey, l.jobPurged])).toEqual([['search.b', true], ['search.a', false]]);
    // % and _ are literal: "100x" does not match "100_"
    expect((await searchTaskLogLines(t.db, { q: 'order 100x' }, VIEWER)).lines).toEqual([]);
    const one = await searchTaskLogLines(t.db, { q: 'order 100', jobId: ta.jobId }, VIEWER);
    expect(one.lines.map((l) => l.taskId)).toEqual([ta.id]);
    const range = await searchTaskLogLines(t.db, { q: 'order 100', from: '2026-03-01T10:30:00Z', to: '2026-03-01T12:00:00Z' }, VIEWER);
    expect(range.lines.map((l) => l.taskId)).toEqual([tb.id]);
    const limited = await searchTaskLogLines(t.db, { q: 'order', limit: '1' }, VIEWER);
    expect(limited).toMatchObject({ more: true, lines: [{ taskId: tb.id }] });
    await expect(searchTaskLogLines(t.db, { q: 'ab' }, VIEWER)).rejects.toMatchObject({ code: 'validation', fields: { q: expect.stringMatching(/at least 3/) } });
    await expect(searchTaskLogLines(t.db, { q: 'order', from: 'yesterday' }, VIEWER)).rejects.toMatchObject({ code: 'validation', fields: { from: expect.any(String) } });
    await expect(searchTaskLogLines(t.db, { q: 'order', from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' }, VIEWER)).rejects.toMatchObject({ fields: { to: expect.any(String) } });
    await expect(searchTaskLogLines(t.db, { q: 'order' }, null as unknown as Actor)).rejects.toMatchObject({ code: 'unauthorized' });
  });

  it('pages by a keyset cursor: every hit once, in the one-page order, also among lines of one instant', async () => {
    // 3 tasks; most lines share one instant, so only (task, attempt, seq) tell them apart
    const at = [new Date('2026-04-01T08:00:00Z'), new Date('2026-04-01T09:00:00Z')];
    let now = at[0]!;
    const w = writer(t.pool, {}, () => now);
    const tasks = [];
    for (const key of ['page.a', 'page.b', 'page.c']) {
      const id = await triggerOneTask(t.db, { key, steps: [{ handler: 'builtin.noop' }] });
      tasks.push(await t.db.task.findUniqueOrThrow({ where: { id } }));
    }
    const open = tasks.map((x) => w.open({ taskId: x.id, runId: x.runId, jobId: x.jobId, attempt: 1, scheduledFor: x.scheduledFor }));
    for (let i = 0; i < 4; i++) {
      if (i === 3) now = at[1]!; // the first nine lines share one instant
      for (const l of open) l.taskLog.info(`paged widget ${i}`);
    }
    await w.stop();

    const whole = await searchTaskLogLines(t.db, { q: 'paged widget', limit: '200' }, VIEWER);
    expect(whole.lines).toHaveLength(12);
    expect(whole).toMatchObject({ more: false, nextCursor: null });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const r = await searchTaskLogLines(t.db, { q: 'paged widget', limit: '5', cursor }, VIEWER);
      seen.push(...r.lines.map((l) => `${l.taskId}:${l.seq}`));
      expect(r.more).toBe(r.nextCursor !== null);
      if (!r.nextCursor) break;
      cursor = r.nextCursor;
    }
    expect(seen).toEqual(whole.lines.map((l) => `${l.taskId}:${l.seq}`));
    // newest first, then task, attempt and seq descending
    expect(whole.lines.slice(0, 3).map((l) => l.time)).toEqual(Array(3).fill(at[1]!.toISOString()));
    // a line written after the first page does not shift the next one
    const first = await searchTaskLogLines(t.db, { q: 'paged widget', limit: '5' }, VIEWER);
    const w3 = writer(t.pool, {}, () => new Date('2026-04-01T10:00:00Z'));
    w3.open({ taskId: tasks[0]!.id, runId: tasks[0]!.runId, jobId: tasks[0]!.jobId, attempt: 2, scheduledFor: tasks[0]!.scheduledFor }).taskLog.info('paged widget late');
    await w3.stop();
    const second = await searchTaskLogLines(t.db, { q: 'paged widget', limit: '5', cursor: first.nextCursor! }, VIEWER);
    expect(second.lines.map((l) => `${l.taskId}:${l.seq}`)).toEqual(whole.lines.slice(5, 10).map((l) => `${l.taskId}:${l.seq}`));

    // a cursor that is not this search's is a 400 at `cursor`
    for (const bad of ['nope', encodeCursor({ s: 'runs', v: '2026-04-01T08:00:00.000Z|1|1', id: tasks[0]!.id }), encodeCursor({ s: 'logs.search', v: 'yesterday|1|1', id: tasks[0]!.id }), encodeCursor({ s: 'logs.search', v: '2026-04-01T08:00:00.000Z|0|1', id: tasks[0]!.id })]) {
      await expect(searchTaskLogLines(t.db, { q: 'paged widget', cursor: bad }, VIEWER)).rejects.toMatchObject({ code: 'validation', fields: { cursor: expect.any(String) } });
    }
  });
});

describe('retention', () => {
  it('deletes the lines of the runs it deletes, and only those', async () => {
    // scheduled 40 days ago (a run's scheduled_for never changes: it is the history partition key)
    const old = await triggerOneTask(t.db, { key: 'ret.old', steps: [{ handler: 'builtin.noop' }] }, new Date(Date.now() - 40 * 86_400_000));
    const keep = await triggerOneTask(t.db, { key: 'ret.keep', steps: [{ handler: 'builtin.noop' }] });
    const w = writer(t.pool);
    for (const id of [old, keep]) {
      const task = await t.db.task.findUniqueOrThrow({ where: { id } });
      const l = w.open({ taskId: id, runId: task.runId, jobId: task.jobId, attempt: 1, scheduledFor: task.scheduledFor });
      for (let i = 0; i < 30; i++) l.taskLog.info(`ret ${i}`);
    }
    await w.stop();
    const oldTask = await t.db.task.findUniqueOrThrow({ where: { id: old } });
    // finish both runs, the old one 40 days ago
    await t.pool.query(`UPDATE runs SET status = 'success', finished_at = now() WHERE id IN (SELECT run_id FROM tasks WHERE id = ANY($1))`, [[old, keep]]);
    await t.pool.query(`UPDATE runs SET finished_at = now() - interval '40 days' WHERE id = $1`, [oldTask.runId]);
    const r = await purgeOldRuns(t.db, { olderThanDays: 30 });
    expect(r.runs).toBeGreaterThanOrEqual(1);
    expect(r.taskLogLines).toBeGreaterThanOrEqual(30);
    expect(await lines(old)).toHaveLength(0);
    expect(await lines(keep)).toHaveLength(30);
  });
});
