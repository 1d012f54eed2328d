/**
 * Login rate limiting (docs/security.md "Login"), stored in the database
 * (`login_failures`) so it holds across several console processes:
 * - at most LOGIN_MAX_FAILURES failures per (account, client address) in a
 *   sliding LOGIN_WINDOW_MS window: a stranger guessing from elsewhere never
 *   locks the account's owner out of their own address;
 * - at most LOGIN_MAX_CLIENT_FAILURES failures per client address over all
 *   accounts: one address cannot spray passwords at many accounts.
 * The client address is the one lib/auth/client-address.ts trusted. A successful
 * login clears that (account, client) pair. Rows older than the window are
 * deleted as new failures arrive.
 *
 * An attempt is counted BEFORE its password is checked (`attempt`: its row is written first,
 * then the limits are checked against the others), and the row is removed again by a success
 * (`reset`) or a refusal. Counting after bcrypt let guesses sent all at once each read
 * the count before any had recorded its failure, so a burst got as many guesses as it had
 * requests. An IPv6 client counts as its /64 (limitedClient): one subscriber, one host even, has
 * every address of its /64, so counted one by one each guess could come from a fresh address.
 * When the client address is unknown (a console
 * started without scripts/peer-address.mjs) the per-client limit is skipped: it
 * would let one stranger lock every account out at once.
 */
import { UNKNOWN_CLIENT } from './client-address.ts';
import { parseAddress } from '../net/cidr.ts';
import type { Db } from '../db.ts';

export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_MAX_CLIENT_FAILURES = 20;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;

/**
 * The client a limit counts: an IPv6 address as its /64 network (`2001:db8:1:2::/64`), an IPv4
 * address or UNKNOWN_CLIENT as given. A /64 is the smallest network an IPv6 subscriber is given
 * (RFC 6177) and a host may use any address in it (SLAAC privacy addresses), so counting
 * addresses would give one attacker 2^64 fresh allowances.
 */
export function limitedClient(client: string): string {
  const a = parseAddress(client);
  if (!a || a.kind() !== 'ipv6') return client;
  const bytes = a.toByteArray().slice(0, 8);
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${groups.join(':')}::/64`;
}

export class LoginRateLimiter {
  constructor(
    readonly maxFailures = LOGIN_MAX_FAILURES,
    readonly maxClientFailures = LOGIN_MAX_CLIENT_FAILURES,
    readonly windowMs = LOGIN_WINDOW_MS,
  ) {}

  /** Seconds until `email` may try again from `client`, or 0 when allowed now (`exclude`: an attempt's own row, not counted). */
  async retryAfterSeconds(db: Db, email: string, rawClient: string, now = new Date(), exclude: bigint = -1n): Promise<number> {
    const client = limitedClient(rawClient);
    const since = new Date(now.getTime() - this.windowMs);
    const rows = await db.$queryRaw<{ account: number; account_oldest: Date | null; total: number; oldest: Date | null }[]>`
      SELECT count(*) FILTER (WHERE email = ${email})::int AS account,
             (array_agg(failed_at ORDER BY failed_at DESC) FILTER (WHERE email = ${email}))[${this.maxFailures}] AS account_oldest,
             count(*)::int AS total,
             (array_agg(failed_at ORDER BY failed_at DESC))[${this.maxClientFailures}] AS oldest
        FROM login_failures
       WHERE client = ${client} AND failed_at > ${since} AND id <> ${exclude}`;
    const r = rows[0]!;
    let until = 0;
    // blocked until the failure that made the count reach the limit ages out
    if (r.account >= this.maxFailures && r.account_oldest) until = Math.max(until, r.account_oldest.getTime() + this.windowMs);
    if (client !== UNKNOWN_CLIENT && r.total >= this.maxClientFailures && r.oldest) until = Math.max(until, r.oldest.getTime() + this.windowMs);
    return until > now.getTime() ? Math.max(1, Math.ceil((until - now.getTime()) / 1000)) : 0;
  }

  /**
   * Starts a login attempt: records it as a failure first (a success removes it with `reset`),
   * then checks the limits counting every other attempt already recorded, and when they are
   * reached takes the row back and returns the seconds to wait (0: go on). Each statement
   * commits on its own, so of attempts made at once the k-th to record its row sees at least
   * k - 1 others: no more than the limit get through, whatever the interleaving (a race may
   * refuse one too many, never let one too many in). No lock is taken: an advisory lock could
   * be held by anyone who can log in to the database, the `sql` executor's restricted role too.
   */
  async attempt(db: Db, email: string, rawClient: string, now = new Date()): Promise<number> {
    const client = limitedClient(rawClient);
    const [row] = await db.$queryRaw<{ id: bigint }[]>`
      INSERT INTO login_failures (email, client, failed_at) VALUES (${email}, ${client}, ${now}) RETURNING id`;
    const wait = await this.retryAfterSeconds(db, email, client, now, row!.id);
    if (wait > 0) {
      await db.$executeRaw`DELETE FROM login_failures WHERE id = ${row!.id}`;
      return wait;
    }
    await db.$executeRaw`DELETE FROM login_failures WHERE failed_at <= ${new Date(now.getTime() - this.windowMs)}`;
    return 0;
  }

  async reset(db: Db, email: string, rawClient: string): Promise<void> {
    await db.$executeRaw`DELETE FROM login_failures WHERE email = ${email} AND client = ${limitedClient(rawClient)}`;
  }
}

/** The limiter with the default limits. */
export function loginLimiter(): LoginRateLimiter {
  return new LoginRateLimiter();
}
