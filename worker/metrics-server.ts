/**
 * A worker's Prometheus endpoint: `GET /metrics` on TICKFLOW_METRICS_HOST:
 * TICKFLOW_METRICS_PORT (docs/metrics.md). Anything else is a 404; with
 * TICKFLOW_METRICS_TOKEN set, a request without that bearer token is a 401.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type client from 'prom-client';
import { hasMetricsToken } from '../lib/metrics/access.ts';

export interface MetricsServer {
  /** the port it listens on (useful with port 0) */
  port: number;
  close(): Promise<void>;
}

/**
 * Starts the server.
 * @param registry what to serve
 * @param opts host and port to bind; token to require (undefined: none)
 * @throws Error when the address cannot be bound (e.g. EADDRINUSE)
 */
export async function startMetricsServer(registry: client.Registry, opts: { host: string; port: number; token?: string }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    if (opts.token !== undefined && !hasMetricsToken(req.headers.authorization, opts.token)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('unauthorized: send Authorization: Bearer <TICKFLOW_METRICS_TOKEN>\n');
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : body),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics collection failed: ${err.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
