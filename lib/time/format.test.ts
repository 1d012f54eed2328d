import { describe, expect, it } from 'vitest';
import {
  axisIn,
  axisMs,
  durationAxisUnit,
  niceDurationTicks,
  formatClock,
  formatDate,
  formatDateTime,
  formatDuration,
  formatUtc,
  instantToWallTime,
  isKnownZone,
  relativeFrom,
  repeatedWallTime,
  shortDate,
  skippedWallTime,
  utcToZonedLocal,
  wallHourMarks,
  zonedLocalToUtc,
  zonedRangeEndToUtc,
  zoneLabel,
  zoneOffsetMinutes,
  zonedInstantsInText,
} from './format';

describe('formatDateTime', () => {
  const t = '2026-11-29T09:21:05.042Z';
  it('writes date, 24-hour time and the offset label of the zone', () => {
    expect(formatDateTime(t, 'UTC')).toBe('2026-11-29 09:21:05 UTC');
    expect(formatDateTime(t, 'Asia/Shanghai')).toBe('2026-11-29 17:21:05 UTC+8');
    expect(formatDateTime(t, 'America/New_York')).toBe('2026-11-29 04:21:05 UTC\u22125');
    expect(formatDateTime(t, 'Asia/Kolkata')).toBe('2026-11-29 14:51:05 UTC+5:30');
    expect(formatDateTime(t, 'Asia/Shanghai', { ms: true, seconds: true })).toBe('2026-11-29 17:21:05.042 UTC+8');
    expect(formatDateTime(t, 'Asia/Shanghai', { seconds: false, zone: false })).toBe('2026-11-29 17:21');
  });

  it('gives the same text for a legacy POSIX-style zone as for its IANA twin (no zone abbreviations)', () => {
    // EST5EDT is where Node and browsers disagree on the short name ("EST" vs "GMT-5"): only numbers are written.
    expect(formatDateTime(t, 'EST5EDT')).toBe(formatDateTime(t, 'America/New_York'));
    expect(formatDateTime('2026-07-01T12:00:00Z', 'EST5EDT')).toBe('2026-07-01 08:00:00 UTC\u22124');
  });

  it('crosses midnight and the date line in the zone, not in UTC', () => {
    expect(formatDate('2026-03-01T23:30:00Z', 'Asia/Shanghai')).toBe('2026-03-02');
    expect(formatDate('2026-03-01T02:30:00Z', 'America/Los_Angeles')).toBe('2026-02-28');
    expect(formatClock('2026-03-01T23:30:00.007Z', 'Asia/Shanghai', { ms: true })).toBe('07:30:00.007');
    // the task's log lines: the clock in the display zone with the zone written next to it
    expect(formatClock('2026-12-04T04:11:52.756Z', 'Europe/Paris', { ms: true, zone: true })).toBe('05:11:52.756 UTC+1');
  });

  it('follows DST: the label changes with the offset in force', () => {
    expect(zoneLabel(new Date('2026-03-08T06:59:59Z'), 'America/New_York')).toBe('UTC\u22125');
    expect(zoneLabel(new Date('2026-03-08T07:00:00Z'), 'America/New_York')).toBe('UTC\u22124');
    expect(zoneOffsetMinutes(new Date('2026-06-01T00:00:00Z'), 'Europe/Berlin')).toBe(120);
  });

  it('an unknown zone falls back to UTC; no instant gives empty text', () => {
    expect(isKnownZone('Mars/Olympus')).toBe(false);
    expect(formatDateTime(t, 'Mars/Olympus')).toBe('2026-11-29 09:21:05 UTC');
    expect(formatDateTime(null, 'UTC')).toBe('');
    expect(formatUtc('not a date')).toBe('');
  });
});

describe('wall time <-> instant', () => {
  it('round-trips a datetime-local value in a zone', () => {
    const at = zonedLocalToUtc('2027-01-15T09:30', 'Asia/Shanghai');
    expect(at?.toISOString()).toBe('2027-01-15T01:30:00.000Z');
    expect(utcToZonedLocal(at, 'Asia/Shanghai')).toBe('2027-01-15T09:30');
  });
  it('a wall time in a spring-forward gap moves forward by the gap (as cron does)', () => {
    expect(zonedLocalToUtc('2026-03-08T02:30', 'America/New_York')?.toISOString()).toBe('2026-03-08T07:30:00.000Z');
  });
  it('refuses malformed values and unknown zones', () => {
    expect(zonedLocalToUtc('2026-03-08 02:30', 'UTC')).toBeNull();
    expect(zonedLocalToUtc('2026-03-08T02:30', 'Nowhere/Else')).toBeNull();
  });
});

