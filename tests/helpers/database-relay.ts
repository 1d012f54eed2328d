/**
 * A TCP relay in front of PostgreSQL that a test cuts to make the database go away between the console's
 * database probe and a page's queries, at the exact moment the test chooses: cut, it still relays the
 * probe's connections (application_name `tickflow-console-probe`, lib/infra/database-probe.ts), so the
 * probe says "reachable", and ends every other connection — those open at the cut and each new one —
 * as a server that went away does. The startup message is read in the clear: the URL it serves asks
 * for no TLS (the test server's URLs do not).
 *
 * Frozen, it plays a database that stops answering without closing anything (a hung server process,
 * a partition that drops packets): every connection but the probe's stays open and new ones are
 * accepted, but nothing is forwarded either way until it thaws, when what was held goes through in
 * order, as a server that resumes would answer.
 */
import net from 'node:net';

export interface DatabaseRelay {
  /** the target URL with the relay's host and port */
  url: string;
  /** ends every connection but the probe's, and refuses new ones the same way */
  cut(): void;
  /** relays every connection again */
  mend(): void;
  /** keeps every connection but the probe's open, new ones too, and forwards nothing until thaw */
  freeze(): void;
  /** forwards what was held, then relays as before */
  thaw(): void;
  close(): Promise<void>;
}

const PROBE_APPLICATION = 'tickflow-console-probe';

/** application_name of a PostgreSQL startup message (Int32 length, Int32 protocol, then name\0value\0 pairs), or '' */
function applicationName(startup: Buffer): string {
  const parts = startup.subarray(8).toString('utf8').split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) if (parts[i] === 'application_name') return parts[i + 1]!;
  return '';
}

/** Starts a relay to `targetUrl`'s server on 127.0.0.1, on a port the kernel picks. */
export async function startDatabaseRelay(targetUrl: string): Promise<DatabaseRelay> {
  const target = new URL(targetUrl);
  let isCut = false;
  let frozen = false;
  const open = new Set<net.Socket>();
  /** what a freeze held back, in arrival order: forwarded at thaw */
  let held: (() => void)[] = [];
  const later = (fn: () => void) => (frozen ? held.push(fn) : fn());
  const server = net.createServer((client) => {
    client.on('error', () => undefined);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length < 8 || head.length < head.readInt32BE(0)) return;
      client.off('data', onData);
      client.pause();
      const probe = applicationName(head.subarray(0, head.readInt32BE(0))) === PROBE_APPLICATION;
      if (isCut && !probe) {
        client.destroy();
        return;
      }
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      if (probe) {
        upstream.write(head);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
        return;
      }
      open.add(client);
      client.on('close', () => open.delete(client));
      // by hand rather than pipe(), so that a freeze can hold each chunk back; a test's traffic is small
      const forward = (from: net.Socket, to: net.Socket) => from.on('data', (chunk: Buffer) => later(() => to.writable && to.write(chunk)));
      later(() => upstream.write(head));
      forward(client, upstream);
      forward(upstream, client);
      client.resume();
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    cut() {
      isCut = true;
      for (const socket of open) socket.destroy();
    },
    mend() {
      isCut = false;
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      const due = held;
      held = [];
      for (const fn of due) fn();
    },
    close() {
      frozen = false;
      held = [];
      for (const socket of open) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
