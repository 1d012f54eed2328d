export * from './list-workers.ts';
export * from './drain-worker.ts';
export * from './node-status.ts';
