import { respond, rest } from '@/app/_lib/rest';
import { countOnlineWorkers } from '@/lib/workers/list-workers';
import { PROBE_TIMEOUT_MS } from '@/lib/infra/database-probe';
import { DATABASE_RETRY_AFTER_SECONDS } from '@/lib/infra/database-unavailable';

export const dynamic = 'force-dynamic';

/** The 503 body of GET /health while the database is away: the same shape as its 200, for monitors that read `.database`. */
const DATABASE_DOWN = { status: 'error', database: 'error', workers: 0 };

/**
 * GET /api/v1/health (no auth): { status: 'ok', database: 'ok', workers: <online count> }; 503 { status: 'error',
 * database: 'error', workers: 0 } with Retry-After when the database is down (the console's probe already
 * knows it, or this check's `SELECT 1` fails or does not answer within the probe's timeout: a frozen server
 * leaves the query hanging, and a load balancer's check must still get an answer).
 */
export const GET = rest({ operation: 'health', whileDatabaseDown: DATABASE_DOWN }, async ({ db, now }) => {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('health check timed out')), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([db.$queryRaw`SELECT 1`, timedOut]);
    return { status: 'ok', database: 'ok', workers: await Promise.race([countOnlineWorkers(db, now), timedOut]) };
  } catch {
    return respond(503, DATABASE_DOWN, { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) });
  } finally {
    clearTimeout(timer);
  }
});
