import { describe, expect, it } from 'vitest';
import { BoundedClient, boundedPoolOptions, DB_CONNECT_TIMEOUT_MS, dbQueryTimeoutFromEnv, DEFAULT_DB_QUERY_TIMEOUT_MS, QUERY_TIMEOUT_GRACE_MS } from './db-timeouts.ts';

describe('dbQueryTimeoutFromEnv (TICKFLOW_DB_QUERY_TIMEOUT_MS)', () => {
  it('defaults to 30 s when unset or blank', () => {
    expect(DEFAULT_DB_QUERY_TIMEOUT_MS).toBe(30_000);
    expect(dbQueryTimeoutFromEnv({})).toBe(30_000);
    expect(dbQueryTimeoutFromEnv({ TICKFLOW_DB_QUERY_TIMEOUT_MS: '' })).toBe(30_000);
    expect(dbQueryTimeoutFromEnv({ TICKFLOW_DB_QUERY_TIMEOUT_MS: '  ' })).toBe(30_000);
  });

  it('takes whole milliseconds from 1 s to a day, and 0 for no timeout', () => {
    expect(dbQueryTimeoutFromEnv({ TICKFLOW_DB_QUERY_TIMEOUT_MS: '0' })).toBe(0);
    expect(dbQueryTimeoutFromEnv({ TICKFLOW_DB_QUERY_TIMEOUT_MS: '1000' })).toBe(1000);
    expect(dbQueryTimeoutFromEnv({ TICKFLOW_DB_QUERY_TIMEOUT_MS: ' 120000 ' })).toBe(120_000);
    expect(dbQueryTimeoutFromEnv({ TICKFLOW_DB_QUERY_TIMEOUT_MS: '86400000' })).toBe(86_400_000);
  });

  it('refuses anything else, naming the variable, the rule and the value', () => {
    for (const bad of ['999', '86400001', '-1', '30s', '1e4', '1.5', '0x10', 'off', 'NaN']) {
      expect(() => dbQueryTimeoutFromEnv({ TICKFLOW_DB_QUERY_TIMEOUT_MS: bad })).toThrow(
        `TICKFLOW_DB_QUERY_TIMEOUT_MS must be 0 (no timeout) or a whole number of milliseconds from 1000 to 86400000, not "${bad}"`,
      );
    }
  });
});

describe('boundedPoolOptions', () => {
  it('bounds connects, and statements on the client (with grace) and, where startup parameters reach it, on the server', () => {
    expect(boundedPoolOptions(30_000, { serverSide: true })).toEqual({
      Client: BoundedClient,
      connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS,
      query_timeout: 30_000 + QUERY_TIMEOUT_GRACE_MS,
      statement_timeout: 30_000,
    });
    // behind a transaction-mode pooler: no startup parameter, the client-side bound only
    expect(boundedPoolOptions(30_000, { serverSide: false })).toEqual({ Client: BoundedClient, connectionTimeoutMillis: DB_CONNECT_TIMEOUT_MS, query_timeout: 31_000 });
    // 0: statements unbounded, connects still bounded
    expect(boundedPoolOptions(0, { serverSide: true, connectTimeoutMs: 500 })).toEqual({ Client: BoundedClient, connectionTimeoutMillis: 500 });
  });
});
