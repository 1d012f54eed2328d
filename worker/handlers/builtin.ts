/**
 * Built-in function handlers: small, dependency-free building blocks for demos,
 * health checks and tests. Settings come from the step config overlaid by the
 * payload (see `settings()`).
 */
import { abortableSleep, HandlerError, numberSetting, settings, type Handler } from './types.ts';


/** `builtin.noop`: does nothing, succeeds with null output. */
export const noop: Handler = async () => null;

/** `builtin.echo`: output = payload. */
export const echo: Handler = async (ctx) => ctx.payload;

/**
 * `builtin.sleep` `{ ms }` (default 1000; 0..7 days, lib/handlers/number-settings.ts, anything
 * else fails the attempt naming `payload.ms`): waits, honouring the
 * AbortSignal; output `{ sleptMs }`.
 */
export const sleep: Handler = async (ctx) => {
  const ms = numberSetting(settings(ctx), 'builtin.sleep', 'ms', 1000);
  ctx.taskLog.info(`sleeping ${ms} ms`);
  await abortableSleep(ms, ctx.signal);
  return { sleptMs: ms };
};

/** `builtin.fail` `{ message }`: always fails with that message. */
export const fail: Handler = async (ctx) => {
  const message = settings(ctx).message;
  throw new HandlerError(typeof message === 'string' && message ? message : 'builtin.fail: failed on purpose');
};

/** `builtin.flaky` `{ failTimes (integer 0..1,000,000, default 1), message? }`: fails while attempt <= failTimes, then succeeds. */
export const flaky: Handler = async (ctx) => {
  const s = settings(ctx);
  const failTimes = numberSetting(s, 'builtin.flaky', 'failTimes', 1);
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
  const ms = numberSetting(settings(ctx), 'builtin.ignore-abort', 'ms', 5000);
  await abortableSleep(ms);
  return { sleptMs: ms, ignoredAbort: ctx.signal.aborted };
};
