import bcrypt from 'bcryptjs';
import { DomainError } from '../errors.ts';

/** bcrypt cost (a deliberately slow hash). 12 ≈ 250 ms per hash on this machine class. */
export const BCRYPT_COST = 12;
export const MIN_PASSWORD_LENGTH = 8;

/** bcrypt reads only the first 72 bytes of a password (bcrypt's key schedule; bcryptjs docs): longer ones are refused. */
export const MAX_PASSWORD_BYTES = 72;

/** The message for a password over MAX_PASSWORD_BYTES (the same words in the zod schemas). */
export const PASSWORD_TOO_LONG = `At most ${MAX_PASSWORD_BYTES} bytes in UTF-8 (bcrypt ignores anything after that)`;

/** true when the password fits bcrypt's 72-byte input. */
export function passwordFitsBcrypt(password: string): boolean {
  return Buffer.byteLength(password, 'utf8') <= MAX_PASSWORD_BYTES;
}

/** @throws DomainError('validation', field `password`) for a password over 72 UTF-8 bytes. */
export function assertPasswordFitsBcrypt(password: string, field = 'password'): void {
  if (!passwordFitsBcrypt(password)) throw new DomainError('validation', `Password is too long: ${PASSWORD_TOO_LONG}`, { [field]: PASSWORD_TOO_LONG });
}

/** A new password: at least MIN_PASSWORD_LENGTH characters, at most 72 UTF-8 bytes. */
export function assertPasswordStrength(password: string, field = 'password'): void {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('validation', `Password must be at least ${MIN_PASSWORD_LENGTH} characters`, {
      [field]: `At least ${MIN_PASSWORD_LENGTH} characters`,
    });
  }
  assertPasswordFitsBcrypt(password, field);
}

export function hashPassword(password: string, cost = BCRYPT_COST): Promise<string> {
  return bcrypt.hash(password, cost);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

// A real hash to compare against when the user does not exist, so a login for an
// unknown email costs the same time as a wrong password (no user enumeration).
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= bcrypt.hash('tickflow-dummy-password', BCRYPT_COST);
  return dummyHash;
}
