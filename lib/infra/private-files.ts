/**
 * Files under the data directory (`.tickflow/`: the database URL with its
 * password, the embedded server's password, the first admin's password) are
 * readable by their owner only (mode 600), and the directory lists for nobody
 * else (mode 711: the embedded PostgreSQL, run as another user, must still
 * traverse it to its data folder). docs/security.md "Shell sandbox".
 */
import { chmodSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes `text` to `file` with mode 600 (also when the file already existed with a wider mode). */
export function writePrivateFile(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** Narrows the data directory to 711 and every regular file directly in it to 600. Folders inside are left alone. */
export function lockDownDataDir(dir: string): void {
  if (!existsSync(dir)) return;
  chmodSync(dir, 0o711);
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = statSync(p);
    if (st.isFile() && (st.mode & 0o077) !== 0) chmodSync(p, 0o600);
  }
}
