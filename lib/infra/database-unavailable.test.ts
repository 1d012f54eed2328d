import { describe, expect, it } from 'vitest';
import { DATABASE_UNAVAILABLE_DIGEST, DatabaseUnavailableError, isDatabaseUnavailable } from './database-unavailable.ts';

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
    // as a worker's loops see them: a message without a code, SQLSTATEs with the server's own words
    expect(isDatabaseUnavailable(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBe(true);
    expect(isDatabaseUnavailable({ code: '57P01', message: 'terminating connection due to administrator command' })).toBe(true);
    expect(isDatabaseUnavailable({ code: '57P03', message: 'the database system is starting up' })).toBe(true);
    expect(isDatabaseUnavailable(new Error('the database system is not yet accepting connections'))).toBe(true);
    expect(isDatabaseUnavailable({ code: '08006', message: 'connection failure' })).toBe(true);
    expect(isDatabaseUnavailable({ code: '53300', message: 'sorry, too many clients already' })).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection is closed.'))).toBe(true);
    // Prisma's raw-query error keeps the driver's words in `meta`
    expect(isDatabaseUnavailable({ code: 'P2010', meta: { message: 'server closed the connection unexpectedly' } })).toBe(true);
  });

  it('knows its own DatabaseUnavailableError, also as the digest Next.js hands an error boundary', () => {
    const e = new DatabaseUnavailableError(new Error('boom'));
    expect(isDatabaseUnavailable(e)).toBe(true);
    expect(e.digest).toBe(DATABASE_UNAVAILABLE_DIGEST);
    expect(isDatabaseUnavailable({ message: 'An error occurred in the Server Components render.', digest: DATABASE_UNAVAILABLE_DIGEST })).toBe(true);
    expect(isDatabaseUnavailable({ message: 'An error occurred in the Server Components render.', digest: '1234567' })).toBe(false);
  });

  it('counts a statement that met the query timeout (TICKFLOW_DB_QUERY_TIMEOUT_MS): client side and server side', () => {
    // node-postgres's query_timeout, bare and as the pg driver adapter passes a non-PostgreSQL error on
    expect(isDatabaseUnavailable(new Error('Query read timeout'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Invalid `prisma.$queryRawUnsafe()` invocation:\n\nQuery read timeout'))).toBe(true);
    // the server's statement_timeout, from node-postgres and inside a Prisma error's driver adapter cause
    expect(isDatabaseUnavailable({ code: '57014', message: 'canceling statement due to statement timeout' })).toBe(true);
    expect(isDatabaseUnavailable({ code: 'P2010', meta: { driverAdapterError: { cause: { kind: 'postgres', originalCode: '57014', originalMessage: 'canceling statement due to statement timeout' } } } })).toBe(true);
  });

  it('leaves every other error alone (a bug stays a 500, bad input a 4xx)', () => {
    // a statement cancelled on purpose is not an outage
    expect(isDatabaseUnavailable({ code: '57014', message: 'canceling statement due to user request' })).toBe(false);
    expect(isDatabaseUnavailable({ cause: { kind: 'postgres', originalCode: '57014', originalMessage: 'canceling statement due to user request' } })).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable({ code: 'P2002' })).toBe(false); // unique violation
    expect(isDatabaseUnavailable({ cause: { kind: 'postgres', code: '23505' } })).toBe(false);
    expect(isDatabaseUnavailable({ cause: { kind: 'UniqueConstraintViolation' } })).toBe(false);
    expect(isDatabaseUnavailable({ code: '23505', message: 'duplicate key value violates unique constraint' })).toBe(false);
    expect(isDatabaseUnavailable({ code: '40P01', message: 'deadlock detected' })).toBe(false);
    expect(isDatabaseUnavailable(new Error('Unable to start a transaction in the given time.'))).toBe(false);
    expect(isDatabaseUnavailable({ code: 'P2010', meta: { code: '23505', message: 'duplicate key value' } })).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect(isDatabaseUnavailable(loop)).toBe(false);
  });
});
