import net from 'node:net';

/** Where `npm start` runs the console: a TCP port and, optionally, the one address to listen on. */
export interface ConsoleListen {
  port: number;
  /** an IP address (`127.0.0.1`, `::1`, a LAN address); undefined: every interface, as Next's default */
  host?: string;
}

/**
 * Reads `PORT` (default 3000) and `TICKFLOW_HOST` (default: every interface) from `env`, for
 * scripts/start.ts. TICKFLOW_HOST takes an IP address only (a name could resolve to an address the
 * operator did not mean to expose); `127.0.0.1` keeps the console on this machine, for a reverse
 * proxy or an SSH tunnel in front of it (README "Security").
 * @throws Error naming the variable when PORT is not a port number or TICKFLOW_HOST not an IP address
 */
export function consoleListenFromEnv(env: Record<string, string | undefined>): ConsoleListen {
  const rawPort = env.PORT?.trim() || '3000';
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) throw new Error(`PORT must be a port number from 1 to 65535, not "${rawPort}"`);
  const host = env.TICKFLOW_HOST?.trim();
  if (!host) return { port };
  if (net.isIP(host) === 0) throw new Error(`TICKFLOW_HOST must be an IP address to listen on (e.g. 127.0.0.1, ::1 or 0.0.0.0), not "${host}"`);
  return { port, host };
}

/** `next start` / `next dev` arguments for `listen`: the port, and `-H` when an address is chosen. */
export function nextListenArgs(listen: ConsoleListen): string[] {
  return ['-p', String(listen.port), ...(listen.host ? ['-H', listen.host] : [])];
}

/**
 * The console's address as seen from this machine (the demo health check's URL, the start-up
 * line): loopback when it listens on every interface or on loopback, else the one address it
 * listens on (IPv6 in brackets, RFC 3986 §3.2.2).
 */
export function consoleLocalOrigin(listen: ConsoleListen): string {
  const h = listen.host;
  const addr = !h || h === '0.0.0.0' || h === '::' ? '127.0.0.1' : h;
  return `http://${net.isIPv6(addr) ? `[${addr}]` : addr}:${listen.port}`;
}

/** The console's health route, which the demo `http` job calls (prisma/seed.ts). */
export const CONSOLE_HEALTH_PATH = '/api/v1/health';

/**
 * The TICKFLOW_OUTBOUND_ALLOW entries `npm start` gives its worker so that the demo health check
 * reaches its own console (`origin`, consoleLocalOrigin's answer, and `localhost` on `port`): the
 * health route only (lib/net/outbound.ts `host:port/path`), not the console's sign-in or pages.
 */
export function consoleHealthAllowEntries(origin: string, port: number): string[] {
  return [`${new URL(origin).host}${CONSOLE_HEALTH_PATH}`, `localhost:${port}${CONSOLE_HEALTH_PATH}`];
}
