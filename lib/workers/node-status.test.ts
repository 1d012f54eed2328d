import { describe, expect, it } from 'vitest';
import { countNodesByStatus, effectiveNodeStatus, shownFigures } from './node-status';
import { toWorkerView } from './list-workers';
import type { WorkerNode } from '../generated/prisma/client';

const now = new Date('2026-12-04T12:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000);

describe('effectiveNodeStatus', () => {
  it('an online or draining node is stale after 60 s without a heartbeat, not before', () => {
    expect(effectiveNodeStatus('online', ago(60), now)).toBe('online');
    expect(effectiveNodeStatus('online', ago(61), now)).toBe('stale');
    expect(effectiveNodeStatus('draining', ago(60), now)).toBe('draining');
    expect(effectiveNodeStatus('draining', ago(61), now)).toBe('stale');
  });
  it('a gone node keeps its status however old its last heartbeat', () => {
    expect(effectiveNodeStatus('offline', ago(86_400), now)).toBe('offline');
    expect(effectiveNodeStatus('stopped', ago(86_400), now)).toBe('stopped');
  });
});

describe('countNodesByStatus', () => {
  it('counts each node once, under the status the Workers page shows', () => {
    const nodes = [
      { status: 'online' as const, lastHeartbeatAt: ago(5) },
      { status: 'online' as const, lastHeartbeatAt: ago(600) },
      { status: 'draining' as const, lastHeartbeatAt: ago(600) },
      { status: 'offline' as const, lastHeartbeatAt: ago(900) },
      { status: 'stopped' as const, lastHeartbeatAt: ago(5) },
    ];
    expect(countNodesByStatus(nodes, now)).toEqual({ online: 1, draining: 0, stale: 2, offline: 1, stopped: 1 });
  });
});

describe('shownFigures', () => {
  const last = { runningTasks: 2, cpuPercent: 40, memoryMb: 300, load1: 1.5 };
  it("a stopped or offline node shows no running tasks and no load: its last heartbeat's figures are history", () => {
    expect(shownFigures('offline', last)).toEqual({ runningTasks: 0, cpuPercent: null, memoryMb: null, load1: null });
    expect(shownFigures('stopped', last)).toEqual({ runningTasks: 0, cpuPercent: null, memoryMb: null, load1: null });
    expect(shownFigures('online', last)).toEqual(last);
    expect(shownFigures('draining', last)).toEqual(last);
  });
  it('the workers view (Workers page, GET /api/v1/workers) shows them so', () => {
    const row = {
      nodeId: 'n', name: 'w', host: 'h', pid: 1, group: 'default', labels: {}, handlers: [], status: 'offline', lastHeartbeatAt: ago(600),
      runningTasks: 2, cpuPercent: 40, memoryMb: 300, load1: 1.5, version: '1', startedAt: ago(3600), stoppedAt: null, stopSignal: null,
    } as unknown as WorkerNode;
    expect(toWorkerView(row, now)).toMatchObject({ effectiveStatus: 'offline', runningTasks: 0, cpuPercent: null, memoryMb: null, load1: null });
    // a stale node (heartbeat lost, not yet marked) may still be running them: its last figures stay
    expect(toWorkerView({ ...row, status: 'online' }, now)).toMatchObject({ effectiveStatus: 'stale', runningTasks: 2, load1: 1.5 });
  });
});
