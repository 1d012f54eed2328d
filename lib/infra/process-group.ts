/**
 * Signalling the process group of a child spawned `detached` (it leads a group of its own, whose
 * id is its pid), without ever reaching a stranger's group.
 *
 * The danger is a child that has exited. Until Node reaps it, its pid stays taken and the group
 * is surely ours. Once reaped, the number stays taken only while processes it left behind are
 * still in the group (the kernel does not hand out a number that is some process group's id);
 * when none are, the number is free, and the kernel may give it to any new process, which then
 * leads a group of the same id if it makes itself a session or group leader: every PostgreSQL
 * backend does (setsid), as does every shell task and `npm start` child. On a host whose pid
 * space is 32,768 numbers (Linux's default `kernel.pid_max`) a busy machine goes round it in
 * minutes, so `kill(-pid)` for a child that exited long before would SIGKILL whatever group
 * now has that number.
 *
 * The rule: after the exit, a process with the child's own pid number means the number was
 * given to someone else (ours is reaped), so the group is not ours; no such process means the
 * group, if it exists, can only be what the child left behind (the kernel keeps the number off
 * the free list while they live). The rule it rests on, fork(2): a new process's "PID does not
 * match the ID of any existing process group or session" (POSIX fork(): "shall not match any
 * active process group ID").
 */
import type { ChildProcess } from 'node:child_process';

/** Whether Node has seen `child` exit (and so reaped it). */
export const hasExited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/**
 * Whether a process with pid `pid` exists (a zombie included); EPERM (someone else's) counts as
 * existing.
 */
export function pidTaken(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Sends `signal` to the process group `child` leads (it was spawned `detached`): while it runs,
 * to it and everything in its group; after it exited, only to what it left in its group, and to
 * nothing when its pid number has been given to another process since (module comment).
 * @returns whether the signal was sent to a group (false: no pid, the group is gone, or the
 *   number is someone else's now)
 */
export function signalProcessGroup(child: Pick<ChildProcess, 'pid' | 'exitCode' | 'signalCode'>, signal: NodeJS.Signals): boolean {
  const pid = child.pid;
  if (!pid) return false;
  if (hasExited(child as ChildProcess) && pidTaken(pid)) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
