/**
 * A cheap, cached answer to "can the console reach its database right now?",
 * asked before rendering a page (proxy.ts) so that pages answer 503 with a
 * clear message while the database is restarting or failing over, instead of
 * a 500 error page (docs/operations.md "Database restarts and failover").
 * One `SELECT 1` on a fresh connection, at most once per REACHABLE_TTL_MS per
 * process while it answers (UNREACHABLE_TTL_MS while it does not); concurrent
 * callers share the probe in flight. A page that meets the outage first tells it
 * (markDatabaseUnreachable).
 */
import pg from 'pg';

interface ProbeState {
  checkedAt: number;
  reachable: boolean;
  inflight?: Promise<boolean>;
}

const holder = globalThis as unknown as { tickflowDatabaseProbe?: ProbeState };

/** Time a probe may take before the database counts as unreachable (ms); /api/v1/health waits as long for its own query. */
export const PROBE_TIMEOUT_MS = 3_000;

/**
 * Whether the database at `url` answers one `SELECT 1` on a fresh connection within PROBE_TIMEOUT_MS (connect and
 * query each), uncached: databaseReachable's probe.
 */
export async function databaseAnswers(url: string): Promise<boolean> {
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

/** How long a "reachable" answer is reused (ms): a page rendered in that window after the database went away meets the outage while rendering (app/_lib/page-error.ts), so it is short. */
export const REACHABLE_TTL_MS = 250;
/** How long an "unreachable" answer is reused (ms): pages answer 503 meanwhile without a probe each. */
export const UNREACHABLE_TTL_MS = 1_000;

/**
 * @param url the database URL (DATABASE_URL)
 * @param now clock in epoch ms (tests)
 * @returns true when the last probe (within REACHABLE_TTL_MS, or UNREACHABLE_TTL_MS for a failed one)
 *   or a new one succeeded
 */
export async function databaseReachable(url: string, now = Date.now()): Promise<boolean> {
  const state = (holder.tickflowDatabaseProbe ??= { checkedAt: -Infinity, reachable: true });
  if (now - state.checkedAt < (state.reachable ? REACHABLE_TTL_MS : UNREACHABLE_TTL_MS)) return state.reachable;
  state.inflight ??= databaseAnswers(url).then((reachable) => {
    state.reachable = reachable;
    state.checkedAt = Date.now();
    state.inflight = undefined;
    return reachable;
  });
  return state.inflight;
}

/**
 * Records that a page just failed to reach the database (app/_lib/page-error.ts outageOr): the next page
 * answers 503 at once instead of rendering into the same failure, until a probe after
 * UNREACHABLE_TTL_MS says otherwise.
 * @param now clock in epoch ms (tests)
 */
export function markDatabaseUnreachable(now = Date.now()): void {
  const state = (holder.tickflowDatabaseProbe ??= { checkedAt: -Infinity, reachable: true });
  state.reachable = false;
  state.checkedAt = now;
}
