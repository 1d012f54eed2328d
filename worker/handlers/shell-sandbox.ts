/**
 * Where and as whom a `shell` task runs (docs/security.md "Shell sandbox"):
 * - environment: only SHELL_ENV_ALLOW from the worker (never its secrets such as
 *   DATABASE_URL, TICKFLOW_API_TOKEN or TICKFLOW_WEBHOOK_SECRET), HOME and TMPDIR
 *   pointing at the task's working directory, then the step's own `env`;
 * - working directory: a fresh private directory under the system temp directory
 *   per attempt, removed afterwards, or the step's `cwd`, which must be absolute
 *   and outside the worker's checkout;
 * - user: when the worker runs as root, the child runs as TICKFLOW_SHELL_USER
 *   (default `nobody`; `root` keeps root, on purpose only).
 */
import { spawnSync } from 'node:child_process';
import { chmod, chown, lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SHELL_WORKDIR_PREFIX } from './shell-guardian.ts';
import { HandlerError } from './types.ts';
import { SHELL_ENV_NAME } from '../../lib/handlers/builtin-schemas.ts';

/** Variables a shell child inherits from the worker (everything else is dropped). */
export const SHELL_ENV_ALLOW = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ'] as const;
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export type ShellIdentity = { user: string; uid: number; gid: number } | null;

const identities = new Map<string, ShellIdentity>();

/**
 * Who the child runs as: null = the worker's own user (the worker is not root, or
 * TICKFLOW_SHELL_USER=root). Looked up once per name with `id`.
 * @throws HandlerError (code `config`) for an unknown user, or a user set on a non-root worker
 */
export function shellIdentity(env: NodeJS.ProcessEnv = process.env, uid: number | undefined = process.getuid?.()): ShellIdentity {
  const wanted = env.TICKFLOW_SHELL_USER?.trim();
  if (uid !== 0) {
    if (wanted && wanted !== os.userInfo().username) {
      throw new HandlerError(`shell: TICKFLOW_SHELL_USER=${wanted} needs the worker to run as root (it runs as uid ${uid})`, { code: 'config' });
    }
    return null;
  }
  const name = wanted || 'nobody';
  if (name === 'root' || name === '0') return null;
  if (!identities.has(name)) {
    const u = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (u.status !== 0 || g.status !== 0) throw new HandlerError(`shell: TICKFLOW_SHELL_USER ${name} does not exist on this host`, { code: 'config' });
    identities.set(name, { user: name, uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) });
  }
  return identities.get(name)!;
}

/** The child's environment: the allow-list, HOME/TMPDIR = `home`, USER/LOGNAME of the identity, then `stepEnv`. */
export function shellEnv(stepEnv: Record<string, unknown>, home: string, identity: ShellIdentity, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = { PATH: env.PATH || DEFAULT_PATH };
  for (const k of SHELL_ENV_ALLOW) if (env[k]) out[k] = env[k]!;
  out.HOME = home;
  out.TMPDIR = home;
  if (identity) {
    out.USER = identity.user;
    out.LOGNAME = identity.user;
  }
  for (const [k, v] of Object.entries(stepEnv)) {
    if (!SHELL_ENV_NAME.test(k)) throw new HandlerError(`shell: payload.env key ${JSON.stringify(k)} is not a valid variable name`, { code: 'config' });
    out[k] = String(v);
  }
  return out;
}

/** The checkout the worker runs from (its working directory); shell tasks stay out of it. */
function checkoutRoot(): string {
  return path.resolve(process.cwd());
}

/**
 * The working directory for one attempt: `cwd` when given (absolute, outside the
 * checkout), else a new private temp directory owned by the child's user. `cleanup`
 * removes a directory made here; `temporary` says it was made here (the shell guardian removes
 * only such directories).
 * @throws HandlerError (code `config`) naming payload.cwd
 */
export async function shellWorkdir(cwd: unknown, identity: ShellIdentity): Promise<{ dir: string; temporary: boolean; cleanup: () => Promise<void> }> {
  if (cwd !== undefined && cwd !== null && cwd !== '') {
    if (typeof cwd !== 'string' || !path.isAbsolute(cwd)) throw new HandlerError('shell: payload.cwd must be an absolute path', { code: 'config' });
    const rel = path.relative(checkoutRoot(), path.resolve(cwd));
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
      throw new HandlerError('shell: payload.cwd must be outside the Tickflow checkout (the worker\'s files stay private)', { code: 'config' });
    }
    return { dir: path.resolve(cwd), temporary: false, cleanup: async () => undefined };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), SHELL_WORKDIR_PREFIX));
  if (identity) await chown(dir, identity.uid, identity.gid);
  return { dir, temporary: true, cleanup: () => removeWorkdir(dir) };
}

/**
 * Removes an attempt's temp directory whatever the program left in it. A directory it made unreadable
 * or unwritable (`chmod 000 sub`) cannot be emptied by a worker that is not root (the program ran as the
 * worker's own user), so every attempt doing so would leave its directory behind: on a first refusal the
 * tree is made the owner's again (u+rwx, directories only, symbolic links not followed) and removed.
 */
export async function removeWorkdir(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
    return;
  } catch {
    /* below */
  }
  const unlock = async (d: string): Promise<void> => {
    await chmod(d, 0o700).catch(() => undefined);
    const names = await readdir(d).catch(() => [] as string[]);
    for (const n of names) {
      const p = path.join(d, n);
      const st = await lstat(p).catch(() => null);
      if (st?.isDirectory()) await unlock(p);
    }
  };
  await unlock(dir);
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}
