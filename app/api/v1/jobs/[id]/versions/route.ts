import { rest } from '@/app/_lib/rest';
import { IdParams, ListVersionsQuery } from '@/lib/api/schemas';
import { listVersions } from '@/lib/jobs/list-versions';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/jobs/:id/versions?limit=&cursor= -> { items: [{ version, changeType, reason, createdBy, createdAt, rollbackRefusal }], nextCursor }
 * newest first; `nextCursor` (null at v1) is the `cursor` of the next, older page.
 */
export const GET = rest({ operation: 'jobs.versions', params: IdParams, resource: 'job', query: ListVersionsQuery }, ({ db, params, query, actor }) => listVersions(db, params.id, actor, query));
