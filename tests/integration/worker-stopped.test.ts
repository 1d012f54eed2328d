/**
 * Stopped or offline (docs/operations.md "Stopped or offline"): a worker that stops cleanly
 * is `stopped` with its time and signal; a worker whose heartbeat is lost is marked `offline`
 * by the reaper, with a node_offline alarm. The two stay apart in worker_nodes, in
 * GET /api/v1/workers, in the overview, for drain and resume (409 saying which), for a
 * heartbeat that arrives late, and for retention. In-process workers on the real database.
 */
import { describe, expect, it } from 'vitest';
import { call, useRestFixture } from '../helpers/rest.ts';
import type { TestDatabase } from '../helpers/db.ts';
import * as workersRoute from '../../app/api/v1/workers/route.ts';
import * as drainRoute from '../../app/api/v1/workers/[id]/drain/route.ts';
import * as resumeRoute from '../../app/api/v1/workers/[id]/resume/route.ts';
import { createWorker, type Worker } from '../../worker/create-worker.ts';
import { deleteStaleNodes, heartbeatNode } from '../../lib/engine/nodes/index.ts';
import { getOverview } from '../../lib/stats/get-overview.ts';
import { testWorkerConfig, useWorkers, waitFor } from './worker-fixtures.ts';

let t!: TestDatabase;
let operator = '';
let viewer = '';
useRestFixture([], (f) => ({ t, operator, viewer } = f));
const workers = useWorkers();

function worker(name: string, over: Parameters<typeof testWorkerConfig>[1] = {}): Worker {
  const w = createWorker({ config: testWorkerConfig(t.url, { name, roles: ['claim'], ...over }) });
  workers.push(w);
  return w;
}

type View = { nodeId: string; name: string; status: string; effectiveStatus: string; stoppedAt: string | null; stopSignal: string | null; lastHeartbeatAt: string };
const list = async (): Promise<View[]> => (await call(workersRoute.GET, 'GET', '/api/v1/workers', { token: viewer })).json.items;
const row = (nodeId: string) => t.db.workerNode.findUniqueOrThrow({ where: { nodeId } });