describe('durations and dates', () => {
  it('formatDuration', () => {
    expect([850, 1250, 12_300, 245_000, 7_380_000].map(formatDuration)).toEqual(['850 ms', '1.25 s', '12.3 s', '4m 05s', '2h 03m']);
    expect(formatDuration(null)).toBe('—');
  });
  it('shortDate needs no locale data', () => {
    expect(shortDate('2026-03-07')).toBe('Mar 7');
    expect(shortDate('2026-03-07T13:00')).toBe('Mar 7 13:00');
    expect(shortDate('2026-12-31')).toBe('Dec 31');
  });
});

describe('fall-back', () => {
  it('a repeated wall time is its first occurrence', () => {
    expect(zonedLocalToUtc('2026-11-01T01:30', 'America/New_York')?.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    // east of UTC the instant read as UTC is already past the change: still the first occurrence
    expect(zonedLocalToUtc('2026-10-25T02:30', 'Europe/Berlin')?.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(zonedLocalToUtc('2026-10-25T01:30', 'Europe/London')?.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(zonedLocalToUtc('2026-04-05T02:30', 'Australia/Sydney')?.toISOString()).toBe('2026-04-04T15:30:00.000Z');
    // a 30-minute change (Lord Howe: +11 -> +10:30 at 02:00 local)
    expect(zonedLocalToUtc('2026-04-05T01:45', 'Australia/Lord_Howe')?.toISOString()).toBe('2026-04-04T14:45:00.000Z');
  });
  it('the end of a range reads a repeated wall time as its second occurrence; other times are the same either way', () => {
    expect(zonedLocalToUtc('2026-11-01T01:30', 'America/New_York', { repeated: 'last' })?.toISOString()).toBe('2026-11-01T06:30:00.000Z');
    expect(zonedLocalToUtc('2026-10-25T02:30', 'Europe/Berlin', { repeated: 'last' })?.toISOString()).toBe('2026-10-25T01:30:00.000Z');
    expect(zonedLocalToUtc('2026-04-05T01:45', 'Australia/Lord_Howe', { repeated: 'last' })?.toISOString()).toBe('2026-04-04T15:15:00.000Z');
    expect(zonedLocalToUtc('2026-11-01T00:59', 'America/New_York', { repeated: 'last' })?.toISOString()).toBe('2026-11-01T04:59:00.000Z');
    expect(zonedLocalToUtc('2026-03-08T02:30', 'America/New_York', { repeated: 'last' })?.toISOString()).toBe('2026-03-08T07:30:00.000Z');
    // a typed range: its start is the first occurrence, its end the second
    expect(zonedRangeEndToUtc('2026-11-01T01:30', 'America/New_York', 'from')?.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(zonedRangeEndToUtc('2026-11-01T01:30', 'America/New_York', 'to')?.toISOString()).toBe('2026-11-01T06:30:00.000Z');
  });
  it('a wall time in a spring-forward gap moves forward by the gap; other times are exact', () => {
    expect(zonedLocalToUtc('2026-03-08T02:30', 'America/New_York')?.toISOString()).toBe('2026-03-08T07:30:00.000Z'); // 03:30 EDT
    expect(zonedLocalToUtc('2026-03-29T02:30', 'Europe/Berlin')?.toISOString()).toBe('2026-03-29T01:30:00.000Z'); // 03:30 CEST
    expect(zonedLocalToUtc('2026-07-01T12:00', 'Asia/Kolkata')?.toISOString()).toBe('2026-07-01T06:30:00.000Z');
    expect(zonedLocalToUtc('2026-01-15T09:00:30', 'Europe/Berlin')?.toISOString()).toBe('2026-01-15T08:00:30.000Z');
  });
});

describe('a wall time that stands for one instant (the console inputs that load and save one)', () => {
  it('repeatedWallTime gives both instants of a wall time a fall-back repeats, and nothing for any other', () => {
    expect(repeatedWallTime('2026-11-01T01:30', 'America/New_York')?.map((d) => d.toISOString())).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-01T06:30:00.000Z']);
    expect(repeatedWallTime('2026-04-05T01:45', 'Australia/Lord_Howe')?.map((d) => d.toISOString())).toEqual(['2026-04-04T14:45:00.000Z', '2026-04-04T15:15:00.000Z']);
    expect(repeatedWallTime('2026-11-01T00:59', 'America/New_York')).toBeNull();
    expect(repeatedWallTime('2026-11-01T02:00', 'America/New_York')).toBeNull();
    expect(repeatedWallTime('2026-03-08T02:30', 'America/New_York')).toBeNull(); // a gap: no instant has it
    expect(repeatedWallTime('2026-11-01T01:30', 'UTC')).toBeNull();
    expect(repeatedWallTime('nonsense', 'America/New_York')).toBeNull();
  });
  it('skippedWallTime gives the instant a wall time a spring-forward skips is read as, and nothing for one that exists', () => {
    expect(skippedWallTime('2026-03-08T02:30', 'America/New_York')?.toISOString()).toBe('2026-03-08T07:30:00.000Z'); // 03:30 EDT
    expect(skippedWallTime('2026-10-04T02:15', 'Australia/Lord_Howe')?.toISOString()).toBe('2026-10-03T15:45:00.000Z'); // 02:45 +11
    expect(skippedWallTime('2026-03-08T03:00', 'America/New_York')).toBeNull();
    expect(skippedWallTime('2026-11-01T01:30', 'America/New_York')).toBeNull(); // repeated, not skipped
    expect(skippedWallTime('2026-03-08T02:30:15', 'UTC')).toBeNull();
  });
  it('instantToWallTime is the exact inverse of zonedLocalToUtc: seconds, milliseconds and the occurrence of a repeated hour', () => {
    const cases: [string, string][] = [
      ['2026-11-01T06:30:00.000Z', 'America/New_York'], // 01:30 EST, the second 01:30
      ['2026-11-01T05:30:00.000Z', 'America/New_York'], // 01:30 EDT, the first
      ['2026-10-25T01:30:00.000Z', 'Europe/Berlin'],
      ['2026-04-04T15:15:00.000Z', 'Australia/Lord_Howe'],
      ['2026-12-10T10:00:30.000Z', 'Asia/Shanghai'],
      ['2026-12-10T10:00:30.250Z', 'UTC'],
      ['2026-12-10T10:00:00.007Z', 'Asia/Kolkata'],
      ['2026-03-08T07:30:00.000Z', 'America/New_York'],
      ['1971-06-01T00:00:00.000Z', 'Africa/Monrovia'], // −0:44:30 until 1972: the wall reads 23:15:30
      ['1900-01-01T12:00:00.000Z', 'Europe/Amsterdam'], // +0:19:32 local mean time
    ];
    for (const [iso, zone] of cases) {
      const w = instantToWallTime(iso, zone)!;
      expect(zonedLocalToUtc(w.local, zone, { repeated: w.repeated })?.toISOString(), `${iso} in ${zone}`).toBe(iso);
    }
    expect(instantToWallTime('2026-11-01T06:30:00.000Z', 'America/New_York')).toEqual({ local: '2026-11-01T01:30', repeated: 'last' });
    expect(instantToWallTime('2026-11-01T05:30:00.000Z', 'America/New_York')).toEqual({ local: '2026-11-01T01:30', repeated: 'first' });
    expect(instantToWallTime('2026-12-10T10:00:30.250Z', 'UTC')).toEqual({ local: '2026-12-10T10:00:30.250', repeated: 'first' });
    expect(instantToWallTime(null, 'UTC')).toBeNull();
    expect(instantToWallTime('1971-06-01T00:00:00.000Z', 'Africa/Monrovia')).toEqual({ local: '1971-05-31T23:15:30', repeated: 'first' });
  });
});

describe('durationAxisUnit', () => {
  it('writes every tick of an axis in one unit, the one a chart title names', () => {
    const cases: [number, string, string[]][] = [
      [26_000, 'seconds', ['0s', '10s', '20s', '30s']],
      [850, 'seconds', ['0s', '0.25s', '0.5s', '0.75s', '1s']],
      [400, 'milliseconds', ['0ms', '100ms', '200ms', '300ms', '400ms']],
      [4 * 60_000 + 1, 'minutes', ['0m', '2m', '4m', '6m']],
      [70_000, 'minutes', ['0m', '0.5m', '1m', '1.5m']],
      [3 * 3_600_000, 'hours', ['0h', '1h', '2h', '3h']],
      [0, 'seconds', ['0s', '1s']],
    ];
    for (const [max, name, labels] of cases) {
      const ticks = niceDurationTicks(max);
      const unit = durationAxisUnit(ticks);
      expect({ max, name: unit.name, labels: ticks.map((t) => axisIn(t, unit)) }).toEqual({ max, name, labels });
    }
    // steps of 20 s would be 0.33 m each: seconds
    expect(durationAxisUnit([0, 20_000, 40_000, 60_000, 80_000]).name).toBe('seconds');
  });
});

describe('niceDurationTicks', () => {
  it('uses round steps instead of max/4 (6.5 s, 13 s, 19.5 s)', () => {
    expect(niceDurationTicks(26_000)).toEqual([0, 10_000, 20_000, 30_000]);
    expect(niceDurationTicks(26_000).map(axisMs)).toEqual(['0ms', '10s', '20s', '30s']);
    expect(niceDurationTicks(850)).toEqual([0, 250, 500, 750, 1000]);
    expect(niceDurationTicks(4 * 60_000 + 1)).toEqual([0, 120_000, 240_000, 360_000]);
    expect(niceDurationTicks(0)).toEqual([0, 1000]);
  });
  it('always covers the maximum with at most `count` intervals', () => {
    for (const max of [1, 7, 99, 1234, 59_999, 61_000, 3_599_999, 5 * 3_600_000, 3 * 86_400_000]) {
      const t = niceDurationTicks(max);
      expect(t[t.length - 1]!).toBeGreaterThanOrEqual(max);
      expect(t.length - 1).toBeLessThanOrEqual(4);
    }
  });
});

describe("wallHourMarks (the Next 24 hours axis, every 3 h of the zone's wall clock)", () => {
  const DAY = 86_400_000;
  /** The marks of the 24 h from `from`, as the zone's wall clock shows them, and as UTC clock times. */
  const marks = (from: string, zone: string) => {
    const f = Date.parse(from);
    const m = wallHourMarks(f, f + DAY, zone, 3);
    return { wall: m.map((x) => formatDateTime(x.at, zone, { seconds: false }).slice(0, 16)), hours: m.map((x) => x.hour), utc: m.map((x) => new Date(x.at).toISOString().slice(11, 16)) };
  };
  const local = (day: string, hours: number[], next?: string) => hours.map((h, i) => `${i === hours.length - 1 && next ? next : day} ${String(h).padStart(2, '0')}:00`);

  it.each([
    ['Asia/Kolkata', ['06:30', '09:30', '12:30', '15:30', '18:30', '21:30', '00:30', '03:30']],
    ['Asia/Kathmandu', ['06:15', '09:15', '12:15', '15:15', '18:15', '21:15', '00:15', '03:15']],
  ])('%s: on the local 3-hour marks, not on whole UTC hours', (zone, utc) => {
    // 03:50Z is 09:20 in Kolkata, 09:35 in Kathmandu
    const m = marks('2026-12-05T03:50:00Z', zone);
    expect(m.wall).toEqual([...local('2026-12-05', [12, 15, 18, 21]), ...local('2026-12-06', [0, 3, 6, 9])]);
    expect(m.hours).toEqual([12, 15, 18, 21, 0, 3, 6, 9]);
    expect(m.utc).toEqual(utc);
  });

  it('Europe/Berlin, a whole-hour zone: as before', () => {
    expect(marks('2026-12-05T03:50:00Z', 'Europe/Berlin').wall).toEqual([...local('2026-12-05', [6, 9, 12, 15, 18, 21]), ...local('2026-12-06', [0, 3])]);
  });

  it('Europe/Berlin on its 23 h day (02:00 -> 03:00): each mark once, 00:00 to 03:00 two real hours apart', () => {
    const m = marks('2026-03-28T23:00:00Z', 'Europe/Berlin'); // local midnight; the 24 h end at 01:00 the next day
    expect(m.wall).toEqual([...local('2026-03-29', [0, 3, 6, 9, 12, 15, 18, 21]), '2026-03-30 00:00']);
    expect(m.utc.slice(0, 2)).toEqual(['23:00', '01:00']);
  });

  it('Europe/Berlin on its 25 h day (03:00 -> 02:00): no mark doubled, none skipped', () => {
    const m = marks('2026-10-24T22:00:00Z', 'Europe/Berlin'); // local midnight; the 24 h end at 23:00 the same day
    expect(m.wall).toEqual(local('2026-10-25', [0, 3, 6, 9, 12, 15, 18, 21]));
    expect(m.utc.slice(0, 2)).toEqual(['22:00', '02:00']);
  });

  it('Australia/Lord_Howe across its half-hour changes (+10:30 <-> +11)', () => {
    // spring forward 2026-10-04 02:00 -> 02:30; from 01:00 local
    const spring = marks('2026-10-03T14:00:00Z', 'Australia/Lord_Howe');
    expect(spring.wall).toEqual([...local('2026-10-04', [3, 6, 9, 12, 15, 18, 21]), '2026-10-05 00:00']);
    expect(spring.utc[0]).toBe('16:00');
    // fall back 2027-04-04 02:00 -> 01:30; from local midnight (+11), the 24 h end at 23:30 (+10:30)
    const fall = marks('2027-04-03T13:00:00Z', 'Australia/Lord_Howe');
    expect(fall.wall).toEqual(local('2027-04-04', [0, 3, 6, 9, 12, 15, 18, 21]));
    expect(fall.utc.slice(0, 2)).toEqual(['13:00', '16:30']);
  });

  it('a mark a fall-back repeats comes once (America/Havana falls back at 01:00 to 00:00)', () => {
    const f = Date.parse('2026-11-01T03:00:00Z'); // 23:00 local on 31 Oct, an hour before the first 00:00
    const m = wallHourMarks(f, f + 3 * 3_600_000, 'America/Havana', 3);
    expect(m.map((x) => new Date(x.at).toISOString())).toEqual(['2026-11-01T04:00:00.000Z']);
  });

  it('an unknown zone is read as UTC', () => {
    expect(marks('2026-12-05T03:50:00Z', 'Nowhere/Zone').utc).toEqual(['06:00', '09:00', '12:00', '15:00', '18:00', '21:00', '00:00', '03:00']);
  });
});

describe('relativeFrom', () => {
  it('says seconds, minutes, hours, days, then whole years (a token valid until 9999 is not "in 2912104d")', () => {
    expect(relativeFrom(-2_000)).toBe('just now');
    expect(relativeFrom(30_000)).toBe('in 30s');
    expect(relativeFrom(-3 * 60_000)).toBe('3m ago');
    expect(relativeFrom(2 * 3_600_000)).toBe('in 2h');
    expect(relativeFrom(364 * 86_400_000)).toBe('in 364d');
    expect(relativeFrom(-400 * 86_400_000)).toBe('1y ago');
    expect(relativeFrom(Date.UTC(9999, 11, 31) - Date.UTC(2026, 11, 5))).toBe('in 7978y');
  });
});

describe('zonedInstantsInText', () => {
  it('writes the ISO UTC instants a stored reason quotes as every other time, in the zone', () => {
    expect(zonedInstantsInText('misfire: 121 missed slots skipped from 2026-12-05T14:08:45.000Z to 2026-12-05T14:18:45Z', 'Asia/Shanghai')).toBe(
      'misfire: 121 missed slots skipped from 2026-12-05 22:08:45 UTC+8 to 2026-12-05 22:18:45 UTC+8',
    );
    expect(zonedInstantsInText('it is offline: no heartbeat since 2026-12-07T06:11:39.104Z (it crashed)', 'UTC')).toBe('it is offline: no heartbeat since 2026-12-07 06:11:39 UTC (it crashed)');
  });
  it('leaves text without an instant, and a date without a time, as they are', () => {
    expect(zonedInstantsInText('blocked: previous run 0a1b2c3d still active', 'UTC')).toBe('blocked: previous run 0a1b2c3d still active');
    expect(zonedInstantsInText('day 2026-12-05 failed', 'UTC')).toBe('day 2026-12-05 failed');
  });
});
