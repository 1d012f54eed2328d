import { describe, expect, it } from 'vitest';
import { outcomeMayBeUnknown } from './pg-error-code.ts';

/** An error as node-postgres raises it for a server error (its SQLSTATE in `code`). */
function pgError(code: string): Error {
  return Object.assign(new Error(`server error ${code}`), { code });
}

describe('outcomeMayBeUnknown (docs/engine.md "Lost answers")', () => {
  it('no SQLSTATE: a client-side timeout or a lost connection may follow the commit', () => {
    expect(outcomeMayBeUnknown(new Error('Query read timeout'))).toBe(true);
    expect(outcomeMayBeUnknown(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(outcomeMayBeUnknown(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(true);
  });

  it('a SQLSTATE that ends the session may come after the commit', () => {
    for (const code of ['08006', '08003', '57P01', '57P02', '57P03', 'XX000']) expect(outcomeMayBeUnknown(pgError(code)), code).toBe(true);
  });

  it('any other SQLSTATE: the server rolled the statement back', () => {
    for (const code of ['57014', '40001', '40P01', '23505', '55P03', '42P01', '22P02']) expect(outcomeMayBeUnknown(pgError(code)), code).toBe(false);
  });

  it('reads the SQLSTATE Prisma wraps too', () => {
    const wrapped = { meta: { driverAdapterError: { cause: { originalCode: '57014' } } } };
    expect(outcomeMayBeUnknown(wrapped)).toBe(false);
  });
});
