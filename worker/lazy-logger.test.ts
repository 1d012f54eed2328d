import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyChildLogger } from './lazy-logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('lazyChildLogger', () => {
  it('makes no child until it is used, then logs with the bindings through one child', async () => {
    const { logger, lines } = capture();
    const child = vi.spyOn(logger, 'child');
    const log = lazyChildLogger(logger, { taskId: 't1', attempt: 2 });
    expect(child).not.toHaveBeenCalled();
    log.info({ n: 1 }, 'first');
    log.warn('second');
    log.debug('below the level');
    expect(child).toHaveBeenCalledTimes(1);
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.msg, l.taskId, l.attempt, l.n])).toEqual([['first', 't1', 2, 1], ['second', 't1', 2, undefined]]);
    expect(log.isLevelEnabled('debug')).toBe(false);
    expect(log.level).toBe('info');
  });
});
