/**
 * Built-in function handlers: small, dependency-free building blocks for demos,
 * health checks and tests. Settings come from the step config overlaid by the
 * payload (see `settings()`).
 */
import { MAX_FAIL_TIMES, MAX_SLEEP_MS } from '../../lib/handlers/number-settings.ts';
import { abortableSleep, HandlerError, numberSetting, settings, type Handler } from './types.ts';

export { MAX_FAIL_TIMES };

/** `builtin.noop`: does nothing, succeeds with null output. */
export const noop: Handler = async () => null;

/** `builtin.echo`: output = payload. */
export const echo: Handler = async (ctx) => ctx.payload;

/**
 * `builtin.sleep` `{ ms }` (default 1000; 0..MAX_SLEEP_MS = 7 days, anything
 * else fails the attempt naming `payload.ms`): waits, honouring the
 * AbortSignal; output `{ sleptMs }`.
 */
export const sleep: Handler = async (ctx) => {
  const ms = numberSetting(settings(ctx), 'ms', { handler: 'builtin.sleep', fallback: 1000, min: 0, max: MAX_SLEEP_MS, unit: 'ms' });
  ctx.taskLog.info(`sleeping ${ms} ms`);
  await abortableSleep(ms, ctx.signal);
  return { sleptMs: ms };
};

/** `builtin.fail` `{ message }`: always fails with that message. */
export const fail: Handler = async (ctx) => {
  const message = settings(ctx).message;
  throw new HandlerError(typeof message === 'string' && message ? message : 'builtin.fail: failed on purpose');
};

/** `builtin.flaky` `{ failTimes (integer 0..MAX_FAIL_TIMES, default 1), message? }`: fails while attempt <= failTimes, then succeeds. */
export const flaky: Handler = async (ctx) => {
  const s = settings(ctx);
  const failTimes = numberSetting(s, 'failTimes', { handler: 'builtin.flaky', fallback: 1, min: 0, max: MAX_FAIL_TIMES, integer: true });
  ctx.taskLog.info(`attempt ${ctx.attempt}: ${ctx.attempt <= failTimes ? 'failing' : 'succeeding'} (failTimes ${failTimes})`);
  if (ctx.attempt <= failTimes) {
    throw new HandlerError(
      typeof s.message === 'string' && s.message ? s.message : `builtin.flaky: attempt ${ctx.attempt} of ${failTimes} failing attempts`,
    );
  }
  return { attempt: ctx.attempt, failTimes };
};

/**
 * `builtin.ignore-abort` `{ ms }` — TEST HELPER: sleeps `ms` while deliberately
 * ignoring the AbortSignal, like a misbehaving handler stuck in a syscall. Used
 * to prove that timeouts are enforced by the worker, not by handler courtesy
 * (docs/engine-cases.md case 3). Not meant for real jobs.
 */
export const ignoreAbort: Handler = async (ctx) => {
  const ms = numberSetting(settings(ctx), 'ms', { handler: 'builtin.ignore-abort', fallback: 5000, min: 0, max: MAX_SLEEP_MS, unit: 'ms' });
  await abortableSleep(ms);
  return { sleptMs: ms, ignoredAbort: ctx.signal.aborted };
};
