import { rest } from '@/app/_lib/rest';
import { listRecycleBin } from '@/lib/jobs/list-jobs';
import { ListRecycleBinQuery } from '@/lib/api/schemas';

export const dynamic = 'force-dynamic';

/** GET /api/v1/recycle-bin?q=&limit=&cursor= -> { items (with deletedAt, deletedBy), nextCursor } */
export const GET = rest({ operation: 'recycleBin.list', queryParsedBy: ListRecycleBinQuery }, ({ db, query, actor }) => listRecycleBin(db, query, actor));
