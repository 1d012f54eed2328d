import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKER_ENTRY, WORKER_NODE_FLAGS, workerNodeArgs } from './worker-build.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('the compiled worker command', () => {
  it("`npm run worker` runs the stable entry with exactly the node flags every other worker gets", () => {
    const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const run = scripts.worker!.split('&&').map((part) => part.trim());
    expect(run[0]).toBe('node --import tsx scripts/build-worker.ts --if-stale');
    expect(run[1]).toBe(`exec node ${WORKER_NODE_FLAGS.join(' ')} ${WORKER_ENTRY}`);
  });

  it('puts the flags first, then the extra options, then the bundle', () => {
    expect(workerNodeArgs('/b/index.mjs', ['--import', 'x'])).toEqual([...WORKER_NODE_FLAGS, '--import', 'x', '/b/index.mjs']);
  });
});
