import { getDb } from '@/lib/db';
import { hasMetricsToken, metricsToken } from '@/lib/metrics/access';
import { consoleMetricsRegistry } from '@/lib/metrics/console-registry';

export const dynamic = 'force-dynamic';

const text = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers } });

/**
 * GET /metrics: Prometheus text format (docs/metrics.md) — the installation's
 * queue and worker gauges plus this console process's pool. Only with
 * TICKFLOW_METRICS_TOKEN set (404 otherwise: the console's port faces users)
 * and `Authorization: Bearer <token>` (401 otherwise); 503 when the database
 * cannot be read.
 */
export async function GET(req: Request): Promise<Response> {
  const token = metricsToken();
  if (token === undefined) return text(404, 'metrics are disabled on the console: set TICKFLOW_METRICS_TOKEN to enable GET /metrics\n');
  if (!hasMetricsToken(req.headers.get('authorization'), token)) {
    return text(401, 'unauthorized: send Authorization: Bearer <TICKFLOW_METRICS_TOKEN>\n', { 'www-authenticate': 'Bearer' });
  }
  const registry = consoleMetricsRegistry(getDb);
  try {
    return text(200, await registry.metrics(), { 'content-type': registry.contentType });
  } catch (err) {
    return text(503, `metrics unavailable: the database could not be read (${(err as Error).message.split('\n')[0]!.slice(0, 200)})\n`);
  }
}
