import { describe, expect, it } from 'vitest';
import { zoneChoices, zoneInput, zoneInputHint } from './timezone-choices';

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

describe('zoneInput / zoneInputHint (the job form waits for a complete zone before previewing)', () => {
  const valid = (tz: string) => ZONES.includes(tz) || tz === 'US/Eastern';

  it('a half-typed zone is partial, with the zones it may become; no preview is asked for it', () => {
    const z = zoneInput('Asia/Tok', ZONES, valid);
    expect(z).toEqual({ kind: 'partial', suggestions: ['Asia/Tokyo'] });
    expect(zoneInputHint('Asia/Tok', z)).toBe('Time zone: "Asia/Tok" is not a complete zone name yet; pick one from the list (Asia/Tokyo). The preview waits for a complete zone.');
    expect(zoneInput('a', ZONES, valid)).toEqual({ kind: 'partial', suggestions: ['Africa/Abidjan', 'Africa/Accra', 'America/New_York'] });
    expect(zoneInputHint('a', zoneInput('a', ZONES, valid))).toContain('(Africa/Abidjan, Africa/Accra, America/New_York, …)');
  });

  it('a zone the server accepts is valid, listed or not (links such as US/Eastern); no hint', () => {
    expect(zoneInput(' Asia/Tokyo ', ZONES, valid)).toEqual({ kind: 'valid' });
    expect(zoneInput('US/Eastern', ZONES, valid)).toEqual({ kind: 'valid' });
    expect(zoneInputHint('Asia/Tokyo', { kind: 'valid' })).toBeNull();
  });

  it('nothing typed is empty (the form uses UTC), no hint; a text no zone contains is unknown, with a hint naming the field', () => {
    expect(zoneInput('  ', ZONES, valid)).toEqual({ kind: 'empty' });
    expect(zoneInputHint('', { kind: 'empty' })).toBeNull();
    const z = zoneInput('Mars/Olympus', ZONES, valid);
    expect(z).toEqual({ kind: 'unknown' });
    expect(zoneInputHint('Mars/Olympus', z)).toMatch(/^Time zone: no IANA zone matches "Mars\/Olympus"/);
  });
});
