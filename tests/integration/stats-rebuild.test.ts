/**
 * handler_stats_daily under concurrency: 4 in-process claim/complete loops, each on its own
 * Prisma client (own connection pool), complete a seeded-random mix of succeeding, failing,
 * retried, timing-out and abandoned (lease-expired) tasks across a UTC midnight; afterwards
 * the rebuild from detail rows reports zero drift. Then a tampered table is detected and
 * repaired with apply. Injected clock throughout (no sleeps).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase, offerHandlers } from '../helpers/db.ts';
import { createPrismaClient, type PrismaClient } from '../../lib/db.ts';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { cancelRun, claimTasks, completeTask, reclaimExpiredLeases, triggerRun, DURATION_BUCKET_COUNT } from '../../lib/engine/index.ts';
import { rebuildStats, computeStatsFromDetail } from '../../lib/stats/rebuild-stats.ts';
import { getDailyStats, handlerTotals } from '../../lib/stats/get-daily-stats.ts';
import { checkStats } from '../../lib/system-jobs/stats-check.ts';
import { mergeStatsSlots } from '../../lib/stats/merge-slots.ts';

/** mulberry32: a small seeded PRNG so the mix is the same on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASE = Date.parse('2026-03-01T23:59:30.000Z');
const HANDLERS = ['stat.ok', 'stat.fail', 'stat.flaky', 'stat.slow'];
const MIX = ['mix.ok', 'mix.fail', 'mix.slow', 'mix.cancel'];

const t = useTestDatabase();
const clients: PrismaClient[] = [];

beforeAll(async () => {
  await offerHandlers(t, [...HANDLERS, ...MIX]);
  for (let i = 0; i < 4; i++) clients.push(createPrismaClient(t.url, 3));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.$disconnect()));
});

describe('stats under 4 concurrent workers', () => {
  it('the rebuild from detail rows finds zero drift', { timeout: 180_000 }, async () => {
    const rnd = prng(20260301);
    let clock = BASE;
    /** the shared injected clock: every call moves time forward a little */
    const tick = (maxStep = 250) => new Date((clock += 1 + Math.floor(rnd() * maxStep)));

    // Jobs: single steps per handler, plus a DAG whose middle step fails (children skipped).
    const policy = { maxRetries: 2, blockStrategy: 'serial_execution', backoff: { baseSeconds: 0, factor: 1, maxSeconds: 0, jitter: 0 }, timeoutSeconds: 600 };
    const jobs: string[] = [];
    for (const h of HANDLERS) {
      for (let k = 0; k < 2; k++) {
        const j = await createJob(t.db, { key: `stats.${h}.${k}`, name: h, schedule: { kind: 'manual' }, handler: h, policy }, SYSTEM_ACTOR, new Date(BASE));
        jobs.push(j.id);
      }
    }
    const dag = await createJob(
      t.db,
      {
        key: 'stats.dag',
        name: 'dag',
        schedule: { kind: 'manual' },
        steps: [
          { key: 'a', handler: 'stat.ok' },
          { key: 'b', handler: 'stat.flaky', maxRetries: 1 },
          { key: 'c', handler: 'stat.ok' },
          { key: 'd', handler: 'stat.ok' },
        ],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'c' },
          { from: 'b', to: 'd', type: 'on_failure' },
        ],
        policy,
      },
      SYSTEM_ACTOR,
      new Date(BASE),
    );
    jobs.push(dag.id);

    // 6 runs per job, scheduled a little in the past so first attempts have lateness.
    for (let r = 0; r < 6; r++) {
      for (const jobId of jobs) {
        const now = tick(20);
        await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date(now.getTime() - Math.floor(rnd() * 5000)) }, now);
      }
    }

    const open = async () => (await t.pool.query(`SELECT count(*)::int AS n FROM runs WHERE status IN ('pending', 'running')`)).rows[0].n as number;
    let slowAttempts = 0;
    const outcome = (handler: string): { outcome: 'success' | 'failed' | 'timeout'; durationMs: number } => {
      switch (handler) {
        case 'stat.ok':
          return { outcome: 'success', durationMs: Math.floor(rnd() * 80) };
        case 'stat.fail':
          return { outcome: 'failed', durationMs: Math.floor(rnd() * 20) };
        case 'stat.flaky':
          return { outcome: rnd() < 0.5 ? 'failed' : 'success', durationMs: Math.floor(rnd() * 3000) };
        default:
          // every third stat.slow attempt times out (counted, so every run has timeouts)
          return { outcome: ++slowAttempts % 3 === 0 ? 'timeout' : 'success', durationMs: 5000 + Math.floor(rnd() * 115_000) };
      }
    };
    let abandoned = 0;
    let completed = 0;
    let attempts = 0;

    const loop = async (db: PrismaClient, nodeId: string) => {
      let empty = 0;
      while (empty < 15) {
        const claimed = await claimTasks(db, { nodeId, handlers: HANDLERS, group: 'default', labels: {}, limit: 3, leaseSeconds: 600 }, tick());
        if (claimed.length === 0) {
          empty++;
          tick(1000);
          continue;
        }
        empty = 0;
        await Promise.all(
          claimed.map(async (task) => {
            // Every 25th claimed attempt is abandoned (the worker "dies": the reaper reclaims the
            // lease). Counted, not drawn from rnd: how the four loops interleave changes which
            // draws each gets, and this must happen in every run.
            if (++attempts % 25 === 0) {
              abandoned++;
              return;
            }
            const o = outcome(task.handler);
            const end = new Date(Math.max(task.startedAt.getTime() + o.durationMs, clock));
            const r = await completeTask(db, { taskId: task.id, attempt: task.attempt, nodeId, outcome: o.outcome, error: o.outcome === 'success' ? null : 'boom' }, end);
            if (r.applied) completed++;
          }),
        );
      }
    };

    for (let round = 0; round < 8 && (await open()) > 0; round++) {
      await Promise.all(clients.map((db, i) => loop(db, `node-${i}`)));
      // leases of abandoned tasks expire: the reaper turns them into failed attempts
      clock += 700_000;
      await reclaimExpiredLeases(t.db, { limit: 1000 }, tick());
    }
    expect(await open()).toBe(0);
    // at least 48 one-step tasks and 3 per DAG run (18) less the abandoned ones; more with retries
    expect(completed).toBeGreaterThan(60);
    expect(abandoned).toBeGreaterThan(0);

    // the mix really covers every counter and two calendar days
    const stored = await t.db.handlerStatsDaily.findMany({ orderBy: [{ statDate: 'asc' }, { handler: 'asc' }] });
    const dates = new Set(stored.map((s) => s.statDate.toISOString().slice(0, 10)));
    expect(dates.size).toBeGreaterThanOrEqual(2);
    const sum = (f: (s: (typeof stored)[number]) => number) => stored.reduce((a, s) => a + f(s), 0);
    expect(sum((s) => s.success)).toBeGreaterThan(0);
    expect(sum((s) => s.failure)).toBeGreaterThan(0);
    expect(sum((s) => s.timeout)).toBeGreaterThan(0);
    expect(sum((s) => s.deadLetter)).toBeGreaterThan(0);
    expect(sum((s) => s.latenessCount)).toBeGreaterThan(0);
    for (const s of stored) {
      expect(s.durationBuckets).toHaveLength(DURATION_BUCKET_COUNT);
      expect(s.durationBuckets.reduce((a, b) => a + b, 0)).toBe(s.success + s.failure + s.timeout);
    }
    const finishedLogs = (await t.pool.query(`SELECT count(*)::int AS n FROM task_logs WHERE from_status = 'running' AND to_status IN ('success', 'failed', 'timeout')`)).rows[0].n;
    expect(sum((s) => s.success + s.failure + s.timeout)).toBe(finishedLogs);

    const from = [...dates][0];
    const to = [...dates].at(-1)!;
    const r = await rebuildStats(t.db, { from, to });
    expect(r.drift).toEqual([]);
    const merged = mergeStatsSlots(stored); // one per (date, handler), its slots summed
    expect(r.computedRows).toBe(merged.length);
    expect(r.storedRows).toBe(merged.length);
    expect(r.timeZone).toBe('UTC');

    // the read model agrees with the raw rows and estimates percentiles inside the observed range
    const daily = await getDailyStats(t.db, { from, to });
    expect(daily.days).toHaveLength(merged.length);
    for (const d of daily.days) {
      if (d.p50Ms !== null) {
        expect(d.p50Ms).toBeGreaterThanOrEqual(0);
        expect(d.p95Ms!).toBeGreaterThanOrEqual(d.p50Ms);
        expect(d.p95Ms!).toBeLessThanOrEqual(d.maxDurationMs);
      }
    }
    const totals = handlerTotals(daily.days);
    // stat.ok only fails through abandoned attempts (lease expiry counts as a failed attempt)
    expect(totals.find((x) => x.handler === 'stat.ok')!.successRate).toBeGreaterThan(0.85);
    expect(totals.find((x) => x.handler === 'stat.fail')!.successRate).toBe(0);
    const slow = totals.find((x) => x.handler === 'stat.slow')!;
    expect(slow.p50Ms!).toBeGreaterThanOrEqual(5000);
  });

  it('detects tampering, and --apply repairs it', async () => {
    const rows = await t.db.handlerStatsDaily.findMany({ orderBy: [{ statDate: 'asc' }, { handler: 'asc' }] });
    const from = rows[0].statDate.toISOString().slice(0, 10);
    const to = rows.at(-1)!.statDate.toISOString().slice(0, 10);
    const victim = rows.find((r) => r.handler === 'stat.flaky')!;
    await t.pool.query(`UPDATE handler_stats_daily SET success = success + 1, duration_buckets[2] = duration_buckets[2] + 5 WHERE stat_date = $1 AND handler = $2`, [victim.statDate, victim.handler]);
    await t.pool.query(`DELETE FROM handler_stats_daily WHERE handler = 'stat.fail' AND stat_date = $1`, [rows.find((r) => r.handler === 'stat.fail')!.statDate]);
    await t.pool.query(`INSERT INTO handler_stats_daily (stat_date, handler, success) VALUES ($1, 'ghost', 3)`, [rows[0].statDate]);

    const check = await rebuildStats(t.db, { from, to });
    const byKey = Object.fromEntries(check.drift.map((d) => [`${d.handler}`, d.fields]));
    expect(byKey['stat.flaky']).toEqual(['success', 'durationBuckets']);
    expect(byKey['stat.fail']).toEqual(['row']);
    expect(byKey.ghost).toEqual(['row']);
    expect(check.applied).toBe(false);

    // the system job's check sees the same and raises an alarm
    const sys = await checkStats(t.db, { days: 3, jobId: null }, new Date(`${to}T12:00:00Z`));
    expect(sys.drift.length).toBeGreaterThan(0);
    const alarm = await t.db.alarm.findFirstOrThrow({ where: { type: 'failure' } });
    expect(alarm.channel).toBe('log');
    expect((alarm.content as any).message).toMatch(/drifted/);

    const fixed = await rebuildStats(t.db, { from, to, apply: true });
    expect(fixed.applied).toBe(true);
    expect((await rebuildStats(t.db, { from, to })).drift).toEqual([]);
    expect(await t.db.handlerStatsDaily.count({ where: { handler: 'ghost' } })).toBe(0);
    // recomputation is a pure function of the detail rows
    expect(await computeStatsFromDetail(t.db, { from, to })).toEqual(await computeStatsFromDetail(clients[0], { from, to }));
  });

  it('live counting and the rebuild agree on every outcome: success, failure, retry, timeout, lease expiry, dead, cancel, skipped', async () => {
    // One day of its own (2026-04-10 UTC), each outcome once, in a fixed order on an injected clock.
    let clock = Date.parse('2026-04-10T08:00:00.000Z');
    const at = (stepMs = 1000) => new Date((clock += stepMs));
    const noBackoff = { baseSeconds: 0, factor: 1, maxSeconds: 0, jitter: 0 };
    const job = (key: string, body: Record<string, unknown>) =>
      createJob(t.db, { key, name: key, schedule: { kind: 'manual' }, policy: { backoff: noBackoff, timeoutSeconds: 600 }, ...body } as never, SYSTEM_ACTOR, at());
    const ok = await job('mix.ok', { handler: 'mix.ok' });
    const retried = await job('mix.retried', { handler: 'mix.fail', policy: { maxRetries: 2, backoff: noBackoff, timeoutSeconds: 600 } });
    const slow = await job('mix.slow', { handler: 'mix.slow' });
    const cancel = await job('mix.cancel', { handler: 'mix.cancel' });
    const dag = await job('mix.dag', {
      steps: [{ key: 'a', handler: 'mix.fail' }, { key: 'b', handler: 'mix.ok' }, { key: 'c', handler: 'mix.ok' }],
      edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c', type: 'on_failure' }],
    });
    const claimOne = async (handler: string) => {
      const [task] = await claimTasks(t.db, { nodeId: 'mix-node', handlers: [handler], group: 'default', labels: {}, limit: 1, leaseSeconds: 60 }, at());
      expect(task, `a ${handler} task to claim`).toBeDefined();
      return task!;
    };
    const finish = async (handler: string, outcome: 'success' | 'failed' | 'timeout', durationMs: number) => {
      const task = await claimOne(handler);
      const r = await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: 'mix-node', outcome, error: outcome === 'success' ? null : 'boom' }, at(durationMs));
      expect(r.applied).toBe(true);
      return r;
    };
    const trigger = async (jobId: string) => {
      const r = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date(clock - 1500) }, at());
      expect(r.outcome).toBe('started');
      return r.run.id;
    };

    await trigger(ok.id);
    await finish('mix.ok', 'success', 40); // the one-statement path
    await trigger(retried.id);
    await finish('mix.fail', 'failed', 5); // retried
    await finish('mix.fail', 'timeout', 700); // retried again
    const lost = await claimOne('mix.fail'); // the third attempt's worker dies: the lease expires
    clock += 120_000;
    expect((await reclaimExpiredLeases(t.db, { limit: 10 }, at())).map((x) => [x.taskId, x.status])).toEqual([[lost.id, 'dead']]); // failed, then dead
    await trigger(slow.id);
    await finish('mix.slow', 'timeout', 400_000); // no retries: dead, in the last duration bucket
    const cancelledRun = await trigger(cancel.id);
    const running = await claimOne('mix.cancel');
    await cancelRun(t.db, cancelledRun, 'test', at());
    const late = await completeTask(t.db, { taskId: running.id, attempt: 1, nodeId: 'mix-node', outcome: 'success' }, at(30));
    expect(late.applied).toBe(false); // a cancelled attempt is not counted
    await cancelRun(t.db, await trigger(cancel.id), 'test', at()); // cancelled before a claim
    await trigger(dag.id);
    await finish('mix.fail', 'failed', 20); // a: dead at once; b skipped (hard), c runs (on_failure)
    await finish('mix.ok', 'success', 60); // c, through the general path (a DAG task)
    const statuses = await t.db.task.findMany({ where: { jobId: dag.id }, orderBy: { stepKey: 'asc' }, select: { stepKey: true, status: true } });
    expect(statuses).toEqual([{ stepKey: 'a', status: 'dead' }, { stepKey: 'b', status: 'skipped' }, { stepKey: 'c', status: 'success' }]);

    const day = '2026-04-10';
    const r = await rebuildStats(t.db, { from: day, to: day, timeZone: 'UTC' });
    expect(r.drift).toEqual([]);
    const rows = await computeStatsFromDetail(t.db, { from: day, to: day, timeZone: 'UTC' });
    const row = (h: string) => rows.find((x) => x.handler === h);
    expect(row('mix.ok')).toMatchObject({ success: 2, failure: 0, timeout: 0, deadLetter: 0, totalDurationMs: 100, maxDurationMs: 60, latenessCount: 2 }); // both first attempts
    // 3 attempts of the retried task (failed, timeout, lease expiry = failed) + the DAG's step a
    expect(row('mix.fail')).toMatchObject({ success: 0, failure: 3, timeout: 1, deadLetter: 2 });
    expect(row('mix.slow')).toMatchObject({ timeout: 1, deadLetter: 1, maxDurationMs: 400_000 });
    expect(row('mix.slow')!.durationBuckets.at(-1)).toBe(1);
    expect(row('mix.cancel')).toBeUndefined(); // neither cancel counts
    for (const x of rows) expect(x.durationBuckets.reduce((a, b) => a + b, 0)).toBe(x.success + x.failure + x.timeout);
  });
});
