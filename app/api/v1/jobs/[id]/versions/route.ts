import { rest } from '@/app/_lib/rest';
import { IdParams, ListVersionsQuery } from '@/lib/api/schemas';
import { listVersions } from '@/lib/jobs/list-versions';

export const dynamic = 'force-dynamic';

/** GET /api/v1/jobs/:id/versions -> { items: [{ version, changeType, reason, createdBy, createdAt }] } newest first */
export const GET = rest({ operation: 'jobs.versions', params: IdParams, query: ListVersionsQuery }, async ({ db, params, query, actor }) => ({
  items: await listVersions(db, params.id, actor, { limit: query.limit }),
}));
