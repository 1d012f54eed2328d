import { describe, expect, it } from 'vitest';
import { ConfigError, loadWorkerConfig } from './config';

const load = (env: Record<string, string>) => loadWorkerConfig({ DATABASE_URL: 'postgres://x/y', ...env } as unknown as NodeJS.ProcessEnv);

describe('task log settings (docs/task-logs.md)', () => {
  it('defaults: flush every 200 ms, 10,000 lines and 2 MiB per attempt, lines cut at 8 KiB', () => {
    expect(load({}).taskLog).toMatchObject({ flushMs: 200, maxLines: 10_000, maxBytes: 2 * 1024 * 1024, maxLineBytes: 8192, maxBufferedLines: 100_000 });
  });

  it('reads every variable', () => {
    const c = load({
      TICKFLOW_TASK_LOG_FLUSH_MS: '50',
      TICKFLOW_TASK_LOG_MAX_LINES: '7',
      TICKFLOW_TASK_LOG_MAX_BYTES: '1000',
      TICKFLOW_TASK_LOG_MAX_LINE_BYTES: '100',
      TICKFLOW_TASK_LOG_MAX_BUFFERED_LINES: '5000',
    });
    expect(c.taskLog).toMatchObject({ flushMs: 50, maxLines: 7, maxBytes: 1000, maxLineBytes: 100, maxBufferedLines: 5000 });
  });

  it('refuses a flush interval above 1 s and non-integers, naming the variable', () => {
    expect(() => load({ TICKFLOW_TASK_LOG_FLUSH_MS: '1500' })).toThrow(ConfigError);
    expect(() => load({ TICKFLOW_TASK_LOG_FLUSH_MS: '1500' })).toThrow(/TICKFLOW_TASK_LOG_FLUSH_MS must be an integer between 10 and 1000/);
    expect(() => load({ TICKFLOW_TASK_LOG_MAX_LINES: 'many' })).toThrow(/TICKFLOW_TASK_LOG_MAX_LINES/);
    expect(() => load({ TICKFLOW_TASK_LOG_MAX_BYTES: '-1' })).toThrow(/TICKFLOW_TASK_LOG_MAX_BYTES/);
  });
});
