import { respond, rest } from '@/app/_lib/rest';
import { countOnlineWorkers } from '@/lib/workers/list-workers';

export const dynamic = 'force-dynamic';

/** GET /api/v1/health (no auth): { status: 'ok', database: 'ok', workers: <online count> }; 503 { status: 'error', database: 'error' } when the database is down. */
export const GET = rest({ operation: 'health' }, async ({ db, now }) => {
  try {
    await db.$queryRaw`SELECT 1`;
  } catch {
    return respond(503, { status: 'error', database: 'error', workers: 0 });
  }
  return { status: 'ok', database: 'ok', workers: await countOnlineWorkers(db, now) };
});
