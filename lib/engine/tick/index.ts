// The tick: fires due jobs and advances next_run_at (see run-tick.ts).
export * from './run-tick.ts';
export * from './plan-job-fire.ts';
export * from './sql/next-job-due.ts';
