import { describe, expect, it } from 'vitest';
import { hourTicks } from './next-fires-axis';

/** The axis labels of the 24 h from `from` in `zone`. */
const labels = (from: string, zone: string) => hourTicks(Date.parse(from), zone).map((t) => t.label);

describe('hourTicks', () => {
  it.each(['Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns', 'Europe/Berlin'])('%s: the labels are the local 3-hour marks', (zone) => {
    const got = labels('2026-12-05T03:50:00Z', zone);
    expect(got).toHaveLength(8);
    for (const l of got) expect(l).toMatch(/^(00|03|06|09|12|15|18|21):00$/);
  });

  it('Asia/Kolkata from 09:20 local: 12:00 … 09:00, 6-hourly ones major, at their place on the axis', () => {
    const t = hourTicks(Date.parse('2026-12-05T03:50:00Z'), 'Asia/Kolkata');
    expect(t.map((x) => x.label)).toEqual(['12:00', '15:00', '18:00', '21:00', '00:00', '03:00', '06:00', '09:00']);
    expect(t.map((x) => x.minor)).toEqual([false, true, false, true, false, true, false, true]);
    // 12:00 local is 2 h 40 min after 09:20 local
    expect(t[0]!.at).toBeCloseTo(160 / 1440, 10);
  });

  it('Australia/Lord_Howe across its DST change and Europe/Berlin on its 23 h and 25 h days: each mark once', () => {
    expect(labels('2027-04-03T13:00:00Z', 'Australia/Lord_Howe')).toEqual(['00:00', '03:00', '06:00', '09:00', '12:00', '15:00', '18:00', '21:00']);
    expect(labels('2026-10-03T14:00:00Z', 'Australia/Lord_Howe')).toEqual(['03:00', '06:00', '09:00', '12:00', '15:00', '18:00', '21:00', '00:00']);
    expect(labels('2026-03-28T23:00:00Z', 'Europe/Berlin')).toEqual(['00:00', '03:00', '06:00', '09:00', '12:00', '15:00', '18:00', '21:00', '00:00']);
    expect(labels('2026-10-24T22:00:00Z', 'Europe/Berlin')).toEqual(['00:00', '03:00', '06:00', '09:00', '12:00', '15:00', '18:00', '21:00']);
  });
});
