import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { replayDelayMs } from '../lib/engine/lock-order.ts';
import { DbHealth, isUnreachable } from './db-health.ts';
import { ServiceLoop } from './loop.ts';

const logger = pino({ level: 'silent' });

describe('isUnreachable', () => {
  it('connection-level failures are outages; refused statements are not', () => {
    expect(isUnreachable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isUnreachable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isUnreachable({ code: '57P01', message: 'terminating connection due to administrator command' })).toBe(true);
    expect(isUnreachable({ code: '57P03', message: 'the database system is starting up' })).toBe(true);
    expect(isUnreachable({ code: '08006', message: 'connection failure' })).toBe(true);
    expect(isUnreachable({ code: '23505', message: 'duplicate key value violates unique constraint' })).toBe(false);
    expect(isUnreachable({ code: '40P01', message: 'deadlock detected' })).toBe(false);
    expect(isUnreachable(new Error('Unable to start a transaction in the given time.'))).toBe(false);
  });
});

describe('replayDelayMs', () => {
  it('is full jitter under a cap that doubles from 10 ms to 200 ms', () => {
    expect(replayDelayMs(1, () => 0)).toBe(0);
    expect(replayDelayMs(1, () => 0.999)).toBe(9);
    expect(replayDelayMs(3, () => 0.5)).toBe(20);
    expect(replayDelayMs(10, () => 0.999)).toBe(199);
  });
});

describe('DbHealth', () => {
  it('an outage starts probing; the first answer calls every listener in order and restarts the reachability clock', async () => {
    let up = false;
    let probes = 0;
    const health = new DbHealth(async () => {
      probes++;
      if (!up) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    }, logger, { probeMs: 10 });
    const calls: string[] = [];
    health.onUp(() => calls.push('heartbeat'));
    health.onUp(() => calls.push('claimer'));
    health.reportFailure({ code: '23505' }); // a refused statement: not an outage
    expect(health.isDown).toBe(false);
    health.reportFailure(new Error('Connection terminated'));
    expect(health.isDown).toBe(true);
    expect(health.reachableForMs()).toBe(0);
    await new Promise((r) => setTimeout(r, 80));
    expect(probes).toBeGreaterThan(1);
    expect(calls).toEqual([]);
    const answeredFrom = performance.now();
    up = true;
    await new Promise((r) => setTimeout(r, 60));
    expect(health.isDown).toBe(false);
    expect(calls).toEqual(['heartbeat', 'claimer']);
    expect(health.reachableForMs()).toBeLessThanOrEqual(performance.now() - answeredFrom); // counted from the answer
    health.stop();
  });

  it('a service loop in back-off runs again at once when the database answers', async () => {
    const health = new DbHealth(async () => undefined, logger, { probeMs: 10 });
    let fail = true;
    const passes: number[] = [];
    const loop = new ServiceLoop('test', 5_000, async () => {
      passes.push(Date.now());
      if (fail) throw new Error('connect ECONNREFUSED');
    }, logger, { health, random: () => 0.99 });
    loop.start();
    await new Promise((r) => setTimeout(r, 50));
    expect(passes).toHaveLength(1); // failed: next pass in ~10 s of back-off
    fail = false;
    await new Promise((r) => setTimeout(r, 150)); // the probe answers, the loop recovers
    expect(passes.length).toBeGreaterThanOrEqual(2);
    expect(health.isDown).toBe(false);
    await loop.stop();
    health.stop();
  });
});
