import { getDb } from '@/lib/db';
import { databaseReachable } from '@/lib/infra/database-probe';
import { hasMetricsToken, metricsToken } from '@/lib/metrics/access';
import { consoleMetricsRegistry } from '@/lib/metrics/console-registry';

export const dynamic = 'force-dynamic';

const text = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers } });

/**
 * How long a scrape waits for the database's gauges (ms): under Prometheus' default 10 s scrape
 * timeout, so a database that does not answer is a 503 the scraper sees, not a scrape that times
 * out (and the series gone) while a query waits for its own 30 s bound.
 */
const METRICS_READ_TIMEOUT_MS = 5_000;

/**
 * GET /metrics: Prometheus text format (docs/metrics.md) — the installation's
 * queue and worker gauges plus this console process's pool. Only with
 * TICKFLOW_METRICS_TOKEN set (404 otherwise: the console's port faces users)
 * and `Authorization: Bearer <token>` (401 otherwise); 503 when the database
 * cannot be read: at once while the console's probe finds it unreachable (lib/infra/database-probe.ts,
 * at most 3 s), or when its gauges take longer than METRICS_READ_TIMEOUT_MS.
 */
export async function GET(req: Request): Promise<Response> {
  const token = metricsToken();
  if (token === undefined) return text(404, 'metrics are disabled on the console: set TICKFLOW_METRICS_TOKEN to enable GET /metrics\n');
  if (!hasMetricsToken(req.headers.get('authorization'), token)) {
    return text(401, 'unauthorized: send Authorization: Bearer <TICKFLOW_METRICS_TOKEN>\n', { 'www-authenticate': 'Bearer' });
  }
  const url = process.env.DATABASE_URL;
  if (url && !(await databaseReachable(url))) return text(503, 'metrics unavailable: the database is not reachable right now\n', { 'retry-after': '5' });
  const registry = consoleMetricsRegistry(getDb);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${METRICS_READ_TIMEOUT_MS} ms`)), METRICS_READ_TIMEOUT_MS);
    });
    return text(200, await Promise.race([registry.metrics(), timeout]), { 'content-type': registry.contentType });
  } catch (err) {
    return text(503, `metrics unavailable: the database could not be read (${(err as Error).message.split('\n')[0]!.slice(0, 200)})\n`, { 'retry-after': '5' });
  } finally {
    clearTimeout(timer);
  }
}
