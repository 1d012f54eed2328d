/**
 * The compiled worker (lib/infra/worker-build.ts): a build is remade exactly when its sources
 * change, a broken source is reported with its location, and the `tickflow/handlers` files
 * beside a bundle hand handler modules the worker's own instance of worker/handlers/define.ts.
 * Worker processes themselves run compiled in every test that spawns one (worker-fixtures.ts).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import * as define from '../../worker/handlers/define.ts';
import { buildWorker, currentWorkerBuild, ensureWorkerBuild, WORKER_BUILD_DIR, WORKER_ENTRY, WorkerBuildError } from '../../lib/infra/worker-build.ts';
import { ROOT } from './worker-fixtures.ts';

/** A copy of the checkout's sources (node_modules linked), so builds here never touch the real dist/. */
function copyCheckout(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tickflow-worker-build-'));
  for (const entry of ['worker', 'lib', 'package.json', 'tsconfig.json']) cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

describe('building the worker', () => {
  const root = copyCheckout();
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('builds once, is current until a source changes, then builds again beside the old build', async () => {
    expect(currentWorkerBuild(root)).toBeNull();
    const first = await ensureWorkerBuild(root);
    const id = currentWorkerBuild(root);
    expect(first).toBe(path.join(root, WORKER_BUILD_DIR, id!, 'index.mjs'));
    expect(readFileSync(path.join(root, WORKER_ENTRY), 'utf8')).toContain(`./${id}/index.mjs`);
    expect(await ensureWorkerBuild(root)).toBe(first);

    const file = path.join(root, 'worker/loop.ts');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n// changed\n`);
    expect(currentWorkerBuild(root)).toBeNull();
    const second = await ensureWorkerBuild(root);
    expect(second).not.toBe(first);
    expect(existsSync(first)).toBe(true); // a worker may still be starting from it
  });

  it('names the file and line of a source that does not build, and keeps the last build current', async () => {
    const before = currentWorkerBuild(root) ?? (await buildWorker(root)).id;
    const file = path.join(root, 'worker/loop.ts');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, `${text}\nexport const broken = ;\n`);
    try {
      await expect(buildWorker(root)).rejects.toThrow(WorkerBuildError);
      await expect(buildWorker(root)).rejects.toThrow(/worker\/loop\.ts:\d+:\d+: /);
      expect(JSON.parse(readFileSync(path.join(root, WORKER_BUILD_DIR, 'manifest.json'), 'utf8')).id).toBe(before);
    } finally {
      writeFileSync(file, text);
    }
  });
});

describe('tickflow/handlers in the compiled worker', () => {
  it("hands ESM and CommonJS handler modules the worker's own define.ts, every export of it", async () => {
    const bundle = inject('workerBundle');
    if (bundle.startsWith('build failed: ')) throw new Error(bundle);
    const dir = path.dirname(bundle);
    const key = Symbol.for('tickflow.handlersModule');
    (globalThis as Record<symbol, unknown>)[key] = define;
    try {
      const esm = (await import(pathToFileURL(path.join(dir, 'handlers.mjs')).href)) as Record<string, unknown>;
      expect(Object.keys(esm).sort()).toEqual(Object.keys(define).sort());
      for (const [name, value] of Object.entries(define)) expect(esm[name]).toBe(value);
      expect(createRequire(import.meta.url)(path.join(dir, 'handlers.cjs'))).toBe(define);
    } finally {
      delete (globalThis as Record<symbol, unknown>)[key];
    }
  });
});
