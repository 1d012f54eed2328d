import { sumBuckets } from './percentiles.ts';

/** The columns of a handler_stats_daily row that readers use (Prisma's shape). */
export interface StatsSlotRow {
  statDate: Date;
  handler: string;
  success: number;
  failure: number;
  timeout: number;
  deadLetter: number;
  totalDurationMs: bigint;
  maxDurationMs: number;
  totalLatenessMs: bigint;
  latenessCount: number;
  durationBuckets: number[];
}

/**
 * Folds the slot rows of each (statDate, handler) into one (lib/engine/stats.ts
 * STATS_SLOTS): counters and totals add up, max takes the largest, histograms add
 * element-wise. Order of first appearance is kept, so rows read sorted by
 * (statDate, handler) stay sorted.
 * @param rows handler_stats_daily rows, any number of slots per (statDate, handler)
 */
export function mergeStatsSlots<R extends StatsSlotRow>(rows: readonly R[]): StatsSlotRow[] {
  const merged = new Map<string, StatsSlotRow>();
  for (const r of rows) {
    const key = `${r.statDate.toISOString()}\u0000${r.handler}`;
    const m = merged.get(key);
    if (!m) {
      merged.set(key, {
        statDate: r.statDate, handler: r.handler, success: r.success, failure: r.failure, timeout: r.timeout,
        deadLetter: r.deadLetter, totalDurationMs: r.totalDurationMs, maxDurationMs: r.maxDurationMs,
        totalLatenessMs: r.totalLatenessMs, latenessCount: r.latenessCount, durationBuckets: [...r.durationBuckets],
      });
      continue;
    }
    m.success += r.success;
    m.failure += r.failure;
    m.timeout += r.timeout;
    m.deadLetter += r.deadLetter;
    m.totalDurationMs += r.totalDurationMs;
    m.maxDurationMs = Math.max(m.maxDurationMs, r.maxDurationMs);
    m.totalLatenessMs += r.totalLatenessMs;
    m.latenessCount += r.latenessCount;
    m.durationBuckets = sumBuckets([m.durationBuckets, r.durationBuckets]);
  }
  return [...merged.values()];
}