describe('a clean stop and a lost heartbeat stay distinguishable', () => {
  it('stopped on SIGTERM vs offline by the reaper: rows, alarms, the list API, the overview, drain/resume 409s, a late heartbeat, a restart under the same name, retention', async () => {
    // alpha stops cleanly, as on SIGTERM (worker/index.ts passes the signal to stop())
    const alpha = worker('alpha');
    await alpha.start();
    const beforeStop = Date.now();
    await alpha.stop({ graceMs: 0, signal: 'SIGTERM' });
    // beta dies without a word (kill -9, a crash): its row stays as it was
    const beta = worker('beta');
    await beta.start();
    await beta.kill();

    const a = await row(alpha.nodeId);
    expect(a).toMatchObject({ status: 'stopped', stopSignal: 'SIGTERM' });
    expect(a.stoppedAt!.getTime()).toBeGreaterThanOrEqual(beforeStop - 1000);
    expect(a.lastHeartbeatAt.getTime()).toBe(a.stoppedAt!.getTime());
    expect(await row(beta.nodeId)).toMatchObject({ status: 'online', stoppedAt: null, stopSignal: null });

    // Another worker's reaper, two minutes on: beta's heartbeat is lost, alpha's stop is not a loss.
    const reaper = worker('reaper', { roles: ['reap'], nodeOfflineSeconds: 1 }); // never registered: no row of its own
    const later = new Date(Date.now() + 120_000);
    const pass = await waitFor(async () => {
      const r = await reaper.reaper.runOnce(later);
      return r.offlineNodes.length > 0 ? r : null;
    }, 15_000, 'the reaper marks a node offline'); // it first waits until the database has answered for nodeOfflineSeconds
    expect(pass.offlineNodes).toEqual([beta.nodeId]);
    expect(await reaper.reaper.runOnce(later)).toMatchObject({ offlineNodes: [] });
    expect(await row(alpha.nodeId)).toMatchObject({ status: 'stopped', stopSignal: 'SIGTERM' });
    expect(await row(beta.nodeId)).toMatchObject({ status: 'offline', stoppedAt: null, stopSignal: null });
    expect(await t.db.alarm.count({ where: { type: 'node_offline', target: beta.nodeId } })).toBe(1);
    expect(await t.db.alarm.count({ where: { type: 'node_offline', target: alpha.nodeId } })).toBe(0);

    // GET /api/v1/workers: offline (heartbeat lost) before stopped (clean stop), each saying which
    const items = await list();
    expect(items.map((w) => w.nodeId)).toEqual([beta.nodeId, alpha.nodeId]);
    expect(items[0]).toMatchObject({ status: 'offline', effectiveStatus: 'offline', stoppedAt: null, stopSignal: null });
    expect(items[1]).toMatchObject({ status: 'stopped', effectiveStatus: 'stopped', stoppedAt: a.stoppedAt!.toISOString(), stopSignal: 'SIGTERM' });
    expect((await getOverview(t.db)).workers).toEqual({ online: 0, draining: 0, stale: 0, offline: 1, stopped: 1 });

    // Neither can be drained or resumed: 409 naming what happened, nothing written.
    for (const [w, route, action] of [
      [alpha, drainRoute, 'drain'],
      [alpha, resumeRoute, 'resume'],
      [beta, drainRoute, 'drain'],
      [beta, resumeRoute, 'resume'],
    ] as const) {
      const r = await call(route.POST, 'POST', `/api/v1/workers/${w.nodeId}/${action}`, { token: operator, params: { id: w.nodeId }, body: {} });
      expect(r.status, `${action} ${w.config.name}`).toBe(409);
      expect(r.json.error.code).toBe('conflict');
      if (w === alpha) {
        expect(r.json.error.detail).toEqual({ status: 'stopped' });
        expect(r.json.error.message).toBe(`Cannot ${action} worker alpha: it stopped cleanly on SIGTERM at ${a.stoppedAt!.toISOString()}. Start the worker process again instead.`);
      } else {
        expect(r.json.error.detail).toEqual({ status: 'offline' });
        expect(r.json.error.message).toMatch(new RegExp(`^Cannot ${action} worker beta: it is offline: no heartbeat since \\S+Z \\(it crashed, was killed, or its machine is gone\\)\\. Start the worker process again instead\\.$`));
      }
    }
    expect((await row(alpha.nodeId)).status).toBe('stopped');
    expect((await row(beta.nodeId)).status).toBe('offline');

    // A heartbeat that arrives late does not revive a stopped node; an offline node that beats again
    // was only silent (a long pause), and comes back online (lib/engine/nodes/heartbeat-node.ts).
    expect(await heartbeatNode(t.db, { nodeId: alpha.nodeId, runningTasks: 0 })).toBe('stopped');
    expect(await row(alpha.nodeId)).toMatchObject({ status: 'stopped', stoppedAt: a.stoppedAt });

    // Restarted under the same name: a new node, online; the stopped row stays as its history and
    // never counts as online, so draining the new process is draining the last online worker.
    const alpha2 = worker('alpha');
    await alpha2.start();
    expect(alpha2.nodeId).not.toBe(alpha.nodeId);
    const after = await list();
    expect(after.filter((w) => w.name === 'alpha').map((w) => [w.nodeId, w.status])).toEqual([
      [alpha2.nodeId, 'online'],
      [alpha.nodeId, 'stopped'],
    ]);
    const last = await call(drainRoute.POST, 'POST', `/api/v1/workers/${alpha2.nodeId}/drain`, { token: operator, params: { id: alpha2.nodeId }, body: {} });
    expect(last.status).toBe(409);
    expect(last.json.error.detail).toMatchObject({ lastWorker: true });

    // Retention deletes offline and stopped nodes alike once old enough; never a live one.
    const deleted = await deleteStaleNodes(t.db, { olderThanDays: 1 }, new Date(Date.now() + 2 * 86_400_000));
    expect(deleted).toEqual([alpha.nodeId, beta.nodeId].sort());
    expect((await list()).map((w) => w.nodeId)).toEqual([alpha2.nodeId]);
  }, 60_000);

  it('a stale heartbeat is `stale`, not offline nor stopped, until the reaper decides; stop() called in-process records no signal', async () => {
    const gamma = worker('gamma');
    await gamma.register();
    await t.pool.query(`UPDATE worker_nodes SET last_heartbeat_at = now() - interval '90 seconds' WHERE node_id = $1`, [gamma.nodeId]);
    expect((await list()).find((w) => w.nodeId === gamma.nodeId)).toMatchObject({ status: 'online', effectiveStatus: 'stale', stoppedAt: null, stopSignal: null });

    await gamma.stop({ graceMs: 0 });
    const g = (await list()).find((w) => w.nodeId === gamma.nodeId)!;
    expect(g).toMatchObject({ status: 'stopped', effectiveStatus: 'stopped', stopSignal: null });
    expect(g.stoppedAt).toBe(g.lastHeartbeatAt);
  });
});
