/**
 * Idempotency-Key support for REST writes (docs/design.md §3 `idempotency_keys`).
 *
 * A key belongs to the principal that sent it (actorKey: the actor's kind and id, a user or
 * an API token, never a name two actors could share), as in Stripe's API where keys are per
 * account: the same key from another principal is an independent request, so nobody learns
 * whether someone else used a key, nor blocks their request by guessing it.
 *
 * `withIdempotency` runs the operation and stores its first successful response
 * IN THE SAME TRANSACTION (the operation receives the transaction client), so a
 * crash can never leave a change without its stored response or vice versa.
 * Concurrent requests with one principal's key are serialised by a transaction-scoped
 * advisory lock on it. A repeat with the same request hash (sha256 of method, path and
 * body) replays the stored status and body; a different hash is
 * DomainError('idempotency_mismatch') -> 422. Failed operations (any thrown error) roll
 * back and store nothing, so the client may retry with the same key. Keys older than
 * 24 h are ignored and overwritten, and deleted by `cleanupIdempotencyKeys` and the
 * system job (lib/system-jobs/idempotency-cleanup.ts).
 */
import { createHash } from 'node:crypto';
import { inTransaction, Prisma, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export type StoredResponse = { status: number; body: unknown };

/** sha256 (hex) of a request's method, path with query, and body text: what a replay must repeat. */
export function requestHash(method: string, path: string, body: string): string {
  return createHash('sha256').update(`${method.toUpperCase()}\n${path}\n${body}`, 'utf8').digest('hex');
}

/**
 * Runs `run` once per (actorKey, key) within IDEMPOTENCY_TTL_MS, storing its answer with the
 * change, and replays that answer to a repeat of the same request by the same principal.
 * @throws DomainError('validation') for a key that is empty or too long;
 *   ('idempotency_mismatch') when the principal used the key for a different request
 */
export async function withIdempotency(
  db: Db,
  opts: { key: string; operation: string; hash: string; actorKey: string; now?: Date },
  run: (tx: Prisma.TransactionClient) => Promise<StoredResponse & { resourceId?: string | null }>,
): Promise<StoredResponse & { replayed: boolean }> {
  const { key, operation, hash, actorKey } = opts;
  const now = opts.now ?? new Date();
  if (!key || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new DomainError('validation', `Idempotency-Key must be 1..${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, {
      'Idempotency-Key': 'Invalid',
    });
  }
  return inTransaction(db, async (tx) => {
    const id = { createdBy: actorKey, key };
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`idem:${actorKey}:${key}`}, 0))`;
    const existing = await tx.idempotencyKey.findUnique({ where: { createdBy_key: id } });
    const fresh = existing && now.getTime() - existing.createdAt.getTime() < IDEMPOTENCY_TTL_MS;
    if (existing && fresh) {
      if (existing.requestHash !== hash) {
        throw new DomainError(
          'idempotency_mismatch',
          'This Idempotency-Key was already used with a different request; use a new key',
          { 'Idempotency-Key': 'Used with a different request' },
        );
      }
      return { status: existing.statusCode, body: existing.response, replayed: true };
    }
    const result = await run(tx);
    const data = {
      operation,
      resourceId: result.resourceId ?? null,
      requestHash: hash,
      statusCode: result.status,
      response: (result.body ?? null) as Prisma.InputJsonValue,
      createdAt: now,
    };
    await tx.idempotencyKey.upsert({ where: { createdBy_key: id }, create: { ...id, ...data }, update: data });
    return { status: result.status, body: result.body, replayed: false };
  });
}

/** Deletes keys older than 24 h before `now` (system job). Returns how many. */
export async function cleanupIdempotencyKeys(db: Db, now = new Date()): Promise<number> {
  const r = await db.idempotencyKey.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - IDEMPOTENCY_TTL_MS) } } });
  return r.count;
}
