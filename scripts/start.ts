/**
 * `npm start`: one command that runs Tickflow on this machine.
 *
 * 1. Uses DATABASE_URL, or starts the embedded PostgreSQL under .tickflow/.
 * 2. Applies migrations; on a database that never had a job, seeds demo jobs.
 * 3. Makes sure an admin exists (TICKFLOW_ADMIN_EMAIL/PASSWORD, else a random
 *    password printed once).
 * 4. Builds the console when there is no build or the sources changed since.
 * 5. Runs the console (`next start`) and one worker, with prefixed logs; Ctrl-C
 *    stops both, then the embedded PostgreSQL.
 *
 * `npm run dev` does the same with `next dev` instead of a production build.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { resolveDatabase } from '../lib/infra/database-url.ts';
import { migrate } from '../lib/infra/migrate.ts';

const dev = process.argv.includes('--dev');
const port = Number(process.env.PORT ?? 3000);
const root = process.cwd();
const say = (line: string) => console.log(`[tickflow] ${line}`);

function newestMtime(dir: string): number {
  let newest = 0;
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'generated' || entry.name.startsWith('.')) continue;
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  if (existsSync(dir)) walk(dir);
  return newest;
}

/** A production build is stale when any console source is newer than it. */
function needsBuild(): boolean {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  const sources = Math.max(
    ...['app', 'components', 'lib'].map((d) => newestMtime(path.join(root, d))),
    ...['next.config.ts', 'package.json', 'postcss.config.mjs'].map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0)),
  );
  return sources > built;
}

function prefixed(child: ChildProcess, tag: string) {
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    readline.createInterface({ input: stream }).on('line', (line) => console.log(`[${tag}] ${line}`));
  }
}

const database = await resolveDatabase(say).catch((error: Error) => {
  console.error(`[tickflow] ${error.message}`);
  process.exit(1);
});
const env = { ...process.env, DATABASE_URL: database.url };

try {
  const result = await migrate(database.url);
  say(result.applied.length ? `applied migrations: ${result.applied.join(', ')}` : 'database schema up to date');
  const { bootstrap } = await import('../prisma/seed.ts');
  const boot = await bootstrap(database.url, { consoleUrl: `http://127.0.0.1:${port}` });
  for (const line of boot.messages) say(line);
} catch (error) {
  console.error(`[tickflow] start-up failed: ${(error as Error).message}`);
  await database.stop();
  process.exit(1);
}

if (!dev && needsBuild()) {
  say('building the console (next build)…');
  const build = spawnSync(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'build'], { stdio: 'inherit', env });
  if (build.status !== 0) {
    console.error('[tickflow] next build failed');
    await database.stop();
    process.exit(build.status ?? 1);
  }
}

const children: ChildProcess[] = [];
let stopping = false;

async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  say('stopping…');
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 15_000);
          child.once('exit', () => { clearTimeout(timer); resolve(); });
        }),
    ),
  );
  await database.stop();
  say('stopped');
  process.exit(code);
}

const nextBin = path.join(root, 'node_modules/next/dist/bin/next');
const consoleProc = spawn(process.execPath, [nextBin, dev ? 'dev' : 'start', '-p', String(port)], {
  env: { ...env, TICKFLOW_SERVICE: 'console' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
const workerProc = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'worker/index.ts')], {
  env: { ...env, TICKFLOW_SERVICE: 'worker' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
children.push(consoleProc, workerProc);
prefixed(consoleProc, 'console');
prefixed(workerProc, 'worker');
for (const [child, name] of [[consoleProc, 'console'], [workerProc, 'worker']] as const) {
  child.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`[tickflow] ${name} exited (${signal ?? code}); stopping everything`);
    void shutdown(code === 0 ? 1 : (code ?? 1));
  });
}
say(`console: http://localhost:${port}  (Ctrl-C stops console, worker and the embedded database)`);

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
