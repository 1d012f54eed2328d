/**
 * The shell guardian's protocol lines, and its script run by the real /bin/sh on real process
 * groups: end of file on its stdin (what the worker's death looks like to it) kills what is
 * registered and removes the registered directories, and nothing else; silence past the dead
 * man's deadline (a worker that lives but cannot act) kills the registered groups.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALIVE_EVERY_MS, GUARDIAN_SCRIPT, SHELL_WORKDIR_PREFIX, createShellGuardian, guardianLine } from './shell-guardian';
import { signalProcessGroup } from '../../lib/infra/process-group.ts';

describe('guardianLine', () => {
  it('registers and unregisters groups and temp directories, one line each', () => {
    expect(guardianLine('group', true, 4242)).toBe('G 4242\n');
    expect(guardianLine('group', false, 4242)).toBe('g 4242\n');
    expect(guardianLine('dir', true, '/tmp/tickflow-shell-a b')).toBe('D /tmp/tickflow-shell-a b\n');
    expect(guardianLine('dir', false, '/tmp/tickflow-shell-x')).toBe('d /tmp/tickflow-shell-x\n');
  });

  it('refuses what the guardian could turn into the wrong kill or rm', () => {
    // pid 1 / 0 / -1 as a group would be init, our own group, or every process
    for (const bad of [0, 1, -1, 2.5, Number.NaN]) expect(() => guardianLine('group', true, bad)).toThrow(/process group id/);
    for (const bad of ['/etc', 'tmp/tickflow-shell-x', '/tickflow-shell-x', '/tmp/tickflow-shell-x\n/etc', '/tmp/other']) {
      expect(() => guardianLine('dir', true, bad)).toThrow(/refusing/);
    }
  });
});

/** Live (not zombie) processes whose process group is `pgid` (Linux /proc). */
function liveInGroup(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // state ppid pgrp ...
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(name));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 25))) if (check()) return true;
  return check();
}

