export * from './run-view.ts';
export * from './get-run.ts';
export * from './list-runs.ts';
export * from './run-actions.ts';
export * from './job-grid.ts';
export * from './job-calendar.ts';
