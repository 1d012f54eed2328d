/**
 * `npm run build:worker`: bundles the worker into dist/worker (lib/infra/worker-build.ts).
 *
 *   node --import tsx scripts/build-worker.ts [--if-stale] [--quiet]
 *
 * --if-stale builds only when the sources changed since the last build (what `npm run
 * worker` does before starting); --quiet prints nothing but errors. Exit 1 when the
 * sources do not build, with esbuild's messages.
 */
import { fileURLToPath } from 'node:url';
import { buildWorker, ensureWorkerBuild, WorkerBuildError } from '../lib/infra/worker-build.ts';

/** The checkout: this script's parent folder, wherever it is run from. */
const root = fileURLToPath(new URL('..', import.meta.url));

const ifStale = process.argv.includes('--if-stale');
const quiet = process.argv.includes('--quiet');
const say = (line: string) => {
  if (!quiet) console.error(`[tickflow] ${line}`);
};

try {
  if (ifStale) await ensureWorkerBuild(root, say);
  else {
    const started = Date.now();
    const { id } = await buildWorker(root);
    say(`built the worker (dist/worker, build ${id}) in ${Date.now() - started} ms`);
  }
} catch (err) {
  if (!(err instanceof WorkerBuildError)) throw err;
  console.error(`[tickflow] ${err.message}`);
  process.exit(1);
}
