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
 * back and store nothing, so the client may retry with the same key. An answer that
 * carries a secret (a new API token, a generated password: `replay` false for it) is never
 * stored: only the fact, the resource id and the time are, and a repeat is a 409
 * `idempotency_not_replayable` naming them, so a retried request neither makes a second
 * token nor resets a password twice, and the client learns the first one went through.
 * Keys older than
 * 24 h are ignored and overwritten, and deleted by `cleanupIdempotencyKeys` and the
 * system job (lib/system-jobs/idempotency-cleanup.ts).
 */
import { createHash } from 'node:crypto';
import { inTransaction, LONGEST_TRANSACTION_TIMEOUT_MS, Prisma, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { canonicalJson, duplicateKeys } from './json-guard.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export type StoredResponse = { status: number; body: unknown };

/** What is kept in place of an answer that must not be stored (`replay: false`). */
const NOT_STORED = { notStored: 'the answer held a secret' } as const;

function isNotStored(response: unknown): boolean {
  return typeof response === 'object' && response !== null && (response as { notStored?: unknown }).notStored === NOT_STORED.notStored;
}

/** sha256 (hex) of a request's method, path with query, and body text. */
function hashOf(method: string, path: string, body: string): string {
  return createHash('sha256').update(`${method.toUpperCase()}\n${path}\n${body}`, 'utf8').digest('hex');
}

/**
 * What a replay must repeat: the request's method, path with query, and body. A JSON body counts
 * by its value, not its text: the same object with its keys in another order or other spacing is
 * the same request (the route reads the parsed value; Stripe compares parameters, not bytes), written
 * as lib/api/json-guard.ts canonicalJson writes it. A body that is not JSON counts by its text, and so
 * does one with a key written twice in an object: its parsed value has lost the first, and the body is
 * refused, so it must not replay the answer to the body that only holds the last.
 * @returns sha256 hashes (hex): the first is stored with the key; a stored hash equal to any of
 *   them is the same request (the second, of the body's text, is how keys stored before bodies
 *   were compared by value were hashed, so that their repeats still replay)
 */
export function requestHash(method: string, path: string, body: string): string[] {
  let canonical: string | null = null;
  try {
    const value: unknown = JSON.parse(body);
    if (duplicateKeys(body, 1).length === 0) canonical = canonicalJson(value);
  } catch {
    /* not JSON: its text is the request */
  }
  const raw = hashOf(method, path, body);
  return canonical === null || canonical === body ? [raw] : [hashOf(method, path, canonical), raw];
}

/**
 * Runs `run` once per (actorKey, key) within IDEMPOTENCY_TTL_MS, storing its answer with the
 * change, and replays that answer to a repeat of the same request by the same principal.
 * With `replay: false` the answer is not stored and a repeat is refused instead (see above); a function decides
 * per answer (true: replay it), for an operation whose answer carries a secret only sometimes (a password reset
 * answers a generated password, never a given one).
 * @throws DomainError('validation') for a key that is empty, too long, or holds a comma (a header given twice);
 *   ('idempotency_mismatch') when the principal used the key for a different request;
 *   ('idempotency_not_replayable') on a repeat of a request whose answer is not stored
 */
export async function withIdempotency(
  db: Db,
  opts: { key: string; operation: string; hash: string | readonly string[]; actorKey: string; now?: Date; replay?: boolean | ((body: unknown) => boolean) },
  run: (tx: Prisma.TransactionClient) => Promise<StoredResponse & { resourceId?: string | null }>,
): Promise<StoredResponse & { replayed: boolean }> {
  const { key, operation, actorKey } = opts;
  // the first hash is stored; any of them matches (requestHash)
  const hashes = typeof opts.hash === 'string' ? [opts.hash] : opts.hash;
  const hash = hashes[0]!;
  const now = opts.now ?? new Date();
  if (!key || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new DomainError('validation', `Idempotency-Key must be 1..${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, {
      'Idempotency-Key': 'Invalid',
    });
  }
  // A header sent twice reaches the route as its values joined by ", " (the Fetch standard's Headers): refused
  // rather than taken for one key that neither value is.
  if (key.includes(',')) {
    throw new DomainError('validation', 'Idempotency-Key must be given once, and hold no comma', {
      'Idempotency-Key': 'Given more than once, or holds a comma',
    });
  }
  // the operation runs inside this transaction (it joins it): the longest an operation may need
  return inTransaction(db, async (tx) => {
    const id = { createdBy: actorKey, key };
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`idem:${actorKey}:${key}`}, 0))`;
    const existing = await tx.idempotencyKey.findUnique({ where: { createdBy_key: id } });
    const fresh = existing && now.getTime() - existing.createdAt.getTime() < IDEMPOTENCY_TTL_MS;
    if (existing && fresh) {
      if (!hashes.includes(existing.requestHash)) {
        throw new DomainError(
          'idempotency_mismatch',
          'This Idempotency-Key was already used with a different request; use a new key',
          { 'Idempotency-Key': 'Used with a different request' },
        );
      }
      if (isNotStored(existing.response)) {
        throw new DomainError(
          'idempotency_not_replayable',
          `This Idempotency-Key already did this request at ${existing.createdAt.toISOString()}` +
            `${existing.resourceId ? ` (${existing.resourceId})` : ''}; its answer held a secret, which is shown once and not kept. ` +
            'Nothing was changed now; to do it again, send a new key',
          { 'Idempotency-Key': 'Already used; its answer is not kept' },
          { resourceId: existing.resourceId, doneAt: existing.createdAt.toISOString() },
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
      response: (replayable(opts.replay, result.body) ? (result.body ?? null) : NOT_STORED) as Prisma.InputJsonValue,
      createdAt: now,
    };
    await tx.idempotencyKey.upsert({ where: { createdBy_key: id }, create: { ...id, ...data }, update: data });
    return { status: result.status, body: result.body, replayed: false };
  }, { timeoutMs: LONGEST_TRANSACTION_TIMEOUT_MS });
}

/** Whether an answer may be stored for a replay: `replay` as withIdempotency takes it (default true). */
function replayable(replay: boolean | ((body: unknown) => boolean) | undefined, body: unknown): boolean {
  return typeof replay === 'function' ? replay(body) : replay !== false;
}

/** Deletes keys older than 24 h before `now` (system job). Returns how many. */
export async function cleanupIdempotencyKeys(db: Db, now = new Date()): Promise<number> {
  const r = await db.idempotencyKey.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - IDEMPOTENCY_TTL_MS) } } });
  return r.count;
}
