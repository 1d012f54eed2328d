/**
 * A cheap, cached answer to "can the console reach its database right now?",
 * asked before rendering a page (proxy.ts) so that pages answer 503 with a
 * clear message while the database is restarting or failing over, instead of
 * a 500 error page (docs/operations.md "Database restarts and failover").
 * One `SELECT 1` on a fresh connection, at most once per `ttlMs` per process;
 * concurrent callers share the probe in flight.
 */
import pg from 'pg';

interface ProbeState {
  checkedAt: number;
  reachable: boolean;
  inflight?: Promise<boolean>;
}

const holder = globalThis as unknown as { tickflowDatabaseProbe?: ProbeState };

/** Time a probe may take before the database counts as unreachable (ms). */
const PROBE_TIMEOUT_MS = 3_000;

async function probe(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS, query_timeout: PROBE_TIMEOUT_MS, application_name: 'tickflow-console-probe' });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * @param url the database URL (DATABASE_URL)
 * @param ttlMs how long an answer is reused (default 2000 ms)
 * @param now clock in epoch ms (tests)
 * @returns true when the last probe within `ttlMs` (or a new one) succeeded
 */
export async function databaseReachable(url: string, ttlMs = 2_000, now = Date.now()): Promise<boolean> {
  const state = (holder.tickflowDatabaseProbe ??= { checkedAt: -Infinity, reachable: true });
  if (now - state.checkedAt < ttlMs) return state.reachable;
  state.inflight ??= probe(url).then((reachable) => {
    state.reachable = reachable;
    state.checkedAt = Date.now();
    state.inflight = undefined;
    return reachable;
  });
  return state.inflight;
}
