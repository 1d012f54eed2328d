/**
 * The console process's metrics registry (docs/metrics.md): one per process,
 * cached on globalThis so Next's dev reloads do not register the metrics twice.
 */
import type client from 'prom-client';
import type { Db } from '../db.ts';
import { createRegistry, registerClusterMetrics } from './metrics.ts';

const holder = globalThis as unknown as { tickflowConsoleMetrics?: client.Registry };

/** The registry with the installation-wide gauges (read through `db`) and this process's pool. */
export function consoleMetricsRegistry(db: () => Db): client.Registry {
  if (!holder.tickflowConsoleMetrics) {
    const registry = createRegistry();
    registerClusterMetrics(registry, db);
    holder.tickflowConsoleMetrics = registry;
  }
  return holder.tickflowConsoleMetrics;
}
