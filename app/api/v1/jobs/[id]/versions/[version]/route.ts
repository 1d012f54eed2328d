import { z } from 'zod';
import { rest } from '@/app/_lib/rest';
import { getJobVersion } from '@/lib/jobs/list-versions';

export const dynamic = 'force-dynamic';

const Params = z.object({ id: z.string().min(1).max(200), version: z.coerce.number().int().min(1) });

/** GET /api/v1/jobs/:id/versions/:version -> version with its snapshot */
export const GET = rest({ params: Params }, ({ db, params, actor }) => getJobVersion(db, params.id, params.version, actor));
