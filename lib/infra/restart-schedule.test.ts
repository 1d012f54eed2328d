import { describe, expect, it } from 'vitest';
import { createRestartSchedule, EMBEDDED_DATABASE_RESTARTS, SUPERVISED_RESTARTS } from './restart-schedule.ts';

/** A schedule on a clock the test moves. */
function scheduleAt(rule = SUPERVISED_RESTARTS) {
  let t = 1_000_000;
  const schedule = createRestartSchedule(rule, () => t);
  return { schedule, advance: (ms: number) => { t += ms; } };
}

describe('restart schedule (the supervisor restarting the worker and the embedded database)', () => {
  it('1 s, doubling to 30 s, for a process that keeps ending at once', () => {
    const { schedule } = scheduleAt();
    const delays = Array.from({ length: 8 }, () => schedule.afterEnd(100));
    expect(delays).toEqual([1, 2, 4, 8, 16, 30, 30, 30].map((s) => ({ delayMs: s * 1000 })));
  });

  it('back to 1 s after a process ran for more than a minute, not after one that ran a minute exactly', () => {
    const { schedule } = scheduleAt();
    for (let i = 0; i < 4; i++) schedule.afterEnd(100);
    expect(schedule.afterEnd(60_000)).toEqual({ delayMs: 16_000 });
    expect(schedule.afterEnd(60_001)).toEqual({ delayMs: 1_000 });
    expect(schedule.afterEnd(100)).toEqual({ delayMs: 2_000 });
  });

  it('the worker is restarted for ever', () => {
    const { schedule, advance } = scheduleAt();
    for (let i = 0; i < 100; i++) {
      expect(schedule.afterEnd(100).giveUp).toBeUndefined();
      advance(1_000);
    }
  });

  it('the embedded database gives up at the 5th end within 10 minutes, saying so', () => {
    const { schedule, advance } = scheduleAt(EMBEDDED_DATABASE_RESTARTS);
    for (let i = 0; i < 4; i++) {
      expect(schedule.afterEnd(100).giveUp).toBeUndefined();
      advance(60_000);
    }
    expect(schedule.afterEnd(100)).toMatchObject({ giveUp: '5 times within 10 min' });
  });

  it('ends older than the window no longer count', () => {
    const { schedule, advance } = scheduleAt(EMBEDDED_DATABASE_RESTARTS);
    for (let i = 0; i < 4; i++) {
      expect(schedule.afterEnd(100).giveUp).toBeUndefined();
      advance(3 * 60_000);
    }
    // the first end was 12 min ago: four within the window, including this one
    expect(schedule.afterEnd(100)).toEqual({ delayMs: 16_000 });
  });
});
