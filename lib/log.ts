/**
 * Structured logging with pino, shared by console and worker. `LOG_LEVEL`
 * sets the level (default info; `silent` in tests unless set).
 */
import pino from 'pino';

export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info'),
  base: { service: process.env.TICKFLOW_SERVICE ?? 'tickflow' },
  timestamp: pino.stdTimeFunctions.isoTime,
});

/** A child logger tagged with a component name, e.g. `log('ticker')`. */
export function log(component: string, bindings: Record<string, unknown> = {}) {
  return logger.child({ component, ...bindings });
}
