import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killOrphanedServerProcesses, orphanedServerProcesses } from './orphaned-server-processes.ts';

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A process as a backend looks in /proc: working directory the data directory, a `postgres: …` title. */
function fakeBackend(cwd: string, title = 'postgres: tickflow tickflow 127.0.0.1(5000) SELECT'): ChildProcess {
  const c = spawn('sleep', ['30'], { cwd, argv0: title, stdio: 'ignore' });
  children.push(c);
  return c;
}

const waitForStart = () => new Promise((r) => setTimeout(r, 100));

describe('orphaned server processes (lib/infra/orphaned-server-processes.ts)', () => {
  it('finds the postgres processes working in the data directory and nothing else, and kills them', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tickflow-pgdata-'));
    const otherDir = mkdtempSync(path.join(tmpdir(), 'tickflow-other-'));
    dirs.push(dataDir, otherDir);
    const backend = fakeBackend(dataDir);
    const elsewhere = fakeBackend(otherDir);
    const notPostgres = fakeBackend(dataDir, 'sleep');
    await waitForStart();
    expect(orphanedServerProcesses(dataDir)).toEqual([backend.pid]);
    const exited = new Promise((r) => backend.once('exit', (_code, signal) => r(signal)));
    expect(await killOrphanedServerProcesses(dataDir)).toEqual([backend.pid]);
    expect(await exited).toBe('SIGKILL');
    expect(orphanedServerProcesses(dataDir)).toEqual([]);
    // the others are untouched
    expect(elsewhere.exitCode).toBeNull();
    expect(notPostgres.exitCode).toBeNull();
    expect(elsewhere.signalCode).toBeNull();
  });

  it('finds nothing for a directory that does not exist', () => {
    expect(orphanedServerProcesses(path.join(tmpdir(), 'tickflow-no-such-dir-x9'))).toEqual([]);
  });
});
