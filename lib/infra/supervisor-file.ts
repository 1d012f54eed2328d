/**
 * Which `npm start` runs a data directory's embedded database: the supervisor (scripts/start.ts)
 * records its pid in `<data directory root>/supervisor.pid`. A second `npm start` of the same
 * checkout would otherwise take the first one's database for a server left behind by a start that
 * died, stop it and start it again under itself (embedded-postgres.ts stopLeftoverServer), and the
 * two stacks would take the database from each other.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from './private-files.ts';

const FILE = 'supervisor.pid';

/**
 * The pid of another live `npm start` supervisor of `dataRoot`, or null: none recorded, the
 * recorded process is gone, or the pid now belongs to a process that is not `scripts/start.ts`
 * (its /proc command line says so; without /proc a live pid counts).
 */
export function otherLiveSupervisor(dataRoot: string): number | null {
  const file = path.join(dataRoot, FILE);
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return null;
  try {
    process.kill(pid, 0);
  } catch {
    return null;
  }
  let cmdline: string;
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return pid;
  }
  return cmdline.includes('start.ts') ? pid : null;
}

/** Records this process as `dataRoot`'s supervisor until it exits (the file is removed then, if still its own). */
export function recordSupervisor(dataRoot: string): void {
  mkdirSync(dataRoot, { recursive: true });
  const file = path.join(dataRoot, FILE);
  writePrivateFile(file, `${process.pid}\n`);
  process.on('exit', () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  });
}
