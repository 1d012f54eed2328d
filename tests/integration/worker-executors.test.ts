/**
 * The http, shell and sql executors run by a real (in-process) worker: the
 * outcome, output and exit code land on the task row.
 */
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createWorker, type Worker } from '../../worker/create-worker.ts';
import type { WorkerConfig } from '../../worker/config.ts';
import { sqlRunnerRoleName } from '../../worker/handlers/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { claimedAt, insertJob, testWorkerConfig, waitFor, type JobFixture, triggerOneTask, waitForFinalTask, useWorkers } from './worker-fixtures.ts';

const t = useTestDatabase({
  // The sql executor's restricted role is cluster-wide (one per database): drop this file's.
  afterClose: async (db) => {
    const c = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await c.connect();
    await c.query(`DROP ROLE IF EXISTS "${sqlRunnerRoleName(db.name)}"`).catch(() => undefined);
    await c.end();
  },
});
const workers = useWorkers();

async function startWorker(over: Partial<WorkerConfig> = {}): Promise<Worker> {
  const w = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim', 'reap'], ...over }) });
  workers.push(w);
  await w.start();
  return w;
}

const runTask = (f: JobFixture) => triggerOneTask(t.db, f);

const finalTask = (id: string, ms = 15_000) => waitForFinalTask(t.db, id, ms);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('shell executor', () => {
  it('is refused without TICKFLOW_ALLOW_SHELL, with a clear error on the task', async () => {
    await startWorker({ allowShell: false });
    const id = await runTask({ steps: [{ handler: 'shell', config: { command: ['/bin/echo', 'hi'] } }] });
    const x = await finalTask(id);
    expect(x.status).toBe('dead');
    expect(x.error).toMatch(/TICKFLOW_ALLOW_SHELL=1/);
  });

  it('a worker without it leaves shell tasks to a live worker that may run them, and does not advertise shell', async () => {
    const without = await startWorker({ allowShell: false });
    const shellWorker = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim', 'reap'], allowShell: true }) });
    workers.push(shellWorker);
    const shellNode = await shellWorker.register(); // live and offering shell, not claiming yet

    const ids = await Promise.all([1, 2, 3].map((i) => runTask({ key: `shell-routed-${i}`, steps: [{ handler: 'shell', config: { command: ['/bin/echo', `hi ${i}`] } }] })));
    // The shell-less worker's own claim passes (its loop and this one) take none of them.
    expect(await without.claimer.runOnce(new Date())).toBe(0);
    const pending = await t.db.task.findMany({ where: { id: { in: ids } }, select: { status: true } });
    expect(pending.map((x) => x.status)).toEqual(['pending', 'pending', 'pending']);

    await shellWorker.start();
    for (const id of ids) expect(await finalTask(id)).toMatchObject({ status: 'success', exitCode: 0 });
    const claims = await t.db.taskLog.findMany({ where: { taskId: { in: ids }, toStatus: 'running' }, select: { nodeId: true } });
    expect(claims.map((c) => c.nodeId)).toEqual([shellNode, shellNode, shellNode]);

    const nodes = await t.db.$queryRawUnsafe<{ node_id: string; handlers: string[] }[]>('SELECT node_id, handlers FROM worker_nodes');
    expect(nodes.find((n) => n.node_id === shellNode)?.handlers).toContain('shell');
    expect(nodes.find((n) => n.node_id !== shellNode)?.handlers).not.toContain('shell');
  });

  it('records stdout and exit code 0, and a non-zero exit code on failure', async () => {
    await startWorker({ allowShell: true });
    const ok = await runTask({ steps: [{ handler: 'shell', config: { command: ['/bin/sh', '-c', 'echo "$GREETING"'], env: { GREETING: 'hej' } } }] });
    const bad = await runTask({ steps: [{ handler: 'shell', config: { command: ['/bin/sh', '-c', 'echo no >&2; exit 7'] } }] });
    const a = await finalTask(ok);
    expect(a).toMatchObject({ status: 'success', exitCode: 0, output: { exitCode: 0, stdout: 'hej\n' } });
    const b = await finalTask(bad);
    expect(b).toMatchObject({ status: 'dead', exitCode: 7 });
    expect(b.error).toMatch(/exited with code 7/);
    expect(b.output).toMatchObject({ stderr: 'no\n' });
  });

  it('a command that ignores SIGTERM is killed within timeout + grace', async () => {
    await startWorker({ allowShell: true, shellKillGraceMs: 500 });
    const pidFile = path.join(tmpdir(), `tickflow-trap-${process.pid}-${Date.now()}.pid`);
    const id = await runTask({
      timeoutSeconds: 1,
      steps: [{ handler: 'shell', config: { command: ['/bin/sh', '-c', `echo $$ > ${pidFile}; trap '' TERM; sleep 30 & wait; sleep 30`] } }],
    });
    const pid = await waitFor(async () => {
      try {
        return Number(readFileSync(pidFile, 'utf8').trim()) || null;
      } catch {
        return null;
      }
    }, 15_000, 'pid file');
    const started = await claimedAt(t.db, id);
    const x = await finalTask(id, 15_000);
    expect(x.status).toBe('dead');
    const logs = await t.db.taskLog.findMany({ where: { taskId: id }, orderBy: { id: 'asc' } });
    expect(logs.some((l) => l.toStatus === 'timeout')).toBe(true);
    await waitFor(async () => !alive(pid), 15_000, `pid ${pid} to die`);
    // from the claim: timeout (1 s) + grace (0.5 s) + scheduling slack on a busy machine;
    // the command itself would live 60 s
    expect(Date.now() - started).toBeLessThan(1000 + 500 + 5000);
    rmSync(pidFile, { force: true });
  });
});

