import { describe, expect, it } from 'vitest';
import { adminSettings, DEFAULT_ADMIN_EMAIL } from './bootstrap.ts';

describe('adminSettings (lib/auth/bootstrap.ts)', () => {
  it('reads the first admin from TICKFLOW_ADMIN_EMAIL and TICKFLOW_ADMIN_PASSWORD', () => {
    expect(adminSettings({})).toEqual({ email: DEFAULT_ADMIN_EMAIL });
    expect(adminSettings({ TICKFLOW_ADMIN_EMAIL: 'Ops@Example.com', TICKFLOW_ADMIN_PASSWORD: 'long enough' })).toEqual({ email: 'ops@example.com', password: 'long enough' });
  });

  it('refuses a bad value, naming the variable', () => {
    expect(() => adminSettings({ TICKFLOW_ADMIN_PASSWORD: 'short' })).toThrow(/^TICKFLOW_ADMIN_PASSWORD: /);
    expect(() => adminSettings({ TICKFLOW_ADMIN_PASSWORD: 'é'.repeat(40) })).toThrow(/^TICKFLOW_ADMIN_PASSWORD: /);
    expect(() => adminSettings({ TICKFLOW_ADMIN_EMAIL: 'not an email' })).toThrow(/^TICKFLOW_ADMIN_EMAIL: /);
  });
});
