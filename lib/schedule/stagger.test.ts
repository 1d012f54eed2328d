import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_INSTANT_MS } from '../api/instant';
import { dueAt, dueInstant, dueTimesAfter, staggerOffsetMs } from './stagger';
import type { JobSchedule } from './spec';

describe('staggerOffsetMs', () => {
  it('is 0 without stagger', () => expect(staggerOffsetMs('job-1', 0)).toBe(0));
  it('is stable and matches sha256 first 4 bytes mod window', () => {
    const id = '6f1c7c2e-2b1e-4a55-9d0e-0d7f5b1f4b11';
    const expected = createHash('sha256').update(id).digest().readUInt32BE(0) % 30_000;
    expect(staggerOffsetMs(id, 30)).toBe(expected);
    expect(staggerOffsetMs(id, 30)).toBe(staggerOffsetMs(id, 30));
  });
  it('stays in [0, stagger*1000) and spreads ids', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const v = staggerOffsetMs(`job-${i}`, 10);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(10_000);
      expect(Number.isInteger(v)).toBe(true);
      seen.add(Math.floor(v / 1000));
    }
    expect(seen.size).toBe(10);
  });
  it('rejects negative stagger', () => expect(() => staggerOffsetMs('x', -1)).toThrow(RangeError));
});

describe('dueTimesAfter', () => {
  const id = '6f1c7c2e-2b1e-4a55-9d0e-0d7f5b1f4b11';
  const hourly: JobSchedule = { spec: { kind: 'cron', cron: '0 * * * *', timezone: 'Asia/Kolkata' }, startAt: null, endAt: null, staggerSeconds: 3000, jobId: id, createdAt: new Date('2026-01-01T00:00:00Z') };
  const offset = staggerOffsetMs(id, 3000);
  const take = (g: Generator<Date>, n: number) => Array.from({ length: n }, () => g.next().value!.toISOString());
  it('yields slot + offset, never the nominal slot', () => {
    // 10:00 local (+05:30) is 04:30Z; the 10:00 slot is due at 04:30Z + offset, still to come just after 04:30Z
    const after = new Date(Date.parse('2027-02-01T04:30:00Z') + 1);
    expect(take(dueTimesAfter(hourly, after), 3)).toEqual([0, 1, 2].map((h) => new Date(Date.parse('2027-02-01T04:30:00Z') + h * 3_600_000 + offset).toISOString()));
  });
  it('is strictly after `after`: a due instant equal to it is not listed', () => {
    const due = new Date(Date.parse('2027-02-01T04:30:00Z') + offset);
    expect(take(dueTimesAfter(hourly, due), 1)).toEqual([new Date(due.getTime() + 3_600_000).toISOString()]);
    expect(take(dueTimesAfter(hourly, new Date(due.getTime() - 1)), 1)).toEqual([due.toISOString()]);
  });
  it('without stagger is the nominal slots', () => {
    expect(take(dueTimesAfter({ ...hourly, staggerSeconds: 0 }, new Date('2027-02-01T04:30:00Z')), 2)).toEqual(['2027-02-01T05:30:00.000Z', '2027-02-01T06:30:00.000Z']);
  });
});

describe('the last instant Tickflow stores (9999-12-31T23:59:59.999Z, lib/api/instant.ts)', () => {
  const id = '6f1c7c2e-2b1e-4a55-9d0e-0d7f5b1f4b11';
  const offset = staggerOffsetMs(id, 86_400);
  const everyMinute: JobSchedule = { spec: { kind: 'cron', cron: '* * * * *', timezone: 'UTC' }, startAt: null, endAt: null, staggerSeconds: 86_400, jobId: id, createdAt: new Date('2026-01-01T00:00:00Z') };
  it('dueInstant is null past it, the instant itself otherwise', () => {
    const last = new Date(MAX_INSTANT_MS);
    expect(dueInstant(last, 0)?.getTime()).toBe(MAX_INSTANT_MS);
    expect(dueInstant(last, 1)).toBeNull();
    expect(dueAt(everyMinute, new Date('9999-12-31T23:59:00Z'))).toBeNull();
  });
  it('dueTimesAfter ends at the last slot due by then, with a stagger as without', () => {
    const all = Array.from(dueTimesAfter(everyMinute, new Date(Date.parse('9999-12-31T23:50:00Z') - offset)));
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((t) => t.getTime() <= MAX_INSTANT_MS)).toBe(true);
    expect(all.at(-1)!.getTime() + 60_000).toBeGreaterThan(MAX_INSTANT_MS);
    const interval: JobSchedule = { ...everyMinute, spec: { kind: 'interval', intervalSeconds: 1 }, staggerSeconds: 0, startAt: new Date('9999-12-31T23:59:58Z') };
    expect(Array.from(dueTimesAfter(interval, new Date('9999-12-31T23:59:00Z'))).map((t) => t.toISOString())).toEqual(['9999-12-31T23:59:58.000Z', '9999-12-31T23:59:59.000Z']);
  });
});
