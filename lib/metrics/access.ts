/**
 * Who may read /metrics (docs/metrics.md "Access"): with TICKFLOW_METRICS_TOKEN
 * set, only a request carrying `Authorization: Bearer <that token>` (compared in
 * constant time). The console serves metrics only when a token is set (deny by
 * default: its port faces users); a worker's metrics server listens only where
 * the operator put it (TICKFLOW_METRICS_HOST, loopback by default) and checks
 * the token when one is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * @param authorization the request's Authorization header
 * @param token the configured token (TICKFLOW_METRICS_TOKEN)
 * @returns true when the header is `Bearer <token>`
 */
export function hasMetricsToken(authorization: string | null | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return m !== null && timingSafeEqual(digest(m[1]!), digest(token));
}

/** The configured metrics token, or undefined when unset or blank. */
export function metricsToken(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.TICKFLOW_METRICS_TOKEN?.trim() || undefined;
}
