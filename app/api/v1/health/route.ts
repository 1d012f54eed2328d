import { respond, rest } from '@/app/_lib/rest';
import { countOnlineWorkers } from '@/lib/workers/list-workers';
import { PROBE_TIMEOUT_MS } from '@/lib/infra/database-probe';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/health (no auth): { status: 'ok', database: 'ok', workers: <online count> }; 503 { status: 'error',
 * database: 'error' } when the database is down or does not answer its `SELECT 1` within the probe's timeout (a
 * frozen server leaves the query hanging; a load balancer's check must still get an answer).
 */
export const GET = rest({ operation: 'health' }, async ({ db, now }) => {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('health check timed out')), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([db.$queryRaw`SELECT 1`, timedOut]);
    return { status: 'ok', database: 'ok', workers: await Promise.race([countOnlineWorkers(db, now), timedOut]) };
  } catch {
    return respond(503, { status: 'error', database: 'error', workers: 0 });
  } finally {
    clearTimeout(timer);
  }
});
