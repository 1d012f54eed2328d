import bcrypt from 'bcryptjs';
import { DomainError } from '../errors.ts';

/** bcrypt cost (issue 5: a slow hash). 12 ≈ 250 ms per hash on this machine class. */
export const BCRYPT_COST = 12;
export const MIN_PASSWORD_LENGTH = 8;

export function assertPasswordStrength(password: string, field = 'password'): void {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH || password.length > 200) {
    throw new DomainError('validation', `Password must be ${MIN_PASSWORD_LENGTH}..200 characters`, {
      [field]: `Must be ${MIN_PASSWORD_LENGTH}..200 characters`,
    });
  }
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
