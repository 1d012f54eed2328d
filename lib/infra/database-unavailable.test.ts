import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './database-unavailable.ts';

describe('isDatabaseUnavailable', () => {
  it('recognises unreachable, closed, shutting-down and overloaded databases', () => {
    expect(isDatabaseUnavailable({ name: 'PrismaClientKnownRequestError', code: 'P1001' })).toBe(true);
    expect(isDatabaseUnavailable({ code: 'P2010', meta: { driverAdapterError: { cause: { kind: 'DatabaseNotReachable' } } } })).toBe(true);
    expect(isDatabaseUnavailable({ code: 'P2010', meta: { driverAdapterError: { cause: { kind: 'ConnectionClosed' } } } })).toBe(true);
    expect(isDatabaseUnavailable({ cause: { kind: 'postgres', code: '57P01' } })).toBe(true);
    expect(isDatabaseUnavailable({ cause: { kind: 'postgres', originalCode: '08006' } })).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: new Error('the database system is shutting down') }))).toBe(true);
  });

  it('leaves every other error alone (a bug stays a 500, bad input a 4xx)', () => {
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable({ code: 'P2002' })).toBe(false); // unique violation
    expect(isDatabaseUnavailable({ cause: { kind: 'postgres', code: '23505' } })).toBe(false);
    expect(isDatabaseUnavailable({ cause: { kind: 'UniqueConstraintViolation' } })).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect(isDatabaseUnavailable(loop)).toBe(false);
  });
});
