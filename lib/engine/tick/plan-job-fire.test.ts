import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dueAt, fireTimesBetween, nextFireTime, staggerOffsetMs } from '../../schedule/index.ts';
import { planJobFire, summaryReason, toJobSchedule, type TickJob } from './plan-job-fire';

const T = (s: string) => new Date(s);
const iso = (ds: Date[]) => ds.map((d) => d.toISOString());

function cronJob(over: Partial<TickJob> = {}): TickJob {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    scheduleKind: 'cron',
    cronExpression: '* * * * *',
    timezone: 'UTC',
    intervalSeconds: null,
    runAt: null,
    startAt: null,
    endAt: null,
    misfirePolicy: 'fire_once',
    misfireMaxCatchup: 10,
    staggerSeconds: 0,
    nextRunAt: T('2026-11-29T08:30:00Z'),
    createdAt: T('2026-11-01T00:00:00Z'),
    ...over,
  };
}
const opts = { misfireGraceMs: 60_000, skippedRowLimit: 20 };
const restart = T('2026-11-29T10:21:30Z');

describe('planJobFire — docs/engine-cases.md case 2 (112 missed slots 08:30..10:21)', () => {
  it('skip: no run, one summary of 112, next 10:22', () => {
    const p = planJobFire(cronJob({ misfirePolicy: 'skip' }), restart, opts);
    expect(p.fire).toEqual([]);
    expect(p.skip).toEqual([]);
    expect(p.misfire).toBe(true);
    expect(p.summary).toMatchObject({ count: 112, exact: true });
    expect(p.summary!.scheduledFor.toISOString()).toBe('2026-11-29T08:30:00.000Z');
    expect(p.summary!.to.toISOString()).toBe('2026-11-29T10:21:00.000Z');
    expect(summaryReason(p.summary!)).toMatch(/^misfire: 112 missed slots skipped from 2026-11-29T08:30:00.000Z to 2026-11-29T10:21:00.000Z$/);
    expect(p.nextRunAt!.toISOString()).toBe('2026-11-29T10:22:00.000Z');
    expect(p.pause).toBe(false);
  });

  it('fire_once: exactly one catch-up (the most recent slot), 111 skipped, next 10:22', () => {
    const p = planJobFire(cronJob({ misfirePolicy: 'fire_once' }), restart, opts);
    expect(iso(p.fire)).toEqual(['2026-11-29T10:21:00.000Z']);
    expect(p.summary).toMatchObject({ count: 111 });
    expect(p.nextRunAt!.toISOString()).toBe('2026-11-29T10:22:00.000Z');
  });

  it('fire_all cap 10: the 10 most recent fire, 102 skipped, next 10:22', () => {
    const p = planJobFire(cronJob({ misfirePolicy: 'fire_all', misfireMaxCatchup: 10 }), restart, opts);
    expect(p.fire).toHaveLength(10);
    expect(p.fire[0]!.toISOString()).toBe('2026-11-29T10:12:00.000Z');
    expect(p.fire[9]!.toISOString()).toBe('2026-11-29T10:21:00.000Z');
    expect(p.summary).toMatchObject({ count: 102, exact: true });
    expect(p.summary!.to.toISOString()).toBe('2026-11-29T10:11:00.000Z');
  });

  it('small gaps are recorded slot by slot', () => {
    const p = planJobFire(cronJob({ misfirePolicy: 'fire_once', nextRunAt: T('2026-11-29T10:18:00Z') }), restart, opts);
    expect(iso(p.fire)).toEqual(['2026-11-29T10:21:00.000Z']);
    expect(iso(p.skip)).toEqual(['2026-11-29T10:18:00.000Z', '2026-11-29T10:19:00.000Z', '2026-11-29T10:20:00.000Z']);
    expect(p.summary).toBeNull();
  });

  it('a year of downtime on a per-second cron stays bounded', () => {
    const p = planJobFire(
      cronJob({ cronExpression: '* * * * * *', misfirePolicy: 'fire_all', nextRunAt: T('2025-11-29T00:00:00Z') }),
      T('2026-11-29T00:00:00.500Z'),
      opts,
    );
    expect(p.fire).toHaveLength(10);
    expect(p.summary!.count).toBeGreaterThan(30_000_000);
    expect(p.summary!.exact).toBe(false); // estimated, not walked slot by slot
    expect(p.nextRunAt!.toISOString()).toBe('2026-11-29T00:00:01.000Z');
  });
});

