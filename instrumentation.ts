/**
 * Next.js start-up hook (runs once per server process). In the Node runtime it
 * installs lib/infra/http-guard.ts, which answers requests Next would turn into
 * a 500 (TRACE, malformed percent-encoding) with a 405 / 400, and
 * lib/infra/outage-status.ts, which sends a page that met a database outage
 * while rendering as a 503 instead of Next's 500.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { installHttpGuard } = await import('./lib/infra/http-guard');
  installHttpGuard();
  const { installOutageStatus } = await import('./lib/infra/outage-status');
  installOutageStatus();
}
