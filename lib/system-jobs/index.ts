/** System jobs: retention, idempotency-key cleanup, recycle-bin purge, stats check, and their definitions. */
export * from './retention.ts';
export * from './idempotency-cleanup.ts';
export * from './stats-check.ts';
export * from './definitions.ts';
