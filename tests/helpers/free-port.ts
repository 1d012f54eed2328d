import { readFileSync } from 'node:fs';
import net from 'node:net';

/** The kernel's range of ephemeral ports (ports it gives outgoing connections), per /proc/sys/net/ipv4/ip_local_port_range. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low > 0 && high >= low) return [low, high];
  } catch {
    // not Linux: the range IANA suggests and most kernels use
  }
  return [49152, 65535];
}

/** Resolves true when `port` could be bound a moment ago: on `host`, or on every interface when none is given. */
export function portFree(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, for the caller to bind next, chosen at random
 * below the kernel's ephemeral range (ephemeralRange). A port the kernel picks (listen on port 0) is an
 * ephemeral one, which the kernel may hand to any outgoing connection (another test's database client)
 * as its local port as soon as it is free: a test that frees its port and binds it again (a restarted
 * server, a squatter on it) then met EADDRINUSE. Outside that range only another listener can take it.
 * Tries up to 200 ports; throws when none is free.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const from = Math.min(20_000, Math.max(1_024, low - 10_000));
  const to = low - 1;
  if (to <= from) throw new Error(`freePort: no room below the ephemeral range (it starts at ${low})`);
  for (let i = 0; i < 200; i++) {
    const port = from + Math.floor(Math.random() * (to - from + 1));
    if (await portFree(port, '127.0.0.1')) return port;
  }
  throw new Error(`freePort: no free port among 200 tried in ${from}–${to}`);
}
