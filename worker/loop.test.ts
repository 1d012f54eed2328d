/**
 * worker/loop.ts ServiceLoop: a pass due now runs on the next check phase of the event loop,
 * not after a timer (Node waits at least 1 ms for any timer); wakes during a pass coalesce.
 */
import { readFile } from 'node:fs';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ServiceLoop } from './loop.ts';

const logger = pino({ level: 'silent' });

/** A loop whose passes are counted and announced: `passed(n)` resolves when pass n has run. */
function countingLoop(step: (n: number) => Promise<void> = async () => undefined) {
  let passes = 0;
  const waiters = new Map<number, () => void>();
  const loop = new ServiceLoop('test', 3_600_000, async () => {
    passes++;
    await step(passes);
    waiters.get(passes)?.();
  }, logger);
  const passed = (n: number) => new Promise<void>((resolve) => (passes >= n ? resolve() : waiters.set(n, resolve)));
  return { loop, passed, count: () => passes };
}

describe('ServiceLoop', () => {
  it('a wake runs the pass before a 0 ms timer set just before it', async () => {
    const order: string[] = [];
    const { loop, passed } = countingLoop(async (n) => { if (n === 2) order.push('pass'); });
    loop.start();
    await passed(1);
    // Inside an I/O callback the check phase (setImmediate) comes before the timers phase: the
    // order is fixed by Node's event loop, not by timing (Node docs, "setImmediate() vs
    // setTimeout()"). A wake through a 0 ms timer would run after the timer armed before it.
    await new Promise<void>((resolve) => {
      readFile(import.meta.filename, () => {
        setTimeout(() => order.push('timer'), 0);
        loop.wake();
        void passed(2).then(resolve);
      });
    });
    await new Promise((r) => setTimeout(r, 0));
    await loop.stop();
    expect(order).toEqual(['pass', 'timer']);
  });

  it('wakes during a pass give one more pass after it; a stop cancels a pass scheduled for now', async () => {
    let release!: () => void;
    const { loop, passed, count } = countingLoop(async (n) => { if (n === 1) await new Promise<void>((r) => { release = r; }); });
    loop.start();
    while (!release) await new Promise<void>((r) => setImmediate(r));
    expect(count()).toBe(1);
    loop.wake();
    loop.wake();
    release();
    await passed(2);
    loop.wake();
    await loop.stop();
    await new Promise<void>((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 0));
    expect(count()).toBe(2);
  });
});
