import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { listJobAudit } from '@/lib/jobs/list-job-audit';

export const dynamic = 'force-dynamic';

/** GET /api/v1/jobs/:id/audit -> { items: [{ action, runId, taskId, actor, reason, detail, createdAt }] } newest first */
export const GET = rest({ operation: 'jobs.audit', params: IdParams }, async ({ db, params, actor }) => ({ items: await listJobAudit(db, params.id, actor) }));
