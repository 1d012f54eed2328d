/**
 * Structured logging with pino, shared by console and worker. `LOG_LEVEL`
 * sets the level (default info; `silent` in tests unless set).
 */
import pino from 'pino';

export const logger = pino({
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
