/**
 * The embedded PostgreSQL's own side of the supervisor's restarts (lib/infra/embedded-postgres.ts,
 * used by scripts/start.ts): an exit nobody asked for is reported with how it ended, a stop is
 * not; restart() starts the same cluster again in place, or says why it cannot and whether a
 * later try may help. A real server on a data directory of its own; the whole stack's side is in
 * tests/integration/service-manager.test.ts.
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedRestartError, runningEmbeddedServer, startEmbeddedPostgres, type EmbeddedServer } from '../../lib/infra/embedded-postgres.ts';
import { freePort } from '../helpers/free-port.ts';
import { waitFor } from './worker-fixtures.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = path.join(ROOT, '.tickflow', `embedded-restart-test-${process.pid}`);
let server: EmbeddedServer | undefined;

afterEach(async () => {
  await server?.stop();
  server = undefined;
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(`${dataDir}.moved`, { recursive: true, force: true });
  rmSync(`${dataDir}.password`, { force: true });
});

/** A started server on a fresh cluster, its port, and the exits it reported. */
async function started() {
  const port = await freePort();
  // durable (not `fast`): a commit just before a kill -9 must survive it, as in `npm start`
  server = await startEmbeddedPostgres({ dataDir, port, log: () => undefined });
  const exits: string[] = [];
  server.onUnexpectedExit((how) => exits.push(how));
  return { server, port, exits };
}

const postmasterPid = () => Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

async function killPostmaster(srv: EmbeddedServer, exits: string[], pid = postmasterPid()) {
  process.kill(pid, 'SIGKILL');
  await waitFor(() => exits.length > 0, 5_000, 'the exit reported', 20);
  expect(srv.running()).toBe(false);
}

function runningOrZombie(pid: number): string {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1')) ? 'zombie or gone' : 'running';
  } catch {
    return 'zombie or gone';
  }
}

/** The error restart() rejects with. */
async function restartError(srv: EmbeddedServer): Promise<EmbeddedRestartError> {
  const error = await srv.restart().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(EmbeddedRestartError);
  return error as EmbeddedRestartError;
}

describe('the embedded PostgreSQL under a supervisor', { timeout: 60_000 }, () => {
  it('kill -9 is reported as such; restart() brings back the same cluster, which a stop then ends without a report', async () => {
    const { server: srv, exits } = await started();
    const client = new pg.Client({ connectionString: srv.adminUrl });
    await client.connect();
    await client.query('CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)');
    await client.end();

    await killPostmaster(srv, exits);
    expect(exits).toEqual(['killed by SIGKILL']);
    await srv.restart();
    expect(srv.running()).toBe(true);
    const again = new pg.Client({ connectionString: srv.adminUrl });
    await again.connect();
    try {
      expect((await again.query('SELECT x FROM kept')).rows).toEqual([{ x: 42 }]);
    } finally {
      await again.end();
    }

    expect(await srv.stop()).toBe('fast shutdown, exit 0');
    expect(exits).toEqual(['killed by SIGKILL']);
  });

  it('a backend the killed server left in a long query is ended, so the restart does not fail on the shared memory it holds', async () => {
    const { server: srv, exits } = await started();
    const client = new pg.Client({ connectionString: srv.adminUrl });
    client.on('error', () => undefined);
    await client.connect();
    const backendPid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    // a CPU-bound statement: the backend notices its postmaster's death only when it ends
    const long = client.query('SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b').catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    await killPostmaster(srv, exits);
    expect(() => process.kill(backendPid, 0)).not.toThrow(); // still running, with no postmaster
    await srv.restart();
    expect(srv.running()).toBe(true);
    expect(runningOrZombie(backendPid)).toBe('zombie or gone'); // ended (a zombie until whoever inherited it reaps it)
    const again = new pg.Client({ connectionString: srv.adminUrl });
    await again.connect();
    try {
      expect((await again.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await again.end();
    }
    await long;
    await client.end().catch(() => undefined);
  });

  it('a server that exits while starting: a retry may help, and PostgreSQL’s own FATAL line says why', async () => {
    const { server: srv, exits } = await started();
    await killPostmaster(srv, exits);
    appendFileSync(path.join(dataDir, 'postgresql.conf'), '\nshared_buffers = nonsense\n');
    const error = await restartError(srv);
    expect(error.retry).toBe(true);
    expect(error.message).toMatch(/^exited while starting \(exit 1; FATAL: configuration file ".*postgresql\.conf" contains errors\)$/);
    // its failed start is the restart's failure, not one more unexpected exit
    expect(exits).toEqual(['killed by SIGKILL']);
  });

  it('its data directory gone: no retry can help, and no empty cluster is made in its place', async () => {
    const { server: srv, exits } = await started();
    const pid = postmasterPid();
    renameSync(dataDir, `${dataDir}.moved`);
    await killPostmaster(srv, exits, pid);
    const error = await restartError(srv);
    expect([error.retry, error.message]).toEqual([false, `its data directory ${dataDir} is gone (no PG_VERSION in it)`]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('another program on its port: no retry can help', async () => {
    const { server: srv, port, exits } = await started();
    await killPostmaster(srv, exits);
    const squatter = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(port, '127.0.0.1', resolve));
    try {
      const error = await restartError(srv);
      expect([error.retry, error.message]).toEqual([false, `another program took its port ${port}`]);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });

  // A postmaster.pid outlives a server that died (kill -9, a power cut); after a reboot or a trip round
  // the pid space (32,768 numbers by default), its pid is some other program's.
  describe('a postmaster.pid left by a dead server whose pid another program has now', () => {
    async function staleLockFile() {
      const { server: srv, port, exits } = await started();
      const lockFile = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8');
      await killPostmaster(srv, exits);
      // run as the server's own user (as root: postgres), the one case PostgreSQL itself cannot tell from its postmaster
      const asServerUser = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) } : {};
      const other = spawn('sleep', ['30'], { detached: true, stdio: 'ignore', ...asServerUser });
      await waitFor(() => runningOrZombie(other.pid!) === 'running', 5_000, 'the other program running', 20);
      writeFileSync(path.join(dataDir, 'postmaster.pid'), lockFile.replace(/^\d+/, String(other.pid)));
      const stillRunning = async () => {
        await new Promise((r) => setTimeout(r, 200));
        return other.exitCode === null && other.signalCode === null;
      };
      return { srv, port, other, stillRunning };
    }

    it('a new start leaves that program alone and starts the server; nothing takes that program for a running server', async () => {
      const { port, other, stillRunning } = await staleLockFile();
      try {
        expect(runningEmbeddedServer(dataDir)).toBeNull();
        const lines: string[] = [];
        server = await startEmbeddedPostgres({ dataDir, port, log: (l) => lines.push(l) });
        expect(lines.join('\n')).toMatch(new RegExp(`postmaster\\.pid names pid ${other.pid}, which is another program now .*removing the stale file`));
        expect(await stillRunning()).toBe(true);
        const client = new pg.Client({ connectionString: server.adminUrl });
        await client.connect();
        await client.end();
        expect(runningEmbeddedServer(dataDir)?.pid).toBe(postmasterPid());
      } finally {
        other.kill('SIGKILL');
      }
    });

    it('restart() in place does the same', async () => {
      const { srv, other, stillRunning } = await staleLockFile();
      try {
        await srv.restart();
        expect(srv.running()).toBe(true);
        expect(await stillRunning()).toBe(true);
        expect(postmasterPid()).not.toBe(other.pid);
      } finally {
        other.kill('SIGKILL');
      }
    });
  });
});
