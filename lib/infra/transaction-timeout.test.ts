import { describe, expect, it } from 'vitest';
import { TRANSACTION_NOT_STARTED_MESSAGE, TRANSACTION_TIMEOUT_MESSAGE, transactionTimeoutMessage } from './transaction-timeout.ts';

describe('transactionTimeoutMessage', () => {
  it('names an expired transaction (Prisma P2028 with the time it took), wrapped or not', () => {
    const expired = Object.assign(new Error('Transaction API error: A commit cannot be executed on an expired transaction.'), { code: 'P2028', meta: { operation: 'commit', timeout: 30000, timeTaken: 31002 } });
    expect(transactionTimeoutMessage(expired)).toBe(TRANSACTION_TIMEOUT_MESSAGE);
    expect(transactionTimeoutMessage(new Error('wrapped', { cause: expired }))).toBe(TRANSACTION_TIMEOUT_MESSAGE);
  });

  it('names a transaction that could not start in time', () => {
    const notStarted = Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), { code: 'P2028', meta: {} });
    expect(transactionTimeoutMessage(notStarted)).toBe(TRANSACTION_NOT_STARTED_MESSAGE);
  });

  it('is null for anything else', () => {
    expect(transactionTimeoutMessage(Object.assign(new Error('unique'), { code: 'P2002' }))).toBeNull();
    expect(transactionTimeoutMessage(new Error('boom'))).toBeNull();
    expect(transactionTimeoutMessage(null)).toBeNull();
  });
});
