import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { getDisplayTimeZone, setDisplayTimeZone } from '../../lib/auth/display-time-zone.ts';
import { createUser } from '../../lib/auth/users.ts';
import { isDomainError } from '../../lib/errors.ts';
import { useTestDatabase } from '../helpers/db.ts';

const t = useTestDatabase();

describe('a user display time zone (users.display_time_zone)', () => {
  it('starts as the browser zone (null), is stored per user and can be cleared', async () => {
    const a = await createUser(t.db, { email: 'tz-a@example.test', password: 'a-long-password-1', role: 'viewer' }, SYSTEM_ACTOR);
    const b = await createUser(t.db, { email: 'tz-b@example.test', password: 'a-long-password-2', role: 'operator' }, SYSTEM_ACTOR);
    expect(await getDisplayTimeZone(t.db, a.id)).toBeNull();
    await setDisplayTimeZone(t.db, a.id, 'Asia/Shanghai');
    expect(await getDisplayTimeZone(t.db, a.id)).toBe('Asia/Shanghai');
    expect(await getDisplayTimeZone(t.db, b.id)).toBeNull();
    await setDisplayTimeZone(t.db, a.id, null);
    expect(await getDisplayTimeZone(t.db, a.id)).toBeNull();
  });

  it('refuses an unknown zone naming the field, and writes nothing', async () => {
    const u = await createUser(t.db, { email: 'tz-c@example.test', password: 'a-long-password-3', role: 'viewer' }, SYSTEM_ACTOR);
    await setDisplayTimeZone(t.db, u.id, 'Europe/Berlin');
    for (const bad of ['Mars/Olympus', '', '+05:00', 'x'.repeat(65)]) {
      const e = await setDisplayTimeZone(t.db, u.id, bad).catch((err: unknown) => err);
      expect(isDomainError(e) && e.code === 'validation' && Object.keys(e.fields ?? {})).toEqual(['timeZone']);
    }
    expect(await getDisplayTimeZone(t.db, u.id)).toBe('Europe/Berlin');
  });

  it('the database refuses an over-long value even without the check in code', async () => {
    const u = await createUser(t.db, { email: 'tz-d@example.test', password: 'a-long-password-4', role: 'viewer' }, SYSTEM_ACTOR);
    await expect(t.pool.query('UPDATE users SET display_time_zone = $1 WHERE id = $2', ['x'.repeat(65), u.id])).rejects.toThrow(/users_display_time_zone_len/);
  });

  it('an unknown user is not found', async () => {
    const e = await setDisplayTimeZone(t.db, '00000000-0000-4000-8000-000000000000', 'UTC').catch((err: unknown) => err);
    expect(isDomainError(e) && e.code).toBe('not_found');
  });
});