describe('planJobFire — on time, once, windows, stagger', () => {
  it('a slot within the grace simply fires', () => {
    const p = planJobFire(cronJob({ misfirePolicy: 'skip', nextRunAt: T('2026-11-29T10:21:00Z') }), restart, opts);
    expect(iso(p.fire)).toEqual(['2026-11-29T10:21:00.000Z']);
    expect(p.misfire).toBe(false);
  });

  it('nothing due yet: only recomputes', () => {
    const p = planJobFire(cronJob({ nextRunAt: T('2026-11-29T10:22:00Z') }), restart, opts);
    expect(p.fire).toEqual([]);
    expect(p.nextRunAt!.toISOString()).toBe('2026-11-29T10:22:00.000Z');
  });

  it('once: fires once and pauses', () => {
    const runAt = T('2026-11-29T10:21:00Z');
    const p = planJobFire(cronJob({ scheduleKind: 'once', cronExpression: null, runAt, nextRunAt: runAt }), restart, opts);
    expect(iso(p.fire)).toEqual([runAt.toISOString()]);
    expect(p.nextRunAt).toBeNull();
    expect(p.pause).toBe(true);
  });

  it('cron whose year range ended: fires its last slot then pauses', () => {
    const p = planJobFire(
      cronJob({ cronExpression: '0 0 10 21 11 * 2026', nextRunAt: T('2026-11-21T10:00:00Z') }),
      T('2026-11-21T10:00:05Z'),
      opts,
    );
    expect(p.fire).toHaveLength(1);
    expect(p.nextRunAt).toBeNull();
    expect(p.pause).toBe(true);
  });

  it('past end_at: nothing after the window, paused', () => {
    const p = planJobFire(cronJob({ nextRunAt: T('2026-11-29T10:21:00Z'), endAt: T('2026-11-29T10:21:10Z') }), restart, opts);
    expect(p.fire).toHaveLength(1);
    expect(p.nextRunAt).toBeNull();
    expect(p.pause).toBe(true);
  });

  it('unevaluable schedule throws (caller marks the job)', () => {
    expect(() => planJobFire(cronJob({ cronExpression: 'not a cron' }), restart, opts)).toThrow();
    expect(() => planJobFire(cronJob({ timezone: 'Mars/Olympus' }), restart, opts)).toThrow();
  });

  it('stagger: due = nominal + fixed offset, scheduled_for stays nominal', () => {
    const job = cronJob({ staggerSeconds: 30 });
    const off = staggerOffsetMs(job.id, 30);
    const nominal = T('2026-11-29T10:21:00Z');
    const due = dueAt({ jobId: job.id, staggerSeconds: 30 }, nominal)!;
    expect(due.getTime() - nominal.getTime()).toBe(off);
    const before = planJobFire({ ...job, nextRunAt: due }, new Date(due.getTime() - 1), opts);
    expect(before.fire).toEqual([]);
    const at = planJobFire({ ...job, nextRunAt: due }, due, opts);
    expect(iso(at.fire)).toEqual([nominal.toISOString()]);
    expect(at.nextRunAt!.getTime()).toBe(T('2026-11-29T10:22:00Z').getTime() + off);
  });
});

describe('planJobFire — look-ahead', () => {
  const la = { ...opts, lookaheadMs: 3000 };

  it('a slot due within the window is returned as ahead; the job moves past it', () => {
    const p = planJobFire(cronJob({ cronExpression: '*/5 * * * * *', nextRunAt: T('2026-11-29T10:21:05Z') }), T('2026-11-29T10:21:02.500Z'), la);
    expect(p.fire).toEqual([]);
    expect(p.ahead?.toISOString()).toBe('2026-11-29T10:21:05.000Z');
    expect(p.nextRunAt?.toISOString()).toBe('2026-11-29T10:21:05.000Z');
    expect(p.aheadNextRunAt?.toISOString()).toBe('2026-11-29T10:21:10.000Z');
    expect(p.aheadPause).toBe(false);
  });

  it('a job not due yet keeps its stored slot, never an earlier fire time of its schedule', () => {
    const p = planJobFire(cronJob({ cronExpression: '* * * * * *', nextRunAt: T('2026-11-29T10:21:05Z') }), T('2026-11-29T10:21:02.500Z'), la);
    expect(p.ahead?.toISOString()).toBe('2026-11-29T10:21:05.000Z');
    expect(p.aheadNextRunAt?.toISOString()).toBe('2026-11-29T10:21:06.000Z');
  });

  it('outside the window: nothing ahead', () => {
    const p = planJobFire(cronJob({ cronExpression: '*/5 * * * * *', nextRunAt: T('2026-11-29T10:21:05Z') }), T('2026-11-29T10:21:01.999Z'), la);
    expect(p.ahead).toBeNull();
    expect(p.nextRunAt?.toISOString()).toBe('2026-11-29T10:21:05.000Z');
  });

  it('a due slot fires now and the following one is returned as ahead', () => {
    const p = planJobFire(cronJob({ cronExpression: '* * * * * *', nextRunAt: T('2026-11-29T10:21:05Z') }), T('2026-11-29T10:21:05.200Z'), la);
    expect(iso(p.fire)).toEqual(['2026-11-29T10:21:05.000Z']);
    expect(p.ahead?.toISOString()).toBe('2026-11-29T10:21:06.000Z');
  });

  it('a once job fired ahead ends its schedule', () => {
    const runAt = T('2026-11-29T10:21:05Z');
    const p = planJobFire(cronJob({ scheduleKind: 'once', cronExpression: null, runAt, nextRunAt: runAt }), T('2026-11-29T10:21:03Z'), la);
    expect(p.ahead?.toISOString()).toBe(runAt.toISOString());
    expect(p.aheadNextRunAt).toBeNull();
    expect(p.aheadPause).toBe(true);
  });

  it('stagger: ahead is the nominal slot, the window counts from its due instant', () => {
    const job = cronJob({ cronExpression: '*/5 * * * * *', staggerSeconds: 3 });
    const off = staggerOffsetMs(job.id, 3);
    const due = new Date(T('2026-11-29T10:21:05Z').getTime() + off);
    const p = planJobFire({ ...job, nextRunAt: due }, new Date(due.getTime() - 3000), la);
    expect(p.ahead?.toISOString()).toBe('2026-11-29T10:21:05.000Z');
    expect(p.nextRunAt?.getTime()).toBe(due.getTime());
  });
});

