import { afterEach, describe, expect, it } from 'vitest';
import { databaseReachable, markDatabaseUnreachable, UNREACHABLE_TTL_MS } from './database-probe.ts';

const holder = globalThis as unknown as { tickflowDatabaseProbe?: unknown };
// a port nothing listens on: a probe of it fails at once (connection refused)
const CLOSED = 'postgresql://postgres@127.0.0.1:9/postgres';

describe('database probe', () => {
  afterEach(() => {
    delete holder.tickflowDatabaseProbe;
  });

  it('a page that met the outage makes the next ones 503 at once, until a later probe says otherwise', async () => {
    // the outage was recorded a minute ago (the windows below are on this injected clock): the new probe's
    // checkedAt is the real clock when it answers, later than t0 even if it answers within the same millisecond
    const t0 = Date.now() - 60_000;
    markDatabaseUnreachable(t0);
    // within the window: no probe, the recorded answer (a probe of CLOSED would also say false, so check the state)
    expect(await databaseReachable('postgresql://postgres@127.0.0.1:5432/postgres', t0 + UNREACHABLE_TTL_MS - 1)).toBe(false);
    expect((holder.tickflowDatabaseProbe as { checkedAt: number }).checkedAt).toBe(t0);
    // after it: a new probe
    expect(await databaseReachable(CLOSED, t0 + UNREACHABLE_TTL_MS + 1)).toBe(false);
    expect((holder.tickflowDatabaseProbe as { checkedAt: number }).checkedAt).toBeGreaterThan(t0);
  });
});
