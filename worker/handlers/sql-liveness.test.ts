/**
 * sqlLiveness (worker/handlers/sql-attempt-settings.ts): a dead worker's statement must end within half the time
 * its lease guarantees before a reclaim (lease − heartbeat), so attempt 2 never runs beside it;
 * the attempt fence's keys (sqlAttemptFenceKeys), which keep two attempts of a task apart.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attemptSettingsStatement, fenceStatement, livenessStatement, RESTRICTED_BEGIN, sqlAttemptFenceKeys, sqlLiveness } from './sql-attempt-settings.ts';
import { sqlRunnerVerifier } from './sql-restricted-role.ts';

describe('sqlLiveness', () => {
  it('the defaults (lease 30 s, heartbeat 10 s): check every 1 s; keepalives 3 s + 3 × 2 s; tcp_user_timeout 9 s; idle in transaction 10 s', () => {
    expect(sqlLiveness(30, 10_000)).toEqual({ checkIntervalMs: 1000, keepalivesIdleS: 3, keepalivesIntervalS: 2, keepalivesCount: 3, userTimeoutMs: 9000, idleInTransactionMs: 10_000 });
    // a short lease: never under 5 s, which a loaded worker's gap between its own statements stays within
    expect(sqlLiveness(6, 2000).idleInTransactionMs).toBe(5000);
  });

  it('a killed worker is noticed within a tenth of the budget, a vanished machine within the budget once it is at least 4 s', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 86_400 }), fc.integer({ min: 10, max: 86_400_000 }), (lease, heartbeat) => {
        const l = sqlLiveness(lease, heartbeat);
        const budgetMs = Math.max(1000, lease * 1000 - heartbeat) / 2;
        expect(l.checkIntervalMs).toBeGreaterThanOrEqual(100);
        expect(l.checkIntervalMs).toBeLessThanOrEqual(Math.max(100, budgetMs / 10));
        for (const s of [l.keepalivesIdleS, l.keepalivesIntervalS, l.keepalivesCount]) expect(Number.isInteger(s) && s >= 1).toBe(true);
        const vanishedMs = (l.keepalivesIdleS + l.keepalivesCount * l.keepalivesIntervalS) * 1000 + l.checkIntervalMs;
        if (budgetMs >= 5000) expect(vanishedMs).toBeLessThanOrEqual(budgetMs);
        else expect(vanishedMs).toBeLessThanOrEqual(5000); // whole seconds: 1 + 3 × 1 s, plus one check
        expect(l.userTimeoutMs).toBe((l.keepalivesIdleS + l.keepalivesCount * l.keepalivesIntervalS) * 1000);
      }),
    );
  });
});

describe('livenessStatement', () => {
  it('one SELECT of transaction-local set_config calls; without the connection check when asked', () => {
    const l = sqlLiveness(30, 10_000);
    expect(livenessStatement(l)).toBe(
      "SELECT set_config('client_connection_check_interval', '1000', true), set_config('tcp_keepalives_idle', '3', true), " +
        "set_config('tcp_keepalives_interval', '2', true), set_config('tcp_keepalives_count', '3', true), set_config('tcp_user_timeout', '9000', true), " +
        "set_config('idle_in_transaction_session_timeout', '10000', true)",
    );
    expect(livenessStatement(l, false)).not.toMatch(/client_connection_check_interval/);
  });
});

describe('attemptSettingsStatement', () => {
  it('the restricted connection also pins search_path and clears the timeouts a stored role default could set', () => {
    expect(attemptSettingsStatement(3000, false)).toBe("SELECT set_config('statement_timeout', '3000', true)");
    const restricted = attemptSettingsStatement(2 ** 40, true);
    expect(restricted).toMatch(/^SELECT set_config\('statement_timeout', '2147483647', true\), set_config\('search_path', 'tickflow_scratch', true\)/);
    for (const k of ['lock_timeout', 'transaction_timeout']) expect(restricted).toContain(`set_config('${k}', '0', true)`);
    // set by livenessStatement, which follows in the same round trip, on every connection
    expect(restricted).not.toContain('idle_in_transaction_session_timeout');
    expect(RESTRICTED_BEGIN).toBe('BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE');
  });
});

describe('sqlRunnerVerifier', () => {
  it('a SCRAM-SHA-256 verifier as PostgreSQL stores it, the same on every worker for one password', () => {
    const v = sqlRunnerVerifier('abc_DEF-123456789');
    expect(v).toMatch(/^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}:[A-Za-z0-9+/=]{44}$/);
    expect(sqlRunnerVerifier('abc_DEF-123456789')).toBe(v);
    expect(sqlRunnerVerifier('abc_DEF-123456780')).not.toBe(v);
  });
});

describe('sqlAttemptFenceKeys', () => {
  it('gives every attempt of a task the same two non-negative int4 keys, and other tasks others', () => {
    const id = '0b7e6c1a-3f7d-4c55-9a3e-2f1d8e9c4b21';
    const keys = sqlAttemptFenceKeys(id);
    expect(keys).toEqual(sqlAttemptFenceKeys(id));
    for (const k of keys) expect(Number.isInteger(k) && k >= 0 && k <= 0x7fffffff).toBe(true);
    const seen = new Set<string>([keys.join(',')]);
    for (let i = 0; i < 1000; i++) seen.add(sqlAttemptFenceKeys(`task-${i}`).join(','));
    expect(seen.size).toBe(1001);
    expect(fenceStatement([12, 34])).toBe('SELECT pg_try_advisory_xact_lock(12, 34) AS fenced');
  });
});
