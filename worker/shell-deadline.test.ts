/** The shell guardian's deadline (worker/shell-deadline.ts) against the lease it must beat. */
import { describe, expect, it } from 'vitest';
import { SHELL_DEADLINE_MARGIN_MS, SHELL_DEADLINE_MIN_MS, shellDeadlineMs } from './shell-deadline';

const now = Date.UTC(2026, 11, 6, 12, 0, 0);

describe('shellDeadlineMs', () => {
  it('ends the margin before the earliest lease end', () => {
    expect(shellDeadlineMs({ nowMs: now, earliestLeaseEndMs: now + 30_000, databaseDown: false, leaseSeconds: 30 })).toBe(30_000 - SHELL_DEADLINE_MARGIN_MS);
    // just before the next renewal (heartbeat every lease/3): 20 s of lease left
    expect(shellDeadlineMs({ nowMs: now, earliestLeaseEndMs: now + 20_000, databaseDown: false, leaseSeconds: 30 })).toBe(17_000);
  });

  it('a short lease keeps a quarter of it as the margin', () => {
    expect(shellDeadlineMs({ nowMs: now, earliestLeaseEndMs: now + 6000, databaseDown: false, leaseSeconds: 6 })).toBe(4500);
  });

  it('holding no lease: a full lease from now', () => {
    expect(shellDeadlineMs({ nowMs: now, earliestLeaseEndMs: undefined, databaseDown: false, leaseSeconds: 30 })).toBe(27_000);
  });

  it('database unreachable: a full lease from now, though the leases could not be renewed', () => {
    expect(shellDeadlineMs({ nowMs: now, earliestLeaseEndMs: now - 60_000, databaseDown: true, leaseSeconds: 30 })).toBe(27_000);
    expect(shellDeadlineMs({ nowMs: now, earliestLeaseEndMs: now + 40_000, databaseDown: true, leaseSeconds: 30 })).toBe(37_000);
  });

  it('a lease about to run out (renewals failing while the database answers): never under the minimum', () => {
    expect(shellDeadlineMs({ nowMs: now, earliestLeaseEndMs: now + 1000, databaseDown: false, leaseSeconds: 30 })).toBe(SHELL_DEADLINE_MIN_MS);
    expect(shellDeadlineMs({ nowMs: now, earliestLeaseEndMs: now - 5000, databaseDown: false, leaseSeconds: 30 })).toBe(SHELL_DEADLINE_MIN_MS);
  });
});
