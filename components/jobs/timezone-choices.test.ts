import { describe, expect, it } from 'vitest';
import { zoneChoices } from './timezone-choices';

// Zones as Intl.supportedValuesOf('timeZone') lists them: sorted, Africa/Abidjan first.
const ZONES = ['Africa/Abidjan', 'Africa/Accra', 'America/New_York', 'America/North_Dakota/New_Salem', 'Asia/Tokyo', 'Etc/UTC', 'UTC'];

describe('zoneChoices (time zone picker)', () => {
  it('a zone typed exactly is listed and highlighted first, so Enter keeps it (not Africa/Abidjan)', () => {
    const c = zoneChoices('Asia/Tokyo', ZONES);
    expect(c.matches[c.active]).toBe('Asia/Tokyo');
    expect(c.matches).toEqual(['Asia/Tokyo']);
    expect(zoneChoices('asia/tokyo', ZONES).matches[0]).toBe('Asia/Tokyo');
  });

  it('an exact match comes before longer zones containing it', () => {
    const c = zoneChoices('UTC', ZONES);
    expect(c.matches).toEqual(['UTC', 'Etc/UTC']);
    expect(c.active).toBe(0);
  });

  it('a partial text lists only zones containing it (spaces as underscores), the first highlighted', () => {
    expect(zoneChoices('new york', ZONES)).toEqual({ matches: ['America/New_York'], active: 0 });
    expect(zoneChoices('new_', ZONES).matches).toEqual(['America/New_York', 'America/North_Dakota/New_Salem']);
  });

  it('nothing typed: every zone up to the limit, none highlighted; no match: nothing to pick', () => {
    expect(zoneChoices('  ', ZONES, 3)).toEqual({ matches: ZONES.slice(0, 3), active: -1 });
    expect(zoneChoices('Mars/Olympus', ZONES)).toEqual({ matches: [], active: -1 });
  });
});
