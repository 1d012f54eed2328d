/**
 * Shared set-up of the bench scripts (not a test): a throwaway, migrated database on
 * DATABASE_URL's server, or on an embedded PostgreSQL (tests/helpers/test-server.ts), dropped
 * afterwards.
 */
import pg from 'pg';
import { ensureDatabase, migrate, withDatabase } from '../lib/infra/migrate.ts';
import { startTestServer } from '../tests/helpers/test-server.ts';

/** Runs `fn(url)` on a fresh migrated database named `tickflow_bench_<tag>_<pid>`, then drops it. */
export async function withBenchDatabase<T>(tag: string, fn: (url: string) => Promise<T>): Promise<T> {
  const server = await startTestServer();
  const name = `tickflow_bench_${tag}_${process.pid}`;
  try {
    await ensureDatabase(server.adminUrl, name);
    const url = withDatabase(server.adminUrl, name);
    await migrate(url);
    return await fn(url);
  } finally {
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
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
