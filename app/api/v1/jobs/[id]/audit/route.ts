import { rest } from '@/app/_lib/rest';
import { IdParams, ListJobAuditQuery } from '@/lib/api/schemas';
import { listJobAudit } from '@/lib/jobs/list-job-audit';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/jobs/:id/audit?limit=&cursor= -> { items: [{ id, action, runId, taskId, actor, reason, detail, createdAt }], nextCursor }
 * newest first; `nextCursor` (null at the oldest entry) is the `cursor` of the next, older page.
 */
export const GET = rest({ operation: 'jobs.audit', params: IdParams, resource: 'job', query: ListJobAuditQuery }, ({ db, params, query, actor }) => listJobAudit(db, params.id, actor, query));
