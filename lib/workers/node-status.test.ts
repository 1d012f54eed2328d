import { describe, expect, it } from 'vitest';
import { countNodesByStatus, effectiveNodeStatus } from './node-status';

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
