/**
 * Shared set-up of the bench scripts (not a test): a throwaway, migrated database on
 * DATABASE_URL's server, or on an embedded PostgreSQL (tests/helpers/test-server.ts), dropped
 * afterwards; the compiled worker the benches spawn; what /proc says about a worker process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ensureDatabase, migrate, withDatabase } from '../lib/infra/migrate.ts';
import { ensureWorkerBuild, workerNodeArgs } from '../lib/infra/worker-build.ts';
import { startTestServer } from '../tests/helpers/test-server.ts';

/**
 * Node arguments of a bench worker process: the compiled worker with its production flags
 * (lib/infra/worker-build.ts, built first when the sources changed), as `npm run worker` runs.
 * @param extra node options put before the bundle (e.g. --cpu-prof)
 */
export async function benchWorkerArgs(extra: readonly string[] = []): Promise<string[]> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  return workerNodeArgs(await ensureWorkerBuild(root, (line) => console.error(`[bench] ${line}`)), extra);
}

/**
 * Starts `procs` compiled worker processes (benchWorkerArgs) on the database at `url`, named
 * bench-0, bench-1, …, each with TICKFLOW_CONCURRENCY `concurrency`, logging warnings only: worker
 * processes as production runs them (lib/infra/worker-build.ts).
 */
export async function startBenchWorkers(url: string, procs: number, concurrency: string): Promise<ChildProcess[]> {
  const args = await benchWorkerArgs();
  const root = fileURLToPath(new URL('..', import.meta.url));
  return Array.from({ length: procs }, (_, p) => spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, TICKFLOW_CONCURRENCY: concurrency, TICKFLOW_NODE_NAME: `bench-${p}`, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  }));
}

/** Stops bench worker processes with SIGTERM (they drain) and waits for every one to exit. */
export async function stopBenchWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((ch) => new Promise<void>((resolve) => {
    if (ch.exitCode !== null) return resolve();
    ch.on('exit', () => resolve());
    ch.kill('SIGTERM');
  })));
}

/**
 * CPU time a live process has used, user + system, in ms (Linux /proc/<pid>/stat, whose
 * fields 14 and 15 count clock ticks of 10 ms); NaN when the process is gone.
 */
export function processCpuMs(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * A live process's memory in MB (Linux /proc): peak resident set (VmHWM), resident now,
 * and of that the anonymous part (heaps, code the JIT made) and the file-backed part (the
 * node binary and libraries, shared with every other node process); NaN when it is gone.
 */
export function processMemoryMb(pid: number | undefined): { peak: number; rss: number; anonymous: number; file: number } {
  const kb = (text: string, key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) / 1024;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const rss = kb(rollup, 'Rss');
    const anonymous = kb(rollup, 'Anonymous');
    return { peak: kb(status, 'VmHWM'), rss, anonymous, file: rss - anonymous };
  } catch {
    return { peak: NaN, rss: NaN, anonymous: NaN, file: NaN };
  }
}

/**
 * Runs `fn(url)` on a fresh migrated database named `tickflow_bench_<tag>_<pid>`, then drops it
 * (`options.keep`: leaves it, and prints its URL on stderr).
 */
export async function withBenchDatabase<T>(tag: string, fn: (url: string) => Promise<T>, options: { keep?: boolean } = {}): Promise<T> {
  const server = await startTestServer();
  const name = `tickflow_bench_${tag}_${process.pid}`;
  try {
    await ensureDatabase(server.adminUrl, name);
    const url = withDatabase(server.adminUrl, name);
    await migrate(url);
    return await fn(url);
  } finally {
    if (options.keep) {
      console.error(`[bench] database kept: ${withDatabase(server.adminUrl, name)}`);
    } else {
      const admin = new pg.Client({ connectionString: server.adminUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await admin.end();
    }
    await server.stop();
  }
}

/** p-quantile (0..1) of an ascending array, nearest rank. */
export function quantile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** Counts every statement sent through node-postgres in this process (Prisma's pg adapter included). */
export function countStatements(): { readonly count: number; reset(): void } {
  const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown; __tfCount?: number };
  const state = { n: 0 };
  const original = proto.query;
  const seen = new Map<string, number>();
  if (process.env.BENCH_STATEMENTS) process.on('exit', () => console.log([...seen].sort((a, b) => b[1] - a[1]).slice(0, 30)));
  proto.query = function (this: unknown, ...args: unknown[]) {
    state.n++;
    if (process.env.BENCH_STATEMENTS) {
      const a = args[0] as string | { text?: string; name?: string };
      const k = (typeof a === 'string' ? a : (a?.name ?? a?.text ?? '?')).replace(/\s+/g, ' ').slice(0, 90);
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    return original.apply(this, args);
  };
  return { get count() { return state.n; }, reset() { state.n = 0; seen.clear(); } };
}
