import type { Logger } from 'pino';

/**
 * A child of `base` with `bindings`, made the first time it is used. pino's child() rebuilds
 * the level methods of the new logger, which costs more than a no-op task; most attempts never
 * log, so the runner's per-attempt logger (handed to handlers as `ctx.log`) is made on demand.
 * Behaves as the child itself: every property and method is the child's.
 */
export function lazyChildLogger(base: Logger, bindings: Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const get = (): Logger => (child ??= base.child(bindings));
  return new Proxy({} as Logger, {
    get(_target, prop) {
      const c = get();
      const value: unknown = Reflect.get(c, prop, c);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(c) : value;
    },
    set(_target, prop, value) {
      return Reflect.set(get(), prop, value);
    },
    has(_target, prop) {
      return Reflect.has(get(), prop);
    },
  });
}
