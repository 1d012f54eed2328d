import { rest } from '@/app/_lib/rest';
import { DiffQuery, IdParams } from '@/lib/api/schemas';
import { diffVersions } from '@/lib/jobs/diff-versions';

export const dynamic = 'force-dynamic';

/** GET /api/v1/jobs/:id/diff?from=&to= -> { jobId, from, to, diff: { fields, steps, edges, changedFields } } */
export const GET = rest({ operation: 'jobs.diff', params: IdParams, resource: 'job', query: DiffQuery }, ({ db, params, query, actor }) =>
  diffVersions(db, params.id, query.from, query.to, actor),
);
