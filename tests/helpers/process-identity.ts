/**
 * Telling a process from a later one that got its pid number. A test that records a pid (a stack's
 * worker, a shell task's process group) and signals it in a clean-up after the process may have
 * ended could otherwise hit whatever took the number since: on a host with 32,768 pid numbers, a
 * busy test run goes round them in minutes, and the likeliest taker is a PostgreSQL backend of the
 * shared test server (each one leads a group of its own), whose SIGKILL makes PostgreSQL end every
 * session of every test running at the time. The rule for groups is lib/infra/process-group.ts's.
 */
import { readFileSync } from 'node:fs';

/** When process `pid` started (clock ticks after boot, /proc/<pid>/stat field 22), or null when there is no such process. */
export function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** A process as recorded now: its pid and when it started. */
export interface ProcessRecord {
  pid: number;
  startTime: string | null;
}

/** Records `pid` as it is now (see ProcessRecord). */
export const recordProcess = (pid: number): ProcessRecord => ({ pid, startTime: startTimeOf(pid) });

/** Whether the recorded process still exists (a zombie included), and not a later one with its number. */
export const stillExists = (p: ProcessRecord): boolean => p.startTime !== null && startTimeOf(p.pid) === p.startTime;

/** Sends `signal` to the recorded process if it still runs and is the same process (not a later one with its number). */
export function signalIfSame(p: ProcessRecord, signal: NodeJS.Signals): void {
  if (!stillExists(p)) return;
  try {
    process.kill(p.pid, signal);
  } catch {
    /* gone meanwhile */
  }
}

/**
 * Sends `signal` to the process group the recorded process led, unless a different process has its
 * number now: with no process of that number, whatever is in the group is what the leader left (the
 * kernel gives no new process the id of a live group, fork(2)).
 */
export function signalGroupIfOurs(leader: ProcessRecord, signal: NodeJS.Signals): void {
  const now = startTimeOf(leader.pid);
  if (now !== null && now !== leader.startTime) return;
  try {
    process.kill(-leader.pid, signal);
  } catch {
    /* the group is gone */
  }
}
