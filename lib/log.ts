/**
 * Structured logging with pino, shared by console and worker. `LOG_LEVEL`
 * sets the level (default info; `silent` in tests unless set).
 */
import pino from 'pino';

/**
 * pino's error serializer, without the class instances an error may carry: node-postgres hangs its
 * `client` on a connection's error, and the standard serializer wrote that whole object (connection
 * parameters, the backend's cancel key, socket state) into one line of several KB. Plain objects
 * (a DomainError's `fields`), arrays and primitives are kept, and causes stay serialized by pino.
 */
export function serializeError(err: unknown): unknown {
  const out = pino.stdSerializers.err(err as Error) as unknown;
  if (!out || typeof out !== 'object') return out;
  for (const [key, value] of Object.entries(out)) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) delete (out as Record<string, unknown>)[key];
  }
  return out;
}

export const logger = pino({
  serializers: { err: serializeError },
  level: process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info'),
  // `npm start` names each process (console, worker); a process started on its own is named by
  // serviceLogger, so the key is never bound twice.
  base: process.env.TICKFLOW_SERVICE ? { service: process.env.TICKFLOW_SERVICE } : {},
  timestamp: pino.stdTimeFunctions.isoTime,
});

/** A child logger tagged with a component name, e.g. `log('ticker')`. */
export function log(component: string, bindings: Record<string, unknown> = {}) {
  return logger.child({ component, ...bindings });
}

/** The root logger tagged `service: name`, unless TICKFLOW_SERVICE already named this process. */
export function serviceLogger(name: string) {
  return process.env.TICKFLOW_SERVICE ? logger : logger.child({ service: name });
}