describe('planJobFire — properties (fast-check): a downtime across clock changes loses no slot and fires none twice', () => {
  // Each missed slot is fired, recorded as skipped, or counted in the one summary (README "Misfire policy"), and
  // the job then waits for the first slot due after now, whatever the zone, its clock changes and the stagger.
  // cron expressions, and intervals (`every N s`, anchored at the job's creation: fixed-rate whatever the zone)
  const exprs = ['*/15 * * * *', '0 * * * *', '30 2 * * *', '45 1 * * *', '0 0 * * *', '*/30 1-3 * * *', '0 0 L * *', '15 */6 * * 1-5', 'every 900', 'every 3600', 'every 5400'];
  const zones = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'America/Santiago', 'America/Havana', 'Pacific/Chatham', 'Asia/Kolkata'];
  // around the changes of 2026 in those zones (March-April, September-November)
  const changeSeason = fc.oneof(
    fc.integer({ min: Date.parse('2026-03-05T00:00:00Z'), max: Date.parse('2026-04-08T00:00:00Z') }),
    fc.integer({ min: Date.parse('2026-09-03T00:00:00Z'), max: Date.parse('2026-11-05T00:00:00Z') }),
  );
  it('fired + recorded + summarised = every slot missed; the next fire is the first due after now', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...exprs), fc.constantFrom(...zones), changeSeason, fc.integer({ min: 0, max: 3 * 86_400_000 }),
        fc.constantFrom('skip', 'fire_once', 'fire_all') as fc.Arbitrary<TickJob['misfirePolicy']>, fc.integer({ min: 0, max: 30 }), fc.constantFrom(0, 90, 3600),
        (cron, tz, downFrom, downFor, policy, maxCatchup, staggerSeconds) => {
          const every = /^every (\d+)$/.exec(cron);
          const base = cronJob({
            ...(every
              ? { scheduleKind: 'interval', cronExpression: null, intervalSeconds: Number(every[1]), createdAt: new Date(downFrom - 86_400_000 + 12_345) }
              : { cronExpression: cron }),
            timezone: tz, misfirePolicy: policy, misfireMaxCatchup: maxCatchup, staggerSeconds,
          });
          const offset = staggerOffsetMs(base.id, staggerSeconds);
          const schedule = toJobSchedule(base);
          // the job was due at its first slot after the tick went down
          const first = nextFireTime(schedule, new Date(downFrom))!;
          const job = { ...base, nextRunAt: dueAt(schedule, first)! };
          const now = new Date(job.nextRunAt.getTime() + downFor);
          const missed = fireTimesBetween(schedule, new Date(first.getTime() - 1), new Date(now.getTime() - offset), 100_000).times;
          const p = planJobFire(job, now, opts);
          const handled = [...p.fire, ...p.skip].map((d) => d.getTime());
          expect(new Set(handled).size).toBe(handled.length);
          for (const t of handled) expect(missed.some((m) => m.getTime() === t)).toBe(true);
          const counted = handled.length + (p.summary?.count ?? 0);
          // a gap too long to walk slot by slot is summarised with an estimate ("about N", summaryReason)
          if (!p.summary || p.summary.exact) expect(counted).toBe(missed.length);
          else expect(Math.abs(counted - missed.length)).toBeLessThanOrEqual(Math.max(2, missed.length * 0.05));
          if (p.misfire) expect(p.fire.length).toBeLessThanOrEqual(policy === 'skip' ? 0 : policy === 'fire_once' ? 1 : maxCatchup);
          else expect(p.fire.length).toBe(missed.length);
          // fired: the most recent missed slots, ascending
          expect(iso(p.fire)).toEqual(iso(missed.slice(missed.length - p.fire.length)));
          const next = nextFireTime(schedule, new Date(now.getTime() - offset));
          expect(p.nextRunAt?.toISOString()).toBe(next ? dueAt(schedule, next)!.toISOString() : undefined);
          expect(p.nextRunAt!.getTime()).toBeGreaterThan(now.getTime());
        },
      ),
      { numRuns: 150 },
    );
  }, 30_000);
});
