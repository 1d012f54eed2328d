import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { JobGridQuery } from '@/lib/api/view-schemas';
import { getJobGrid } from '@/lib/runs/job-grid';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/jobs/:id/grid?limit=&cursor= (any role) -> { jobId, runs: [oldest..newest], steps: [DAG order],
 * cells: { runId: { stepKey: { taskId, status, attempt, startedAt, finishedAt, durationMs } } }, nextCursor }.
 * `limit` 1-100 (default 25); `cursor` pages to older runs. 400 names the field.
 */
export const GET = rest({ operation: 'jobs.grid', params: IdParams, resource: 'job', query: JobGridQuery }, async ({ db, params, query, actor }) => getJobGrid(db, params.id, query, actor));
