import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { replayDelayMs } from '../lib/engine/lock-order.ts';
import { DbHealth } from './db-health.ts';
import { ServiceLoop, SkippedPass } from './loop.ts';

const logger = pino({ level: 'silent' });

describe('replayDelayMs', () => {
  it('is full jitter under a cap that doubles from 10 ms to 200 ms', () => {
    expect(replayDelayMs(1, () => 0)).toBe(0);
    expect(replayDelayMs(1, () => 0.999)).toBe(9);
    expect(replayDelayMs(3, () => 0.5)).toBe(20);
    expect(replayDelayMs(10, () => 0.999)).toBe(199);
  });
});

describe('DbHealth', () => {
  // Fake timers drive the probe and loop timers; `now` is the monotonic clock DbHealth reads.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a stall (the process did not run for longer than stallMs) restarts the reachable stretch; shorter gaps do not', async () => {
    let clock = 0;
    const health = new DbHealth(async () => undefined, logger, { now: () => clock, stallMs: 10_000 });
    clock = 9_000;
    expect(health.reachableForMs()).toBe(9_000);
    clock = 18_000; // 9 s without running: under stallMs
    expect(health.reachableForMs()).toBe(18_000);
    clock = 40_000; // 22 s without running (SIGSTOP): the leases this process saw may have lapsed unwatched
    expect(health.reachableForMs()).toBe(0);
    clock = 46_000;
    expect(health.reachableForMs()).toBe(6_000);
    health.stop();
    // without stallMs a gap is not a stall
    clock = 0;
    const unwatched = new DbHealth(async () => undefined, logger, { now: () => clock });
    clock = 60_000;
    expect(unwatched.reachableForMs()).toBe(60_000);
    unwatched.stop();
  });

  it('an outage starts probing; the first answer calls every listener in order and restarts the reachability clock', async () => {
    let clock = 1_000;
    let up = false;
    let probes = 0;
    const health = new DbHealth(async () => {
      probes++;
      if (!up) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    }, logger, { probeMs: 10, random: () => 0.5, now: () => clock });
    const calls: string[] = [];
    health.onUp(() => calls.push('heartbeat'));
    health.onUp(() => calls.push('claimer'));
    clock = 2_000;
    expect(health.reachableForMs()).toBe(1_000);
    health.reportFailure({ code: '23505' }); // a refused statement: not an outage
    expect(health.isDown).toBe(false);
    expect(health.reachableForMs()).toBe(1_000);
    health.reportFailure(new Error('Connection terminated'));
    expect(health.isDown).toBe(true);
    expect(health.reachableForMs()).toBe(0);
    await vi.advanceTimersByTimeAsync(80); // a probe every 10 ms (random 0.5: no jitter)
    expect(probes).toBe(8);
    expect(calls).toEqual([]);
    clock = 5_000;
    up = true;
    await vi.advanceTimersByTimeAsync(10);
    expect(probes).toBe(9);
    expect(health.isDown).toBe(false);
    expect(calls).toEqual(['heartbeat', 'claimer']);
    clock = 5_250;
    expect(health.reachableForMs()).toBe(250); // counted from the answer
    await vi.advanceTimersByTimeAsync(1_000);
    expect(probes).toBe(9); // no probing while up
    health.stop();
  });

  it('a service loop in back-off runs again at once when the database answers', async () => {
    let fail = true; // the database is away until this turns false
    const unreachable = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const health = new DbHealth(async () => {
      if (fail) throw unreachable();
    }, logger, { probeMs: 10, random: () => 0.5 });
    let passes = 0;
    const loop = new ServiceLoop('test', 5_000, async () => {
      passes++;
      if (fail) throw unreachable();
    }, logger, { health, random: () => 0.99 });
    loop.start();
    await vi.advanceTimersByTimeAsync(50);
    expect(passes).toBe(1); // failed: next pass in ~10 s of back-off
    expect(health.isDown).toBe(true);
    fail = false;
    // The probe answers (10 ms) and the loop runs within its 50 ms recovery jitter, not after its back-off.
    await vi.advanceTimersByTimeAsync(10 + 50);
    expect(passes).toBe(2);
    expect(health.isDown).toBe(false);
    const stopped = loop.stop();
    await vi.advanceTimersByTimeAsync(0);
    await stopped;
    health.stop();
  });

  it('a pass that asked the database nothing (SkippedPass) does not mark it up: no false recovery while it is away', async () => {
    let fail = true;
    const unreachable = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const health = new DbHealth(async () => {
      if (fail) throw unreachable();
    }, logger, { probeMs: 250, random: () => 0.5 });
    let ups = 0;
    health.onUp(() => ups++);
    let statements = 0;
    // a loop that asks the database (and fails while it is away), and one that skips its passes
    // while the database is known to be away, as the claimer does
    const asking = new ServiceLoop('asking', 1_000, async () => {
      statements++;
      if (fail) throw unreachable();
    }, logger, { health, random: () => 0.5 });
    let skipped = 0;
    const skipping = new ServiceLoop('skipping', 10, async () => {
      if (!health.isDown) return undefined;
      skipped++;
      return new SkippedPass(10);
    }, logger, { health });
    asking.start();
    await vi.advanceTimersByTimeAsync(5);
    expect(health.isDown).toBe(true);
    skipping.start();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(skipped).toBeGreaterThan(100);
    expect(health.isDown).toBe(true);
    expect(ups).toBe(0);
    expect(statements).toBeLessThan(10); // the asking loop keeps its back-off: no pass is woken by a false recovery
    fail = false;
    await vi.advanceTimersByTimeAsync(500); // the probe answers
    expect(health.isDown).toBe(false);
    expect(ups).toBe(1);
    const stopped = Promise.all([asking.stop(), skipping.stop()]);
    await vi.advanceTimersByTimeAsync(0);
    await stopped;
    health.stop();
  });
});
