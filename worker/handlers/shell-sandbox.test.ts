import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** Makes an attempt's temp directory, fills it as a program may (a directory made unreadable), cleans it up; prints the directory. */
const SCRIPT = `
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
const { shellWorkdir } = await import(process.env.SANDBOX);
const w = await shellWorkdir(undefined, null);
mkdirSync(path.join(w.dir, 'locked', 'deeper'), { recursive: true });
writeFileSync(path.join(w.dir, 'locked', 'deeper', 'f'), 'x');
chmodSync(path.join(w.dir, 'locked', 'deeper'), 0);
chmodSync(path.join(w.dir, 'locked'), 0);
await w.cleanup();
console.log(w.dir);
`;

describe('an attempt temp directory (worker/handlers/shell-sandbox.ts shellWorkdir)', () => {
  it('is removed even when the program left a directory in it that its owner cannot read', async () => {
    // a worker that is not root: its programs run as its own user, which cannot empty such a directory
    // (root can, so as root the case is played as nobody)
    const asRoot = process.getuid?.() === 0;
    const argv = [process.execPath, '--import', 'tsx', '--input-type=module', '-e', SCRIPT];
    const [file, ...args] = asRoot ? ['runuser', '-u', 'nobody', '--', ...argv] : argv;
    const dir = execFileSync(file!, args, { cwd: path.join(import.meta.dirname, '../..'), env: { ...process.env, SANDBOX: path.join(import.meta.dirname, 'shell-sandbox.ts') } })
      .toString()
      .trim();
    expect(dir).toMatch(/tickflow/);
    expect(existsSync(dir)).toBe(false);
  });
});
