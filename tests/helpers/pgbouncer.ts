/**
 * Starts Debian's PgBouncer (/usr/sbin/pgbouncer) in transaction pooling mode
 * in front of a test server, with its own config in a temporary folder, on a
 * free port (docs/operations.md "Connection poolers").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.ts';

export const PGBOUNCER_BIN = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** `url` (a database on the real server) rewritten to go through this PgBouncer */
  pooled(url: string): string;
  stop(): Promise<void>;
}


/**
 * @param serverUrl any URL of the PostgreSQL server to pool (its user and password log in to it)
 * @throws Error when the binary is missing or PgBouncer does not start listening within 10 s
 */
export async function startPgBouncer(serverUrl: string): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER_BIN)) throw new Error(`${PGBOUNCER_BIN} not found: apt-get install pgbouncer (.ci/run does it)`);
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tickflow-pgbouncer-'));
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  writeFileSync(path.join(dir, 'userlist.txt'), `${quote(user)} ${quote(password)}\n`, { mode: 0o600 });
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      // clients are the test itself on loopback; the server login uses the userlist password
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 20',
      // PgBouncer's default stance on startup options: refused. Dropping them here
      // (ignore_startup_parameters = options) once hid a pool that still sent one.
      'ignore_startup_parameters = extra_float_digits',
      'server_reset_query =',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      `pidfile = ${path.join(dir, 'pgbouncer.pid')}`,
    ].join('\n') + '\n',
  );
  // PgBouncer refuses to run as root: it then runs as the postgres user, which must own its files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = postgresIds();
    for (const f of ['', 'userlist.txt', 'pgbouncer.ini']) chownSync(path.join(dir, f), uid, gid);
  }
  const child: ChildProcess = spawn(PGBOUNCER_BIN, [...(asRoot ? ['-u', 'postgres'] : []), path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const deadline = Date.now() + 10_000;
  while (!(await canConnect(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`PgBouncer did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    pooled(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      u.password = '';
      return u.toString();
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root, PgBouncer needs a postgres user (apt-get install pgbouncer creates it)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}
