import { rest } from '@/app/_lib/rest';
import { VersionParams } from '@/lib/api/schemas';
import { getJobVersion } from '@/lib/jobs/list-versions';

export const dynamic = 'force-dynamic';

/** GET /api/v1/jobs/:id/versions/:version (version 1..2147483647) -> version with its snapshot */
export const GET = rest({ operation: 'jobs.version', params: VersionParams, resource: 'job' }, ({ db, params, actor }) => getJobVersion(db, params.id, params.version, actor));
