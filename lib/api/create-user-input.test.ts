import { describe, expect, it } from 'vitest';
import { CreateUserInput } from './schemas.ts';
import { zodToFieldErrors } from './validation.ts';

const fields = (input: unknown) => {
  const r = CreateUserInput.safeParse(input);
  return r.success ? {} : zodToFieldErrors(r.error);
};

describe('CreateUserInput (Settings → Users → New user, POST /api/v1/users)', () => {
  it('an empty email or password is required, as an empty Key or Name is in the job form', () => {
    expect(fields({ email: '', password: '', role: 'operator' })).toEqual({ email: 'Email is required', password: 'Password is required' });
  });
  it('a value typed wrong quotes the rule', () => {
    expect(fields({ email: 'not-an-email', password: 'short', role: 'operator' })).toEqual({ email: 'Must be an email address', password: 'At least 8 characters' });
    expect(fields({ email: 'a@example.com', password: 'x'.repeat(73), role: 'operator' })).toEqual({ password: 'At most 72 bytes in UTF-8 (bcrypt ignores anything after that)' });
  });
  it('takes a good user', () => {
    expect(CreateUserInput.parse({ email: 'op@example.com', password: 'operator-pass-123', role: 'operator' })).toMatchObject({ email: 'op@example.com' });
  });
});
