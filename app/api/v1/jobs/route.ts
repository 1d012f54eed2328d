import { rest } from '@/app/_lib/rest';
import { createJob } from '@/lib/jobs/create-job';
import { listJobs } from '@/lib/jobs/list-jobs';
import { ListJobsQuery } from '@/lib/api/schemas';

export const dynamic = 'force-dynamic';

/** GET /api/v1/jobs?q=&status=&scheduleKind=&handler=&sort=&dir=&limit=&cursor= -> { items, nextCursor } */
export const GET = rest({ operation: 'jobs.list', queryParsedBy: ListJobsQuery }, ({ db, query, actor, now }) => listJobs(db, query, actor, now));

/** POST /api/v1/jobs (CreateJobInput) -> 201 job */
export const POST = rest({ operation: 'jobs.create', status: 201 }, ({ db, body, actor, now }) =>
  createJob(db, body, actor, now),
);
