import { describe, expect, it } from 'vitest';
import { formatInZone, isValidTimeZone, listTimeZones, postgresTimeZone, wallClock } from './timezone';

describe('timezone', () => {
  it.each([
    ['UTC', true],
    ['Asia/Shanghai', true],
    ['America/New_York', true],
    ['Mars/Olympus_Mons', false],
    ['', false],
    ['+05:00', false],
  ])('isValidTimeZone(%j) = %s', (tz, ok) => expect(isValidTimeZone(tz)).toBe(ok));

  it('names every zone Intl accepts to PostgreSQL by a name that cannot be an abbreviation', () => {
    // the Java-era three-letter ids ICU still accepts, and tzdata's abbreviation-named zones
    const legacy = ['CET', 'MET', 'EET', 'WET', 'EST', 'MST', 'HST', 'IST', 'BST', 'CST', 'PST', 'AET', 'AGT', 'CTT', 'EST5EDT', 'GMT', 'US/Pacific-New'];
    for (const tz of [...listTimeZones(), ...legacy]) {
      const name = postgresTimeZone(tz);
      expect(name === 'UTC' || name.includes('/'), `${tz} -> ${name}`).toBe(true);
      // the same instants, the same wall clock
      expect(formatInZone(new Date('2026-07-01T22:30:00Z'), name)).toBe(formatInZone(new Date('2026-07-01T22:30:00Z'), tz));
    }
    expect(postgresTimeZone('Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(() => postgresTimeZone('Mars/Olympus_Mons')).toThrow(RangeError);
  });

  it('lists zones including UTC', () => {
    const zones = listTimeZones();
    expect(zones).toContain('UTC');
    expect(zones).toContain('Asia/Shanghai');
    expect(zones.every(isValidTimeZone)).toBe(true);
  });

  it.each([
    ['2026-03-08T07:00:00Z', 'America/New_York', '2026-03-08 03:00:00 EDT'],
    ['2026-03-08T06:59:59Z', 'America/New_York', '2026-03-08 01:59:59 EST'],
    ['2026-11-27T01:00:00Z', 'Asia/Shanghai', '2026-11-27 09:00:00 GMT+08:00'],
    ['2026-01-01T00:00:00Z', 'Asia/Kolkata', '2026-01-01 05:30:00 GMT+05:30'],
    ['2026-01-01T00:00:00Z', 'UTC', '2026-01-01 00:00:00 UTC'],
  ])('formatInZone(%s, %s)', (iso, tz, expected) => expect(formatInZone(new Date(iso), tz)).toBe(expected));

  it('wallClock uses the zone, not the host', () => {
    expect(wallClock(new Date('2024-04-06T16:30:00Z'), 'Australia/Melbourne')).toEqual({ year: 2024, month: 4, day: 7, hour: 2, minute: 30, second: 0 });
  });
});