describe('http executor', () => {
  let server: Server;
  let base: string;
  let slowClosedAt = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true, method: req.method }));
      } else if (req.url === '/fail') {
        res.statusCode = 500;
        res.end('broken');
      } else if (req.url === '/slow') {
        req.on('close', () => (slowClosedAt = Date.now()));
        setTimeout(() => res.end('late'), 8000).unref();
      } else res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // this test's server is on loopback: allow exactly it (lib/net/outbound.ts)
    process.env.TICKFLOW_OUTBOUND_ALLOW = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('success, non-2xx failure, and a timeout that aborts the request', async () => {
    await startWorker();
    const ok = await runTask({ steps: [{ handler: 'http', config: { url: `${base}/ok`, method: 'POST' } }] });
    const fail = await runTask({ steps: [{ handler: 'http', config: { url: `${base}/fail` } }] });
    const slow = await runTask({ timeoutSeconds: 1, steps: [{ handler: 'http', config: { url: `${base}/slow` } }] });
    expect(await finalTask(ok)).toMatchObject({ status: 'success', output: { status: 200, body: { ok: true, method: 'POST' } } });
    const f = await finalTask(fail);
    expect(f.status).toBe('dead');
    expect(f.error).toMatch(/answered 500/);
    const s = await finalTask(slow);
    expect(s.status).toBe('dead');
    expect(s.error).toMatch(/timed out after 1s/);
    await waitFor(async () => slowClosedAt, 15_000, 'the server to see the request aborted');
    // aborted at the 1 s timeout (plus slack), long before the server's 8 s answer
    expect(slowClosedAt - (await claimedAt(t.db, slow))).toBeLessThan(6000);
  });
});

describe('sql executor', () => {
  it('runs a parameterised statement on the default connection inside the scratch schema', async () => {
    await startWorker();
    const sel = await runTask({ steps: [{ handler: 'sql', config: { sql: 'SELECT $1::int + 1 AS v, current_schema() AS s', params: [41] } }] });
    expect(await finalTask(sel)).toMatchObject({ status: 'success', output: { rowCount: 1, rows: [{ v: 42, s: 'tickflow_scratch' }] } });
    const ddl = await runTask({ steps: [{ handler: 'sql', config: { sql: 'CREATE TABLE scratch_demo (x int)' } }] });
    expect((await finalTask(ddl)).status).toBe('success');
    const where = await t.pool.query(`SELECT table_schema FROM information_schema.tables WHERE table_name = 'scratch_demo'`);
    expect(where.rows).toEqual([{ table_schema: 'tickflow_scratch' }]);
    const bad = await runTask({ steps: [{ handler: 'sql', config: { sql: 'SELECT * FROM no_such_table' } }] });
    const b = await finalTask(bad);
    expect(b.status).toBe('dead');
    expect(b.error).toMatch(/no_such_table/);
    const unknown = await runTask({ steps: [{ handler: 'sql', config: { sql: 'SELECT 1', connection: 'warehouse' } }] });
    expect((await finalTask(unknown)).error).toMatch(/unknown connection "warehouse"/);
  });

  it('statement_timeout follows the task timeout', async () => {
    await startWorker();
    const id = await runTask({ timeoutSeconds: 1, steps: [{ handler: 'sql', config: { sql: 'SELECT pg_sleep(5)' } }] });
    const x = await finalTask(id, 15_000);
    expect(x.status).toBe('dead');
    // ended at the 1 s statement timeout, not after pg_sleep's 5 s
    expect(x.completedAt!.getTime() - (await claimedAt(t.db, id))).toBeLessThan(4000);
  });
});
