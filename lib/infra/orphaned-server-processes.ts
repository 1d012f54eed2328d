/**
 * Server processes a dead embedded PostgreSQL left behind. A backend notices its postmaster's
 * death only between statements: one running a long query (an `sql` step's join, a big scan)
 * goes on with no parent after the postmaster is SIGKILLed, holding the cluster's shared memory,
 * and every start of a new server on that data directory fails with "pre-existing shared memory
 * block … is still in use" until it ends. Each PostgreSQL child makes itself a session leader
 * (setsid), so no process group reaches them; they are found by what they all keep: the data
 * directory as their working directory, and a `postgres` process title. Linux only (/proc),
 * where the embedded binaries run.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { pidTaken } from './process-group.ts';

/**
 * Whether `pid` is the postmaster of `dataDir`: a process whose working directory is the data
 * directory (the postmaster changes into it) and whose program is `postgres`. A `postmaster.pid`
 * left by a server that died (a kill -9, a power cut, a reboot) names a pid the kernel may have
 * given to any process since, so a live pid alone proves nothing. A process this one may not
 * inspect is not the postmaster: ours runs as this user, or as `postgres` under root, who can read
 * every process. Where there is no /proc (not Linux), a live pid is all there is to go on.
 */
export function isPostmasterOf(pid: number, dataDir: string): boolean {
  if (!existsSync('/proc/self')) return pidTaken(pid);
  try {
    if (readlinkSync(`/proc/${pid}/cwd`) !== realpathSync(dataDir)) return false;
    const program = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0] ?? '';
    return path.basename(program) === 'postgres';
  } catch {
    return false;
  }
}

/**
 * The pids of processes whose working directory is `dataDir` and whose command line starts with
 * `postgres`: with no live postmaster on `dataDir`, its orphaned children. Processes this one may
 * not inspect are skipped.
 */
export function orphanedServerProcesses(dataDir: string): number[] {
  let dir: string;
  try {
    dir = realpathSync(dataDir);
  } catch {
    return [];
  }
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) !== dir) continue;
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').startsWith('postgres')) continue;
      found.push(pid);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * SIGKILLs the orphaned server processes of `dataDir` (orphanedServerProcesses) and waits up to
 * `waitMs` for them to be gone. Call only when no postmaster runs on `dataDir`.
 * @returns the pids it killed
 */
export async function killOrphanedServerProcesses(dataDir: string, waitMs = 5_000): Promise<number[]> {
  const pids = orphanedServerProcesses(dataDir);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + waitMs;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return pids;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // a killed child of ours stays a zombie until reaped: gone for this purpose
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}
