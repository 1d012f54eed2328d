/** Tab ids of the job page (`?tab=`). Kept out of the 'use client' module so server pages can read the values. */
export const JOB_TABS = ['overview', 'graph', 'runs', 'grid', 'calendar', 'versions'] as const;
export type JobTab = (typeof JOB_TABS)[number];
