/**
 * The database connection pools of this process, for the `tickflow_db_pool_*`
 * metrics (docs/metrics.md). lib/db.ts registers every pool it creates.
 */
import type pg from 'pg';

const pools = new Set<pg.Pool>();

/** Counts `pool` in this process's pool metrics until it has ended. */
export function trackPool(pool: pg.Pool): void {
  pools.add(pool);
}

export interface PoolUse {
  /** connections open (busy + idle) */
  total: number;
  idle: number;
  /** requests waiting for a connection */
  waiting: number;
  /** the pools' summed size limit */
  max: number;
}

/** Connection use summed over this process's live pools. */
export function poolUse(): PoolUse {
  const use: PoolUse = { total: 0, idle: 0, waiting: 0, max: 0 };
  for (const pool of pools) {
    if ((pool as pg.Pool & { ended?: boolean }).ended) {
      pools.delete(pool);
      continue;
    }
    use.total += pool.totalCount;
    use.idle += pool.idleCount;
    use.waiting += pool.waitingCount;
    use.max += pool.options.max ?? 10;
  }
  return use;
}
