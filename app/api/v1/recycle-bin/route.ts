import { rest } from '@/app/_lib/rest';
import { listRecycleBin } from '@/lib/jobs/list-jobs';

export const dynamic = 'force-dynamic';

/** GET /api/v1/recycle-bin?q=&limit=&cursor= -> { items (with deletedAt, deletedBy), nextCursor } */
export const GET = rest({ operation: 'recycleBin.list' }, ({ db, query, actor }) => listRecycleBin(db, query, actor));
