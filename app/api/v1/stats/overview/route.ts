import { rest } from '@/app/_lib/rest';
import { getOverview } from '@/lib/stats/get-overview';

export const dynamic = 'force-dynamic';

/** GET /api/v1/stats/overview (any role) -> lib/stats Overview: jobs by status, runs 24 h by outcome, success rate, workers, dead-letter jobs, latest failures, tasks running now, fires of the next 24 h. */
export const GET = rest({ operation: 'stats.overview' }, ({ db, now }) => getOverview(db, now));
