/**
 * Real worker processes (the compiled worker, as `npm run worker` runs it) against the test
 * database: a SIGKILLed worker restarted at once (docs/engine-cases.md case 4), and
 * graceful shutdown on SIGTERM.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { triggerRun } from '../../lib/engine/index.ts';
import { DUPLICATE_SIGNAL_MS } from '../../lib/infra/stop-requests.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob, spawnWorker, useSpawnedWorkers, waitFor, type JobFixture, type WorkerProcess } from './worker-fixtures.ts';

const t = useTestDatabase();
const { start, track } = useSpawnedWorkers(t);

async function runTask(f: JobFixture): Promise<string> {
  const jobId = await insertJob(t.db, { scheduleKind: 'manual', ...f });
  const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
  const [task] = await t.db.task.findMany({ where: { runId: run.id } });
  return task!.id;
}
const task = (id: string) => t.db.task.findUniqueOrThrow({ where: { id } });

describe('docs/engine-cases.md case 4 — a worker killed mid-task is detected even if it restarts at once', () => {
  it('SIGKILL, worker restarted at once: the task stays the dead node\'s while its lease holds, then is reclaimed and retried on the new node', async () => {
    // A lease long enough that the restarted worker is up while it still holds, even on a busy machine.
    const env = { TICKFLOW_LEASE_SECONDS: '20', TICKFLOW_HEARTBEAT_MS: '400', TICKFLOW_REAP_MS: '500', TICKFLOW_NODE_OFFLINE_SECONDS: '3' };
    const a = start(env);
    const nodeA = await a.ready;
    const id = await runTask({ maxRetries: 1, backoffBaseSeconds: 0, timeoutSeconds: 60, steps: [{ handler: 'builtin.sleep', payload: { ms: 3000 } }] });
    await waitFor(async () => {
      const x = await task(id);
      return x.status === 'running' && x.lockedBy === nodeA;
    }, 15_000, 'task running on A');

    a.child.kill('SIGKILL');
    await a.exited;
    const b = start(env); // restarted at once, on the same host
    const nodeB = await b.ready;
    expect(nodeB).not.toBe(nodeA); // a new node id: it does not adopt A's task

    // B is up (registered and beating) while A's lease still holds, and the task stays A's:
    // no silent adoption by a restarted worker on the same host.
    const during = await task(id);
    const bNode = await t.db.workerNode.findUniqueOrThrow({ where: { nodeId: nodeB } });
    expect(during).toMatchObject({ status: 'running', lockedBy: nodeA, attempt: 1 });
    expect(bNode.lastHeartbeatAt.getTime()).toBeLessThan(during.leaseUntil!.getTime());

    const done = await waitFor(async () => {
      const x = await task(id);
      return x.status === 'success' ? x : null;
    }, 60_000, 'task success on B');
    expect(done).toMatchObject({ attempt: 2, lockedBy: nodeB });
    const logs = await t.db.taskLog.findMany({ where: { taskId: id }, orderBy: { id: 'asc' } });
    const expiry = logs.find((l) => l.attempt === 1 && l.fromStatus === 'running' && l.toStatus === 'failed');
    expect(expiry?.message).toMatch(new RegExp(`lease expired: worker ${nodeA}`));
    const claim2 = logs.find((l) => l.attempt === 2 && l.toStatus === 'running');
    expect(claim2?.nodeId).toBe(nodeB);
    // Never two running attempts: attempt 2 is claimed only after attempt 1 ended.
    expect(claim2!.id > expiry!.id).toBe(true);

    // A is marked offline by B's reaper, with an alarm.
    await waitFor(async () => (await t.db.workerNode.findUniqueOrThrow({ where: { nodeId: nodeA } })).status === 'offline', 10_000, 'A offline');
    expect(await t.db.alarm.count({ where: { type: 'node_offline', target: nodeA } })).toBe(1);
    // a lost heartbeat, not a clean stop: no stop recorded (docs/operations.md "Stopped or offline")
    expect(await t.db.workerNode.findUniqueOrThrow({ where: { nodeId: nodeA } })).toMatchObject({ stoppedAt: null, stopSignal: null });
    expect((await t.db.workerNode.findUniqueOrThrow({ where: { nodeId: nodeB } })).status).toBe('online');
  }, 120_000);
});

describe('a worker killed while it holds prefetched tasks (docs/on-time.md "Prefetch")', () => {
  it('SIGKILL: the attempt that ran fails by its lease; the tasks waiting for a slot go back unstarted on attempt 1 and run elsewhere', async () => {
    const env = { TICKFLOW_LEASE_SECONDS: '4', TICKFLOW_HEARTBEAT_MS: '400', TICKFLOW_REAP_MS: '300', TICKFLOW_NODE_OFFLINE_SECONDS: '3' };
    // four runs ready before A starts: its first claim takes 4 per free slot (no backlog known yet)
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await runTask({ maxRetries: 0, timeoutSeconds: 60, steps: [{ handler: 'builtin.sleep', payload: { ms: 3000 } }] }));
    const a = start({ ...env, TICKFLOW_CONCURRENCY: '1', TICKFLOW_PREFETCH_MULTIPLIER: '4' });
    const nodeA = await a.ready;
    const rows = () => t.pool.query<{ id: string; status: string; held: boolean; locked_by: string | null; attempt: number }>(
      `SELECT id, status::text, held, locked_by, attempt FROM tasks WHERE id = ANY($1)`, [ids]);
    // one slot: one attempt runs, the three prefetched wait in A, claimed held
    const onA = await waitFor(async () => {
      const r = (await rows()).rows;
      return r.every((x) => x.status === 'running' && x.locked_by === nodeA) && r.filter((x) => x.held).length === 3 ? r : null;
    }, 15_000, 'four tasks claimed by A, three of them held');
    const ran = onA.find((x) => !x.held)!.id;

    a.child.kill('SIGKILL');
    await a.exited;
    start(env);
    const final = await waitFor(async () => {
      const r = (await rows()).rows;
      return r.every((x) => x.status === 'success' || x.status === 'dead') ? r : null;
    }, 60_000, 'every task final');
    // the attempt that ran is failed by its expired lease (no retries left: dead) ...
    expect(final.find((x) => x.id === ran)).toMatchObject({ status: 'dead', attempt: 1 });
    // ... and the three that never started ran on the other worker, on their first attempt
    expect(final.filter((x) => x.id !== ran).map((x) => [x.status, x.attempt])).toEqual([['success', 1], ['success', 1], ['success', 1]]);
    const logs = await t.db.taskLog.findMany({ where: { taskId: { in: ids.filter((id) => id !== ran) } }, orderBy: { id: 'asc' } });
    expect(logs.filter((l) => l.toStatus === 'failed' || l.toStatus === 'dead')).toEqual([]);
    const back = logs.filter((l) => l.fromStatus === 'running' && l.toStatus === 'pending');
    expect(back).toHaveLength(3);
    for (const l of back) expect(l.message).toBe(`handed back unstarted: worker ${nodeA} presumed dead before it started the task (lease expired)`);
  }, 120_000);
});

describe('graceful shutdown', () => {
  it('SIGTERM: stops claiming, node draining, waits for the running task, exits 0, node stopped (time and signal), no node_offline alarm', async () => {
    const w = start({ TICKFLOW_CONCURRENCY: '2', TICKFLOW_SHUTDOWN_GRACE_MS: '20000' });
    const nodeId = await w.ready;
    // long enough that the node is still draining when we look, on a slow machine too
    const id = await runTask({ timeoutSeconds: 60, steps: [{ handler: 'builtin.sleep', payload: { ms: 8000 } }] });
    await waitFor(async () => (await task(id)).status === 'running', 15_000, 'running');

    w.child.kill('SIGTERM');
    await waitFor(async () => (await t.db.workerNode.findUniqueOrThrow({ where: { nodeId } })).status === 'draining', 7000, 'draining');
    // New work is not claimed any more.
    const later = await runTask({ steps: [{ handler: 'builtin.noop' }] });

    const exit = await w.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await task(id)).toMatchObject({ status: 'success', attempt: 1, lockedBy: nodeId });
    expect((await task(later)).status).toBe('pending');
    const node = await t.db.workerNode.findUniqueOrThrow({ where: { nodeId } });
    expect(node).toMatchObject({ status: 'stopped', stopSignal: 'SIGTERM' });
    // stopped after the running task ended, and the stop is its last heartbeat
    expect(node.stoppedAt!.getTime()).toBeGreaterThanOrEqual((await task(id)).completedAt!.getTime());
    expect(node.lastHeartbeatAt.getTime()).toBe(node.stoppedAt!.getTime());
    expect(await t.db.alarm.count({ where: { type: 'node_offline', target: nodeId } })).toBe(0);
    expect(w.output()).toMatch(/worker draining/);
  }, 40_000);

  it('a second signal exits at once', async () => {
    const w = start({ TICKFLOW_SHUTDOWN_GRACE_MS: '60000' });
    const nodeId = await w.ready;
    const id = await runTask({ timeoutSeconds: 60, steps: [{ handler: 'builtin.ignore-abort', payload: { ms: 30_000 } }] });
    // This task, not any running task: a leftover of an earlier test must not start the clock.
    await waitFor(async () => (await task(id)).status === 'running', 15_000, 'running');
    w.child.kill('SIGTERM');
    await waitFor(() => /worker draining/.test(w.output()), 10_000, 'the worker draining');
    // A real process on the real clock: the second signal must come after the window in which a
    // repeat counts as the same delivery (lib/infra/stop-requests.ts DUPLICATE_SIGNAL_MS).
    await new Promise((r) => setTimeout(r, 4 * DUPLICATE_SIGNAL_MS));
    w.child.kill('SIGINT');
    const exit = await w.exited;
    expect(exit.code).toBe(130);
    // "at once": it did not wait for the 30 s handler — the attempt was never recorded as finished
    expect(await task(id)).toMatchObject({ status: 'running', attempt: 1 });
    expect(w.output()).toMatch(/second signal: exiting now/);
    // not a clean stop: its attempt is left to its lease, and the node to the reaper (offline once its heartbeat is lost)
    expect(await t.db.workerNode.findUniqueOrThrow({ where: { nodeId } })).toMatchObject({ status: 'draining', stoppedAt: null, stopSignal: null });
  }, 30_000);

  it('a metrics port it cannot have stops it before it registers a node', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    try {
      const port = (taken.address() as net.AddressInfo).port;
      const before = await t.db.workerNode.count();
      const p = track(spawnWorker(t.url, { TICKFLOW_METRICS_PORT: String(port) }));
      const exit = await p.exited;
      expect(exit.code).toBe(1);
      expect(p.output()).toMatch(new RegExp(`cannot serve metrics on 127\\.0\\.0\\.1:${port} \\(TICKFLOW_METRICS_HOST, TICKFLOW_METRICS_PORT\\): .*EADDRINUSE`));
      expect(await t.db.workerNode.count()).toBe(before);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  it('refuses to start without DATABASE_URL', async () => {
    const p = track(spawnWorker('', {}));
    const exit = await p.exited;
    expect(exit.code).toBe(2);
    expect(p.output()).toMatch(/DATABASE_URL is required/);
  });
});
