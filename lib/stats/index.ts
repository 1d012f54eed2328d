/**
 * Stats read models and the rebuild proof. The write side (the upsert inside task
 * completion) is the engine's: lib/engine/sql/record-handler-stats.ts, rule in lib/engine/sql/stats-outcome.ts.
 * Day boundaries: the `stats.timezone` setting (default UTC; lib/stats/stats-zone.ts).
 */
export * from './dates.ts';
export * from './percentiles.ts';
export * from './get-daily-stats.ts';
export * from './get-overview.ts';
export * from './rebuild-stats.ts';
export * from './chart-data.ts';
