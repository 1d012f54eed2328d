import { describe, expect, it } from 'vitest';
import { collectMissedSlots, planMisfire, type MisfirePolicy } from './misfire';
import { nextFireTime, type JobSchedule } from './spec';

const d = (s: string) => new Date(s);
const everyMinute: JobSchedule = {
  spec: { kind: 'cron', cron: '* * * * *', timezone: 'UTC' },
  startAt: null,
  endAt: null,
  staggerSeconds: 0,
  jobId: 'm',
  createdAt: d('2026-01-01T00:00:00Z'),
};

// docs/engine-cases.md case 2: down 08:29:30Z..10:21:30Z, 112 missed slots 08:30..10:21.
describe('docs/engine-cases.md case 2: misfire after downtime', () => {
  const lastTick = d('2026-05-04T08:29:30Z');
  const now = d('2026-05-04T10:21:30Z');
  const stored = nextFireTime(everyMinute, lastTick)!;
  const missed = collectMissedSlots(everyMinute, stored, now, 1000);

  it('collects the 112 slots 08:30..10:21', () => {
    expect(stored.toISOString()).toBe('2026-05-04T08:30:00.000Z');
    expect(missed.slots).toHaveLength(112);
    expect(missed.truncatedCount).toBe(0);
    expect(missed.slots[0]!.toISOString()).toBe('2026-05-04T08:30:00.000Z');
    expect(missed.slots.at(-1)!.toISOString()).toBe('2026-05-04T10:21:00.000Z');
  });

  const table: [MisfirePolicy, number, number, number, string | null][] = [
    ['skip', 10, 0, 112, null],
    ['fire_once', 10, 1, 111, '2026-05-04T10:21:00.000Z'],
    ['fire_all', 10, 10, 102, '2026-05-04T10:12:00.000Z'],
    ['fire_all', 500, 112, 0, '2026-05-04T08:30:00.000Z'],
    ['fire_all', 0, 0, 112, null],
  ];
  for (const [policy, cap, fired, skipped, firstFired] of table) {
    it(`${policy} cap ${cap}: ${fired} fired, ${skipped} skipped, then 10:22`, () => {
      const plan = planMisfire({ policy, maxCatchup: cap, missed: missed.slots });
      expect(plan.fire).toHaveLength(fired);
      expect(plan.skip).toHaveLength(skipped);
      expect(plan.fire[0]?.toISOString() ?? null).toBe(firstFired);
      if (fired > 0) expect(plan.fire.at(-1)!.toISOString()).toBe('2026-05-04T10:21:00.000Z');
      // fired slots are the most recent ones
      if (fired && skipped) expect(plan.skip.at(-1)!.getTime()).toBeLessThan(plan.fire[0]!.getTime());
      // the job keeps firing whatever the policy
      expect(nextFireTime(everyMinute, now)!.toISOString()).toBe('2026-05-04T10:22:00.000Z');
    });
  }

  it('no missed slots -> nothing to do', () => {
    expect(planMisfire({ policy: 'fire_once', maxCatchup: 5, missed: [] })).toEqual({ fire: [], skip: [] });
    expect(collectMissedSlots(everyMinute, d('2026-05-04T10:22:00Z'), now, 1000).slots).toEqual([]);
  });
});

describe('collectMissedSlots bounds', () => {
  it('a year of downtime on a per-second cron stays bounded and keeps the most recent slots', () => {
    const perSecond: JobSchedule = { ...everyMinute, spec: { kind: 'cron', cron: '* * * * * *', timezone: 'UTC' } };
    const r = collectMissedSlots(perSecond, d('2025-01-01T00:00:00Z'), d('2026-01-01T00:00:00Z'), 1000);
    expect(r.slots).toHaveLength(1000);
    expect(r.slots.at(-1)!.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(r.slots[0]!.toISOString()).toBe('2025-12-31T23:43:21.000Z');
    expect(r.truncatedExact).toBe(false);
    // 365 days of seconds, +1 for the inclusive end, minus the 1000 kept
    expect(Math.abs(r.truncatedCount - (365 * 86400 + 1 - 1000))).toBeLessThan(365 * 86400 * 0.01);
    expect(r.firstMissed!.toISOString()).toBe('2025-01-01T00:00:00.000Z');
  });
  it('exact count when the tail meets the head', () => {
    const r = collectMissedSlots(everyMinute, d('2026-01-01T00:00:00Z'), d('2026-01-01T00:14:00Z'), 10);
    expect(r.slots).toHaveLength(10);
    expect(r.truncatedExact).toBe(true);
    expect(r.truncatedCount).toBe(5);
    expect(r.slots.at(-1)!.toISOString()).toBe('2026-01-01T00:14:00.000Z');
  });
});
