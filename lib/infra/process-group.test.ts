import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { signalProcessGroup } from './process-group.ts';
import { recordProcess, signalIfSame, type ProcessRecord } from '../../tests/helpers/process-identity.ts';

const spawned: ChildProcess[] = [];
const strays: ProcessRecord[] = [];
afterEach(() => {
  for (const c of spawned.splice(0)) c.kill('SIGKILL');
  // as recorded: a sleeper already gone may have passed its number on
  for (const p of strays.splice(0)) signalIfSame(p, 'SIGKILL');
});

/** `sh -c script` in a group of its own, and the pid of the `sleep` it started in the background (the script echoes `$!`). */
async function groupWithSleeper(script: string): Promise<{ child: ChildProcess; sleeper: number }> {
  const child = spawn('sh', ['-c', script], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  spawned.push(child);
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  const sleeper = Number(chunk.toString().trim());
  strays.push(recordProcess(sleeper));
  return { child, sleeper };
}

/** Alive and not a zombie (a killed process reparented to a PID 1 that does not reap stays one). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms = 5_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe('signalProcessGroup (lib/infra/process-group.ts)', () => {
  it('reaches a running child and everything in its group', async () => {
    const { child, sleeper } = await groupWithSleeper('sleep 30 >/dev/null 2>&1 & echo $!; wait');
    expect(signalProcessGroup(child, 'SIGKILL')).toBe(true);
    const [, signal] = await once(child, 'exit');
    expect(signal).toBe('SIGKILL');
    expect(await until(() => !running(sleeper))).toBe(true);
  });

  it('after the child exited, reaches what it left in its group', async () => {
    const { child, sleeper: leftover } = await groupWithSleeper('sleep 30 >/dev/null 2>&1 & echo $!');
    if (child.exitCode === null) await once(child, 'exit');
    expect(running(leftover)).toBe(true);
    expect(signalProcessGroup(child, 'SIGKILL')).toBe(true);
    expect(await until(() => !running(leftover))).toBe(true);
  });

  it('after the child exited, leaves alone a process that now has its pid number and leads a group of that id', async () => {
    // Reuse of a reaped child's number, as the kernel does once it has gone round its pid space: a
    // process that leads its own group and whose pid is the number the exited child had.
    const other = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    spawned.push(other);
    await until(() => running(other.pid!));
    const reapedLongAgo = { pid: other.pid, exitCode: 0, signalCode: null };
    expect(signalProcessGroup(reapedLongAgo, 'SIGKILL')).toBe(false);
    await new Promise((r) => setTimeout(r, 200));
    expect(other.exitCode).toBeNull();
    expect(other.signalCode).toBeNull();
    expect(running(other.pid!)).toBe(true);
  });

  it('sends nothing for a child without a pid (spawn failed) or whose group is gone', async () => {
    expect(signalProcessGroup({ pid: undefined, exitCode: null, signalCode: null }, 'SIGKILL')).toBe(false);
    const child = spawn('true', [], { detached: true, stdio: 'ignore' });
    spawned.push(child);
    await once(child, 'exit');
    expect(signalProcessGroup(child, 'SIGTERM')).toBe(false);
  });
});