const started: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of started.splice(0)) signalProcessGroup(c, 'SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A process group like a shell attempt's: `sh -c` (the leader) with a `sleep` child. */
function group(): number {
  const c = spawn('/bin/sh', ['-c', 'sleep 97; echo done'], { detached: true, stdio: 'ignore' });
  started.push(c);
  return c.pid!;
}

describe('GUARDIAN_SCRIPT (/bin/sh)', () => {
  it('at end of input: SIGKILLs every registered group (children too) and removes registered dirs; unregistered ones stay', async () => {
    const killed = group();
    const kept = group();
    const gone = mkdtempSync(path.join(os.tmpdir(), SHELL_WORKDIR_PREFIX));
    const stays = mkdtempSync(path.join(os.tmpdir(), SHELL_WORKDIR_PREFIX));
    dirs.push(gone, stays);
    expect(await until(() => liveInGroup(killed).length === 2 && liveInGroup(kept).length === 2, 5000)).toBe(true);

    const guardian = spawn('/bin/sh', ['-c', GUARDIAN_SCRIPT], { stdio: ['pipe', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    guardian.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    guardian.stdin!.write(guardianLine('group', true, killed) + guardianLine('group', true, kept) + guardianLine('group', false, kept));
    guardian.stdin!.write(guardianLine('dir', true, gone) + guardianLine('dir', true, stays) + guardianLine('dir', false, stays));
    // lines the script must ignore: what guardianLine refuses to write
    guardian.stdin!.write('D /etc\nG 1x\nG -1\nhello\n');
    // idle: nothing happens while the worker's end is open
    await new Promise((r) => setTimeout(r, 300));
    expect(liveInGroup(killed)).toHaveLength(2);
    expect(existsSync(gone)).toBe(true);

    guardian.stdin!.end(); // the worker's end closes: what its death looks like from here
    const exit = await new Promise<number | null>((r) => guardian.once('exit', (code) => r(code)));
    expect(exit).toBe(0);
    expect(stderr).toBe('');
    expect(await until(() => liveInGroup(killed).length === 0, 3000)).toBe(true);
    expect(existsSync(gone)).toBe(false);
    expect(liveInGroup(kept)).toHaveLength(2);
    expect(existsSync(stays)).toBe(true);
    expect(existsSync('/etc')).toBe(true);
  });

  it('ignores the signals a worker\'s process group or terminal gets (HUP, INT, TERM, QUIT)', async () => {
    const guardian = spawn('/bin/sh', ['-c', GUARDIAN_SCRIPT], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    await new Promise((r) => guardian.stdout!.once('data', r)); // `ready`: the traps are set
    for (const sig of ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGQUIT'] as const) guardian.kill(sig);
    await new Promise((r) => setTimeout(r, 200));
    expect(guardian.exitCode).toBe(null);
    expect(guardian.signalCode).toBe(null);
    guardian.stdin!.end();
    expect(await new Promise((r) => guardian.once('exit', (code) => r(code)))).toBe(0);
  });
});

describe('the dead man\'s deadline', () => {
  /** A guardian reading the time from a file the test writes (/proc/uptime's format), checking it every 50 ms. */
  function guardianWithClock() {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'guardian-clock-'));
    dirs.push(dir);
    const clock = path.join(dir, 'uptime');
    const setClock = (seconds: string) => writeFileSync(clock, `${seconds} 1.00\n`);
    setClock('1000.00');
    const guardian = spawn('/bin/sh', ['-c', GUARDIAN_SCRIPT], {
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: true,
      env: { PATH: process.env.PATH!, TICKFLOW_GUARDIAN_CLOCK: clock, TICKFLOW_GUARDIAN_TICK: '0.05' } as unknown as NodeJS.ProcessEnv,
    });
    started.push(guardian);
    let stderr = '';
    guardian.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    return { guardian, setClock, stderr: () => stderr };
  }
  const settle = () => new Promise((r) => setTimeout(r, 400)); // 8 of the guardian's checks

  it('SIGKILLs the registered groups once its clock passes the deadline `A` set, not before; a later `A` moves it; the directories stay', async () => {
    const killed = group();
    const kept = group();
    const dir = mkdtempSync(path.join(os.tmpdir(), SHELL_WORKDIR_PREFIX));
    dirs.push(dir);
    expect(await until(() => liveInGroup(killed).length === 2 && liveInGroup(kept).length === 2, 5000)).toBe(true);
    const { guardian, setClock, stderr } = guardianWithClock();
    guardian.stdin!.write(guardianLine('group', true, killed) + guardianLine('group', true, kept) + guardianLine('group', false, kept) + guardianLine('dir', true, dir));
    guardian.stdin!.write('A 2000\n'); // at 1000.00: until 1002.00
    guardian.stdin!.write('A 2x\nA\nA -5\n'); // not numbers: ignored
    setClock('1001.99');
    await settle();
    expect(liveInGroup(killed)).toHaveLength(2);

    guardian.stdin!.write('A 1500\n'); // at 1001.99: until 1003.49
    await settle();
    setClock('1003.00'); // past the first deadline, not the second
    await settle();
    expect(liveInGroup(killed)).toHaveLength(2);

    setClock('1003.49');
    expect(await until(() => liveInGroup(killed).length === 0, 3000)).toBe(true);
    expect(liveInGroup(kept)).toHaveLength(2);
    expect(existsSync(dir)).toBe(true);
    expect(guardian.exitCode).toBe(null); // it stays, for the worker's next attempts

    // After a kill the deadline is gone: a group registered later waits for an `A` of its own.
    const later = group();
    expect(await until(() => liveInGroup(later).length === 2, 5000)).toBe(true);
    guardian.stdin!.write(guardianLine('group', true, later));
    setClock('1100.00');
    await settle();
    expect(liveInGroup(later)).toHaveLength(2);

    guardian.stdin!.end();
    expect(await new Promise((r) => guardian.once('exit', (code) => r(code)))).toBe(0);
    expect(await until(() => liveInGroup(later).length === 0, 3000)).toBe(true);
    expect(existsSync(dir)).toBe(false);
    expect(stderr()).toBe('');
  });

  it('with no `A` there is no deadline: only the worker\'s death kills', async () => {
    const g = group();
    expect(await until(() => liveInGroup(g).length === 2, 5000)).toBe(true);
    const { guardian, setClock } = guardianWithClock();
    guardian.stdin!.write(guardianLine('group', true, g));
    setClock('999999.00');
    await settle();
    expect(liveInGroup(g)).toHaveLength(2);
    guardian.stdin!.end();
    expect(await until(() => liveInGroup(g).length === 0, 3000)).toBe(true);
  });

  it('the handle: a watched guardian hears `A` every second while groups run; a process silent past the deadline loses them, and knows it', async () => {
    const handle = createShellGuardian('/bin/sh', { TICKFLOW_GUARDIAN_TICK: '0.05' });
    const deadlineMs = ALIVE_EVERY_MS + 500;
    handle.watch(() => deadlineMs);
    await handle.ready();
    started.push({ pid: handle.pid } as ChildProcess);

    // The event loop free: the words keep coming, the group lives past several deadlines.
    const lives = group();
    expect(await until(() => liveInGroup(lives).length === 2, 5000)).toBe(true);
    const since = performance.now();
    handle.addGroup(lives);
    await new Promise((r) => setTimeout(r, 3 * deadlineMs));
    expect(liveInGroup(lives)).toHaveLength(2);
    expect(handle.silentPastDeadlineSince(since)).toBe(0);

    // The event loop blocked (what SIGSTOP looks like to the guardian): no word for twice the deadline.
    const blockedAt = performance.now();
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2 * deadlineMs);
    expect(await until(() => liveInGroup(lives).length === 0, 2000)).toBe(true);
    expect(handle.silentPastDeadlineSince(blockedAt)).toBeGreaterThan(deadlineMs);

    // Awake again: the next group has a deadline of its own and lives.
    handle.removeGroup(lives);
    const next = group();
    expect(await until(() => liveInGroup(next).length === 2, 5000)).toBe(true);
    const nextSince = performance.now();
    handle.addGroup(next);
    await new Promise((r) => setTimeout(r, 2 * deadlineMs));
    expect(liveInGroup(next)).toHaveLength(2);
    expect(handle.silentPastDeadlineSince(nextSince)).toBe(0);

    handle.close(); // the worker stops: what is still registered is killed
    expect(await until(() => liveInGroup(next).length === 0, 3000)).toBe(true);
  }, 30_000);
});
