// Pure schedule arithmetic (docs/design.md §4 "Scheduling"): no DB, no clock reads.
export * from './errors';
export * from './timezone';
export * from './cron';
export { weekdayTarget } from './cron-syntax';
export * from './interval';
export * from './stagger';
export * from './spec';
export * from './preview';
export * from './misfire';
export * from './backoff';
export * from './never-fires';
