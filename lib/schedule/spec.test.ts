import { describe, expect, it } from 'vitest';
import { ScheduleError } from './errors';
import { assertValidSchedule, fireTimesBetween, nextFireTime, type JobSchedule, type ScheduleSpec } from './spec';
import { dueAt, staggerOffsetMs } from './stagger';

const d = (s: string) => new Date(s);
const job = (spec: ScheduleSpec, over: Partial<JobSchedule> = {}): JobSchedule => ({
  spec,
  startAt: null,
  endAt: null,
  staggerSeconds: 0,
  jobId: 'job-1',
  createdAt: d('2026-01-01T00:00:00Z'),
  ...over,
});
const iso = (x: Date | null) => (x ? x.toISOString() : null);

describe('nextFireTime', () => {
  const hourly: ScheduleSpec = { kind: 'cron', cron: '0 * * * *', timezone: 'UTC' };
  const table: [string, JobSchedule, string, string | null][] = [
    ['cron in its zone', job({ kind: 'cron', cron: '0 9 * * 1-5', timezone: 'Asia/Shanghai' }), '2026-11-27T00:00:00Z', '2026-11-27T01:00:00.000Z'],
    ['cron before startAt -> first slot >= startAt', job(hourly, { startAt: d('2026-02-01T05:00:00Z') }), '2026-01-01T00:00:00Z', '2026-02-01T05:00:00.000Z'],
    ['cron past endAt -> null', job(hourly, { endAt: d('2026-02-01T05:00:00Z') }), '2026-02-01T05:00:00Z', null],
    ['cron slot at endAt fires (inclusive)', job(hourly, { endAt: d('2026-02-01T05:00:00Z') }), '2026-02-01T04:30:00Z', '2026-02-01T05:00:00.000Z'],
    ['cron next slot beyond endAt -> null', job(hourly, { endAt: d('2026-02-01T05:30:00Z') }), '2026-02-01T05:00:00Z', null],
    ['interval anchored at createdAt', job({ kind: 'interval', intervalSeconds: 300 }), '2026-01-01T00:07:00Z', '2026-01-01T00:10:00.000Z'],
    ['interval anchored at startAt', job({ kind: 'interval', intervalSeconds: 300 }, { startAt: d('2026-01-01T00:01:00Z') }), '2026-01-01T00:07:00Z', '2026-01-01T00:11:00.000Z'],
    ['interval before its creation -> one interval after it (the creation instant is no slot)', job({ kind: 'interval', intervalSeconds: 300 }), '2025-12-01T00:00:00Z', '2026-01-01T00:05:00.000Z'],
    ['interval before startAt -> startAt', job({ kind: 'interval', intervalSeconds: 300 }, { startAt: d('2026-01-01T00:01:00Z') }), '2025-12-01T00:00:00Z', '2026-01-01T00:01:00.000Z'],
    ['once before runAt', job({ kind: 'once', runAt: d('2026-03-01T12:00:00Z') }), '2026-03-01T11:59:59Z', '2026-03-01T12:00:00.000Z'],
    ['once at/after runAt -> null', job({ kind: 'once', runAt: d('2026-03-01T12:00:00Z') }), '2026-03-01T12:00:00Z', null],
    ['once outside window -> null', job({ kind: 'once', runAt: d('2026-03-01T12:00:00Z') }, { endAt: d('2026-02-01T00:00:00Z') }), '2026-01-01T00:00:00Z', null],
    ['once before startAt -> null', job({ kind: 'once', runAt: d('2026-03-01T12:00:00Z') }, { startAt: d('2026-04-01T00:00:00Z') }), '2026-01-01T00:00:00Z', null],
    ['manual -> null', job({ kind: 'manual' }), '2026-01-01T00:00:00Z', null],
    ['cron whose year field ran out -> null', job({ kind: 'cron', cron: '0 0 0 1 1 ? 2025', timezone: 'UTC' }), '2026-01-01T00:00:00Z', null],
  ];
  for (const [name, s, after, expected] of table) {
    it(name, () => expect(iso(nextFireTime(s, d(after)))).toBe(expected));
  }
});

describe('fireTimesBetween', () => {
  const s = job({ kind: 'cron', cron: '*/15 * * * *', timezone: 'UTC' });
  it('returns (after, until] ascending', () => {
    const r = fireTimesBetween(s, d('2026-01-01T00:00:00Z'), d('2026-01-01T01:00:00Z'), 10);
    expect(r.truncated).toBe(false);
    expect(r.times.map(iso)).toEqual(['00:15', '00:30', '00:45', '01:00'].map((t) => `2026-01-01T${t}:00.000Z`));
  });
  it('truncates at limit', () => {
    const r = fireTimesBetween(s, d('2026-01-01T00:00:00Z'), d('2026-01-02T00:00:00Z'), 3);
    expect(r).toMatchObject({ truncated: true });
    expect(r.times).toHaveLength(3);
  });
  it('walks forward across a spring-forward gap', () => {
    const ny = job({ kind: 'cron', cron: '30 * * * *', timezone: 'America/New_York' });
    const r = fireTimesBetween(ny, d('2026-03-08T05:00:00Z'), d('2026-03-08T08:00:00Z'), 10);
    // 00:30 EST, 01:30 EST, (02:30 does not exist), 03:30 EDT
    expect(r.times.map(iso)).toEqual(['2026-03-08T05:30:00.000Z', '2026-03-08T06:30:00.000Z', '2026-03-08T07:30:00.000Z']);
  });
});

describe('dueAt and validation', () => {
  it('adds the fixed stagger to the nominal time', () => {
    const s = job({ kind: 'interval', intervalSeconds: 60 }, { staggerSeconds: 30, jobId: 'abc' });
    const nominal = d('2026-01-01T00:01:00Z');
    expect(dueAt(s, nominal)!.getTime() - nominal.getTime()).toBe(staggerOffsetMs('abc', 30));
    expect(dueAt({ ...s, staggerSeconds: 0 }, nominal)!.getTime()).toBe(nominal.getTime());
  });
  it.each([
    [{ spec: { kind: 'interval', intervalSeconds: 0 } as ScheduleSpec, startAt: null, endAt: null }, 'intervalSeconds'],
    [{ spec: { kind: 'once', runAt: new Date(Number.NaN) } as ScheduleSpec, startAt: null, endAt: null }, 'runAt'],
    [{ spec: { kind: 'manual' } as ScheduleSpec, startAt: d('2026-02-01T00:00:00Z'), endAt: d('2026-01-01T00:00:00Z') }, 'endAt'],
    [{ spec: { kind: 'cron', cron: '0 * * * *', timezone: 'Nowhere/Land' } as ScheduleSpec, startAt: null, endAt: null }, 'timezone'],
  ])('assertValidSchedule -> %#', (s, field) => {
    try {
      assertValidSchedule(s);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ScheduleError);
      expect((e as ScheduleError).field).toBe(field);
    }
  });
});
