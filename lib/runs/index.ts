export * from './run-view.ts';
export * from './get-run.ts';
export * from './list-runs.ts';
export * from './run-actions.ts';
