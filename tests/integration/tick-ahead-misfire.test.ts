/**
 * A run created ahead of its slot (look-ahead, docs/on-time.md) that no worker started before its
 * slot passed by more than the misfire grace (the whole stack was down) is a missed slot like the
 * others: the tick withdraws it and the job's misfire policy decides its slot (docs/on-time.md
 * "Look-ahead firing", row "misfire"; README "Scheduling semantics"). Real PostgreSQL, injected
 * clock: the outage is the clock moving on between two ticks.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { BEFORE_SLOT_ERROR, claimTasks, retryRun } from '../../lib/engine/index.ts';
import { backfillRuns } from '../../lib/engine/backfill-runs.ts';
import { backfillJob, previewBackfill } from '../../lib/jobs/backfill-job.ts';
import type { Actor } from '../../lib/auth/actor.ts';

const OPS: Actor = { kind: 'user', id: 'u-ops', name: 'ops@example.com', role: 'operator' };
import { runTick } from '../../lib/engine/tick/run-tick.ts';
import { rewindMissedAheadJobs } from '../../lib/engine/sql/ahead-runs.ts';
import { withdrawMissedAheadRuns } from '../../lib/engine/cancel-ahead-runs.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { createWorker } from '../../worker/create-worker.ts';
import { insertJob, testWorkerConfig, useWorkers, waitFor } from './worker-fixtures.ts';

const t = useTestDatabase();
const workers = useWorkers();
const LOOKAHEAD = 3000;
const GRACE = 60_000;
const ms = (d: Date, n: number) => new Date(d.getTime() + n);

/** Each test owns the jobs it creates: everything active before it is paused. */
beforeEach(async () => {
  await t.pool.query(`UPDATE jobs SET status = 'paused' WHERE status = 'active'`);
});

function tick(now: Date) {
  return runTick(t.db, { limit: 100, lookaheadMs: LOOKAHEAD, misfireGraceMs: GRACE }, now);
}

async function runsOf(jobId: string) {
  return t.db.run.findMany({ where: { jobId }, orderBy: [{ scheduledFor: 'asc' }, { createdAt: 'asc' }] });
}

/** Runs that will (or did) execute: neither cancelled nor skipped. */
const live = (r: { status: string }) => r.status !== 'cancelled' && r.status !== 'skipped';

/** The tasks of `jobId` a worker that comes back at `now` claims (other tests' leftovers ignored). */
async function claimOf(jobId: string, now: Date) {
  const tasks = await claimTasks(t.db, { nodeId: `node-${jobId.slice(0, 8)}`, handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 500, leaseSeconds: 30 }, now);
  return tasks.filter((x) => x.jobId.toLowerCase() === jobId.toLowerCase());
}

/**
 * The tester's repro: `*\/5 * * * * *`, the run of slot S created ahead 1.5 s before it, then the
 * stack down until S + 83.7 s (slots S+5 s … S+80 s missed too).
 */
const S = new Date('2026-12-05T14:08:45.000Z');
const RESTART = ms(S, 83_700);

async function outage(policy: 'skip' | 'fire_once' | 'fire_all', opts: { maxCatchup?: number; restart?: Date; cron?: string; slot?: Date } = {}) {
  const slot = opts.slot ?? S;
  const id = await insertJob(t.db, {
    key: `ahead-misfire-${policy}-${Math.random().toString(36).slice(2, 8)}`,
    cron: opts.cron ?? '*/5 * * * * *',
    misfirePolicy: policy,
    misfireMaxCatchup: opts.maxCatchup ?? 10,
    blockStrategy: 'serial_execution',
    nextRunAt: slot,
  });
  const before = await tick(ms(slot, -1500));
  expect(before.ahead).toBe(1);
  const [ahead] = await runsOf(id);
  expect(ahead).toMatchObject({ scheduledFor: slot, status: 'pending', trigger: 'schedule' });
  const r = await tick(opts.restart ?? RESTART);
  return { id, aheadRunId: ahead.id, result: r, runs: await runsOf(id) };
}

function expectWithdrawn(runs: Awaited<ReturnType<typeof runsOf>>, aheadRunId: string) {
  const run = runs.find((x) => x.id === aheadRunId)!;
  expect(run.status).toBe('cancelled');
  expect(run.error).toMatch(new RegExp(`^${BEFORE_SLOT_ERROR.missed}created ahead of its slot due 2026-12-05T14:08:45.000Z, not started 84 s later`));
}

/** Every slot from S to S+80 s has exactly one run that is not cancelled. */
function expectOneRecordPerSlot(runs: Awaited<ReturnType<typeof runsOf>>) {
  for (let k = 0; k <= 16; k++) {
    const slot = ms(S, k * 5000).getTime();
    expect(runs.filter((x) => x.scheduledFor.getTime() === slot && x.status !== 'cancelled'), `slot S+${k * 5}s`).toHaveLength(1);
  }
}

describe('a run created ahead whose slot was missed by more than the grace (outage)', () => {
  it('skip: withdrawn, its slot recorded as a misfire with the others, nothing runs', async () => {
    const { id, aheadRunId, result, runs } = await outage('skip');
    expect(result.misfires).toBe(1);
    expectWithdrawn(runs, aheadRunId);
    expectOneRecordPerSlot(runs);
    const upToNow = runs.filter((x) => x.scheduledFor <= RESTART && x.status !== 'cancelled');
    expect(upToNow).toHaveLength(17);
    for (const r of upToNow) expect(r).toMatchObject({ status: 'skipped', reason: 'misfire' });
    // The next slot (S+85 s, due within the look-ahead window) is created ahead as usual.
    expect(runs.filter((x) => x.scheduledFor > RESTART).map((x) => x.scheduledFor)).toEqual([ms(S, 85_000)]);
    // A worker that comes back now finds nothing to run.
    expect(await claimOf(id, ms(RESTART, 100))).toHaveLength(0);
  });

  it('fire_once + serial_execution: one catch-up run in total (the newest missed slot), not the stale run as well', async () => {
    const { id, aheadRunId, runs } = await outage('fire_once');
    expectWithdrawn(runs, aheadRunId);
    expectOneRecordPerSlot(runs);
    const upToNow = runs.filter((x) => x.scheduledFor <= RESTART && x.status !== 'cancelled');
    expect(upToNow.filter(live).map((x) => x.scheduledFor)).toEqual([ms(S, 80_000)]);
    expect(upToNow.filter((x) => x.status === 'skipped')).toHaveLength(16);
    const claimed = await claimOf(id, ms(RESTART, 100));
    expect(claimed.map((x) => x.scheduledFor)).toEqual([ms(S, 80_000)]);
  });

  it('fire_all (misfireMaxCatchup 3): the newest 3 missed slots run, the stale run\'s slot is recorded with the older ones', async () => {
    const { id, aheadRunId, runs } = await outage('fire_all', { maxCatchup: 3 });
    expectWithdrawn(runs, aheadRunId);
    expectOneRecordPerSlot(runs);
    const upToNow = runs.filter((x) => x.scheduledFor <= RESTART && x.status !== 'cancelled');
    expect(upToNow.filter(live).map((x) => x.scheduledFor)).toEqual([ms(S, 70_000), ms(S, 75_000), ms(S, 80_000)]);
    expect(upToNow.filter((x) => x.status === 'skipped').map((x) => x.scheduledFor)[0]).toEqual(S);
    // Queued one behind the other: only the oldest catch-up starts now.
    expect((await claimOf(id, ms(RESTART, 100))).map((x) => x.scheduledFor)).toEqual([ms(S, 70_000)]);
  });

  it('fire_all within misfireMaxCatchup: the stale slot fires once more as a new catch-up run, first in the queue', async () => {
    const { id, aheadRunId, runs } = await outage('fire_all', { maxCatchup: 20 });
    expectWithdrawn(runs, aheadRunId);
    expectOneRecordPerSlot(runs);
    const upToNow = runs.filter((x) => x.scheduledFor <= RESTART && x.status !== 'cancelled');
    expect(upToNow.every(live)).toBe(true);
    expect(upToNow).toHaveLength(17);
    expect((await claimOf(id, ms(RESTART, 100))).map((x) => x.scheduledFor)).toEqual([S]);
  });

  it('the job\'s own next slot due but not late: the stale slot makes the gap a misfire, as without look-ahead (skip records both)', async () => {
    const slot = new Date('2026-12-05T15:00:00.000Z');
    const restart = ms(slot, 62_000); // the next slot (+60 s) is 2 s late, the stale one 62 s
    const { id, aheadRunId, result, runs } = await outage('skip', { cron: '0 * * * * *', slot, restart });
    expect(result.misfires).toBe(1);
    expect(runs.find((x) => x.id === aheadRunId)!.status).toBe('cancelled');
    const upToNow = runs.filter((x) => x.scheduledFor <= restart && x.status !== 'cancelled');
    expect(upToNow.map((x) => [x.scheduledFor, x.status, x.reason])).toEqual([
      [slot, 'skipped', 'misfire'],
      [ms(slot, 60_000), 'skipped', 'misfire'],
    ]);
    expect(await claimOf(id, ms(restart, 100))).toHaveLength(0);
  });

  it('a long outage (10 min) with skip: one summarising record from the stale slot, nothing runs', async () => {
    const restart = ms(S, 600_000 + 700);
    const { id, aheadRunId, runs } = await outage('skip', { restart });
    expect(runs.find((x) => x.id === aheadRunId)!.status).toBe('cancelled');
    const upToNow = runs.filter((x) => x.scheduledFor <= restart && x.status !== 'cancelled');
    expect(upToNow).toHaveLength(1);
    expect(upToNow[0]).toMatchObject({ status: 'skipped', scheduledFor: S });
    expect(upToNow[0]!.reason).toMatch(/^misfire: 121 missed slots skipped from 2026-12-05T14:08:45.000Z to 2026-12-05T14:18:45.000Z/);
    expect(await claimOf(id, ms(restart, 100))).toHaveLength(0);
  });
});

describe('a run created ahead that no worker takes while the ticker goes on (discard_later records the later slots as blocked)', () => {
  // The workers are up and tick, but none runs the job (say its routing matches no worker): the run
  // created ahead of S stays pending, and each later slot is recorded as blocked behind it. Once S is
  // missed by the grace the tick withdraws that run and plans again from S: the slots decided
  // meanwhile keep their records. They used to meet the unique index there (23505), which rolled the
  // withdrawal back and moved the job past its due slot with no record, at every tick from then on.
  it.each(['skip', 'fire_once', 'fire_all'] as const)('%s: withdrawn once, and every slot keeps exactly one record, none lost on the ticks after', async (policy) => {
    const id = await insertJob(t.db, {
      key: `ahead-blocked-${policy}-${Math.random().toString(36).slice(2, 8)}`,
      cron: '*/5 * * * * *', misfirePolicy: policy, misfireMaxCatchup: 20, blockStrategy: 'discard_later', nextRunAt: S,
    });
    const end = ms(S, 90_000);
    const failed: number[] = [];
    for (let now = ms(S, -1500); now <= end; now = ms(now, 1000)) {
      const r = await tick(now);
      failed.push(r.failed);
    }
    expect(failed.every((n) => n === 0)).toBe(true);
    const runs = await runsOf(id);
    const stale = runs.find((x) => x.scheduledFor.getTime() === S.getTime() && x.status === 'cancelled');
    expect(stale?.error).toMatch(new RegExp(`^${BEFORE_SLOT_ERROR.missed}created ahead of its slot due 2026-12-05T14:08:45.000Z`));
    // every slot due by the last tick (S+89.5 s): S … S+85 s
    for (let k = 0; k <= 17; k++) {
      const slot = ms(S, k * 5000).getTime();
      expect(runs.filter((x) => x.scheduledFor.getTime() === slot && x.status !== 'cancelled'), `slot S+${k * 5}s`).toHaveLength(1);
    }
    // the slots decided while the stale run was active kept their "blocked" records
    const blocked = runs.filter((x) => x.status === 'skipped' && /still active/.test(x.reason ?? ''));
    expect(blocked.length).toBeGreaterThanOrEqual(11);
    // S itself is decided by the misfire policy: recorded (skip, fire_once: only the newest missed slot
    // runs) or fired once more (fire_all, within misfireMaxCatchup)
    const atS = runs.find((x) => x.scheduledFor.getTime() === S.getTime() && x.status !== 'cancelled')!;
    expect(atS.status).toBe(policy === 'fire_all' ? 'pending' : 'skipped');
    // only one run created ahead was ever withdrawn: no tick went back over the slots again
    expect(runs.filter((x) => x.status === 'cancelled')).toHaveLength(1);
  });
});

describe('a run created ahead whose slot is late by less than the grace', () => {
  it('still runs (as today); the slots after it fire normally, queued behind it', async () => {
    const restart = ms(S, 30_000);
    const { id, aheadRunId, result, runs } = await outage('skip', { restart });
    expect(result.misfires).toBe(0);
    const ahead = runs.find((x) => x.id === aheadRunId)!;
    expect(ahead.status).toBe('pending');
    expect(ahead.error).toBeNull();
    const upToNow = runs.filter((x) => x.scheduledFor <= restart);
    expect(upToNow.map((x) => x.scheduledFor)).toEqual([0, 5, 10, 15, 20, 25, 30].map((k) => ms(S, k * 1000)));
    expect(upToNow.every(live)).toBe(true);
    expect((await claimOf(id, ms(restart, 100))).map((x) => x.runId)).toEqual([aheadRunId]);
  });

  it('a run created ahead that a worker started is never withdrawn, however late the tick comes', async () => {
    const id = await insertJob(t.db, { key: 'ahead-misfire-started', cron: '*/5 * * * * *', misfirePolicy: 'skip', blockStrategy: 'serial_execution', nextRunAt: S });
    await tick(ms(S, -1500));
    const [ahead] = await runsOf(id);
    expect((await claimOf(id, ms(S, 10))).map((x) => x.runId)).toEqual([ahead.id]);
    await tick(RESTART);
    const run = (await runsOf(id)).find((x) => x.id === ahead.id)!;
    expect(run.status).not.toBe('cancelled');
    expect(run.error).toBeNull();
    const [task] = await t.db.task.findMany({ where: { runId: ahead.id } });
    expect(task!.status).toBe('running');
  });
});

describe('a run created ahead whose task a worker claimed ahead and held, then died (kill -9 before the slot)', () => {
  // The task is `running` and `held` (its start never recorded) by a node whose lease has expired:
  // the reaper would hand it back unstarted, but the tick comes first after a restart.
  /**
   * A `*\/5 s` serial_execution job whose run of slot S is created ahead, then claimed ahead and held
   * (start not recorded) by `nodeId` with a lease of `leaseSeconds`, 250 ms before the slot.
   */
  async function aheadRunHeldBy(key: string, policy: 'skip' | 'fire_once' | 'fire_all', nodeId: string, leaseSeconds: number) {
    const id = await insertJob(t.db, { key, cron: '*/5 * * * * *', misfirePolicy: policy, misfireMaxCatchup: 3, blockStrategy: 'serial_execution', nextRunAt: S });
    await tick(ms(S, -1500));
    const [ahead] = await runsOf(id);
    const held = await claimTasks(t.db, { nodeId, handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 500, leaseSeconds, aheadMs: 3000, startNow: 0 }, ms(S, -250));
    expect(held.filter((x) => x.runId === ahead.id)).toHaveLength(1);
    const [task] = await t.db.task.findMany({ where: { runId: ahead.id } });
    expect(task).toMatchObject({ status: 'running', held: true });
    return { id, ahead: ahead! };
  }

  async function heldByDeadWorker(policy: 'fire_once' | 'fire_all') {
    const { id, ahead } = await aheadRunHeldBy(`ahead-held-${policy}`, policy, 'node-killed', 10);
    const r = await tick(RESTART);
    return { id, ahead, result: r, runs: await runsOf(id) };
  }

  it('fire_once: the held run is withdrawn like an unstarted one, and the one catch-up runs, not blocked by it', async () => {
    const { id, ahead, runs } = await heldByDeadWorker('fire_once');
    expectWithdrawn(runs, ahead.id);
    expect((await t.db.task.findMany({ where: { runId: ahead.id } })).map((x) => x.status)).toEqual(['cancelled']);
    const upToNow = runs.filter((x) => x.scheduledFor <= RESTART && x.status !== 'cancelled');
    expect(upToNow.filter(live).map((x) => x.scheduledFor)).toEqual([ms(S, 80_000)]);
    expect(upToNow.filter((x) => x.reason?.startsWith('blocked'))).toEqual([]);
    expect((await claimOf(id, ms(RESTART, 100))).map((x) => x.scheduledFor)).toEqual([ms(S, 80_000)]);
  });

  it('the withdrawn run keeps no start: its slot is free (a backfill runs it) and it cannot be retried beside the catch-up', async () => {
    const { ahead: skipped } = await aheadRunHeldBy('ahead-held-start-skip', 'skip', 'node-killed-2', 10);
    const { ahead: caught } = await aheadRunHeldBy('ahead-held-start-all', 'fire_all', 'node-killed-3', 10);
    await tick(RESTART);
    for (const run of [skipped, caught]) {
      expect(await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({ status: 'cancelled', startedAt: null });
      expect((await t.db.task.findMany({ where: { runId: run.id } })).map((x) => x.startedAt)).toEqual([null]);
    }
    // skip recorded S as missed: an operator may still run it by a backfill
    const { runIds } = await backfillRuns(t.db, { jobId: skipped.jobId, slots: [S], actor: 'ops@example.com', from: S, to: S }, ms(RESTART, 1000));
    expect(runIds).toHaveLength(1);
    // fire_all ran S again as a catch-up: the withdrawn run is not retried beside it
    await expect(retryRun(t.db, caught.id, 'ops@example.com', ms(RESTART, 1000))).rejects.toMatchObject({ code: 'conflict' });
  });

  it('a backfill of its slot while the workers are away takes the slot: the stale run is withdrawn, the tick skips nothing of it later', async () => {
    const H = new Date('2026-12-05T20:00:00.000Z');
    const id = await insertJob(t.db, { key: 'ahead-backfilled-outage', cron: '0 * * * *', misfirePolicy: 'skip', nextRunAt: H });
    await tick(ms(H, -2000));
    const [ahead] = await runsOf(id);
    const range = { from: H.toISOString(), to: H.toISOString() };
    const preview = await previewBackfill(t.db, id, range, OPS, ms(H, 600_000));
    expect(preview.slots).toEqual([{ scheduledFor: H.toISOString(), action: 'create' }]);
    const r = await backfillJob(t.db, id, range, OPS, ms(H, 600_000));
    expect(r.runIds).toHaveLength(1);
    expect(await t.db.run.findUniqueOrThrow({ where: { id: ahead!.id } })).toMatchObject({ status: 'cancelled', startedAt: null });
    expect((await t.db.run.findUniqueOrThrow({ where: { id: ahead!.id } })).error).toMatch(/not started 600 s later; the slot is backfilled by ops@example.com$/);
    // the workers come back at H + 30 min: the tick decides the later slots, never H again
    await rewindMissedAheadJobs(t.db, { graceMs: GRACE }, ms(H, 1_800_000));
    await tick(ms(H, 1_800_000));
    expect((await runsOf(id)).filter((x) => x.scheduledFor.getTime() === H.getTime()).map((x) => [x.trigger, x.status]))
      .toEqual([['schedule', 'cancelled'], ['backfill', 'pending']]);
  });

  it('fire_all: its catch-ups run in order behind nothing stale', async () => {
    const { id, ahead, runs } = await heldByDeadWorker('fire_all');
    expectWithdrawn(runs, ahead.id);
    const upToNow = runs.filter((x) => x.scheduledFor <= RESTART && x.status !== 'cancelled');
    expect(upToNow.filter(live).map((x) => x.scheduledFor)).toEqual([ms(S, 70_000), ms(S, 75_000), ms(S, 80_000)]);
    expect(upToNow.filter((x) => x.reason?.startsWith('blocked'))).toEqual([]);
    expect((await claimOf(id, ms(RESTART, 100))).map((x) => x.scheduledFor)).toEqual([ms(S, 70_000)]);
  });

  it('serial_execution: the held run is withdrawn once its slot is missed by the grace, though the slots after it were fired and queued behind it', async () => {
    const { id, ahead } = await aheadRunHeldBy('ahead-held-serial', 'skip', 'node-killed-2', 10);
    // the ticker stays up: each slot is fired at its instant and queued behind the held run
    for (let k = 1; k <= 11; k++) await tick(ms(S, k * 5000 + 10));
    const before = (await runsOf(id)).filter((x) => x.id !== ahead.id);
    expect(before.map((x) => x.scheduledFor)).toEqual(Array.from({ length: 11 }, (_, k) => ms(S, (k + 1) * 5000)));
    expect((await runsOf(id)).find((x) => x.id === ahead.id)!.status).toBe('pending');
    // S + 65 s: the held run's slot is late by more than the grace
    await tick(ms(S, 65_010));
    const after = await runsOf(id);
    expect(after.find((x) => x.id === ahead.id)).toMatchObject({ status: 'cancelled', error: expect.stringMatching(new RegExp(`^${BEFORE_SLOT_ERROR.missed}`)) });
    // the slots fired after it keep their one run each, none cancelled, and the next one in the queue may start
    const others = after.filter((x) => x.id !== ahead.id);
    expect(others.filter((x) => x.status === 'cancelled')).toEqual([]);
    expect(others.map((x) => x.scheduledFor)).toEqual(Array.from({ length: 13 }, (_, k) => ms(S, (k + 1) * 5000)));
    expect((await claimOf(id, ms(S, 65_100))).map((x) => x.scheduledFor)).toEqual([ms(S, 5000)]);
  });

  it('a held task whose worker is alive (lease current) is left to it', async () => {
    const { id, ahead } = await aheadRunHeldBy('ahead-held-alive', 'skip', 'node-alive', 300);
    await tick(RESTART);
    expect((await runsOf(id)).find((x) => x.id === ahead.id)!.status).not.toBe('cancelled');
  });
});

describe('a run created ahead whose job is not due when the stack comes back (a ticker\'s first pass: rewindMissedAheadJobs)', () => {
  const H = new Date('2026-12-05T14:00:00.000Z');
  const BACK = new Date('2026-12-05T14:30:00.000Z');

  it('an hourly job down from 13:59:58 to 14:30 (skip): its 14:00 run is withdrawn and 14:00 recorded as a misfire, not run 30 min late', async () => {
    const id = await insertJob(t.db, { key: 'ahead-hourly-skip', cron: '0 * * * *', misfirePolicy: 'skip', blockStrategy: 'serial_execution', nextRunAt: H });
    await tick(ms(H, -2000));
    const [ahead] = await runsOf(id);
    expect(ahead).toMatchObject({ scheduledFor: H, status: 'pending' });
    expect((await t.db.job.findUniqueOrThrow({ where: { id } })).nextRunAt).toEqual(ms(H, 3_600_000));
    // without the rewind the tick has nothing due at 14:30, and the 14:00 run would start now
    expect((await tick(BACK)).jobs).toBe(0);
    expect(await rewindMissedAheadJobs(t.db, { graceMs: GRACE }, BACK)).toEqual([id]);
    expect((await tick(BACK)).misfires).toBe(1);
    const runs = await runsOf(id);
    expect(runs.find((x) => x.id === ahead.id)).toMatchObject({ status: 'cancelled', error: expect.stringMatching(new RegExp(`^${BEFORE_SLOT_ERROR.missed}`)) });
    expect(runs.filter((x) => x.scheduledFor.getTime() === H.getTime() && x.status !== 'cancelled')).toMatchObject([{ status: 'skipped', reason: 'misfire' }]);
    expect((await t.db.job.findUniqueOrThrow({ where: { id } })).nextRunAt).toEqual(ms(H, 3_600_000));
    expect(await claimOf(id, ms(BACK, 100))).toHaveLength(0);
    // a second ticker starting later finds nothing to move back
    expect(await rewindMissedAheadJobs(t.db, { graceMs: GRACE }, ms(BACK, 1000))).toEqual([]);
  });

  it('a once job (paused by the system after its slot was fired ahead), fire_once: made active again, its one catch-up runs now', async () => {
    const id = await insertJob(t.db, { key: 'ahead-once', scheduleKind: 'once', runAt: H, misfirePolicy: 'fire_once', nextRunAt: H });
    await tick(ms(H, -2000));
    const [ahead] = await runsOf(id);
    expect((await t.db.job.findUniqueOrThrow({ where: { id } })).status).toBe('paused');
    expect(await rewindMissedAheadJobs(t.db, { graceMs: GRACE }, BACK)).toEqual([id]);
    await tick(BACK);
    const runs = await runsOf(id);
    expect(runs.find((x) => x.id === ahead.id)!.status).toBe('cancelled');
    expect(runs.filter(live).map((x) => x.scheduledFor)).toEqual([H]);
    expect((await t.db.job.findUniqueOrThrow({ where: { id } })).status).toBe('paused');
    expect((await claimOf(id, ms(BACK, 100))).map((x) => x.scheduledFor)).toEqual([H]);
  });

  it('leaves alone a run late by less than the grace, a job an operator paused, and a run a worker started', async () => {
    const late = await insertJob(t.db, { key: 'ahead-within-grace', cron: '0 * * * *', misfirePolicy: 'skip', nextRunAt: H });
    const paused = await insertJob(t.db, { key: 'ahead-op-paused', cron: '0 * * * *', misfirePolicy: 'skip', nextRunAt: H });
    await tick(ms(H, -2000));
    await t.pool.query(`UPDATE jobs SET status = 'paused', updated_by = 'alice' WHERE id = $1`, [paused]);
    expect(await rewindMissedAheadJobs(t.db, { graceMs: GRACE }, ms(H, 30_000))).toEqual([]);
    const atBack = await rewindMissedAheadJobs(t.db, { graceMs: GRACE }, BACK);
    expect([atBack.includes(late), atBack.includes(paused)]).toEqual([true, false]);
    const started = await insertJob(t.db, { key: 'ahead-started', cron: '0 * * * *', misfirePolicy: 'skip', nextRunAt: ms(H, 3_600_000) });
    await tick(ms(H, 3_600_000 - 2000));
    expect(await claimOf(started, ms(H, 3_600_010))).toHaveLength(1);
    expect((await rewindMissedAheadJobs(t.db, { graceMs: GRACE }, ms(BACK, 3_600_000))).includes(started)).toBe(false);
  });
});

describe('a worker that claims but does not tick (TICKFLOW_ROLES=claim), before its first claim', () => {
  const H = new Date('2026-12-05T16:00:00.000Z');
  const BACK = new Date('2026-12-05T16:30:00.000Z');

  it('withdraws the runs created ahead of a missed slot and makes their jobs due at it; fires nothing; a tick then applies the policy', async () => {
    const hourly = await insertJob(t.db, { key: 'claim-only-hourly', cron: '0 * * * *', misfirePolicy: 'skip', nextRunAt: H });
    const fireOnce = await insertJob(t.db, { key: 'claim-only-fire-once', cron: '0 * * * *', misfirePolicy: 'fire_once', nextRunAt: H });
    const paused = await insertJob(t.db, { key: 'claim-only-op-paused', cron: '0 * * * *', misfirePolicy: 'skip', nextRunAt: H });
    await tick(ms(H, -2000));
    await t.pool.query(`UPDATE jobs SET status = 'paused', updated_by = 'alice' WHERE id = $1`, [paused]);
    const ahead = new Map((await t.db.run.findMany({ where: { jobId: { in: [hourly, fireOnce, paused] } } })).map((r) => [r.jobId.toLowerCase(), r.id]));
    expect(ahead.size).toBe(3);
    // Late by less than the grace: nothing to withdraw.
    expect(await withdrawMissedAheadRuns(t.db, { graceMs: GRACE, actor: 'scheduler' }, ms(H, 30_000))).toEqual([]);

    const withdrawn = await withdrawMissedAheadRuns(t.db, { graceMs: GRACE, actor: 'scheduler' }, BACK);
    expect(withdrawn.sort()).toEqual([ahead.get(hourly.toLowerCase())!, ahead.get(fireOnce.toLowerCase())!].sort());
    for (const id of [hourly, fireOnce]) {
      const [run] = await runsOf(id);
      expect(run).toMatchObject({ status: 'cancelled', startedAt: null });
      expect(run!.error).toMatch(new RegExp(`^${BEFORE_SLOT_ERROR.missed}created ahead of its slot due 2026-12-05T16:00:00.000Z, not started 1800 s later`));
      expect((await t.db.job.findUniqueOrThrow({ where: { id } })).nextRunAt).toEqual(H);
      expect(await claimOf(id, ms(BACK, 10))).toEqual([]);
    }
    // A job an operator paused is left alone (its run, whose slot has come, starts as before).
    expect((await runsOf(paused)).map((r) => r.status)).toEqual(['pending']);
    // The tick decides the slots: skip records 16:00, fire_once runs one catch-up.
    await tick(ms(BACK, 100));
    expect((await runsOf(hourly)).map((r) => [r.scheduledFor.toISOString().slice(11, 16), r.status])).toEqual([['16:00', 'cancelled'], ['16:00', 'skipped']]);
    expect((await runsOf(fireOnce)).map((r) => [r.scheduledFor.toISOString().slice(11, 16), r.status])).toEqual([['16:00', 'cancelled'], ['16:00', 'pending']]);
  });

  it('waits for a job another transaction holds (a ticker deciding it), then decides it as it finds it', async () => {
    const id = await insertJob(t.db, { key: 'claim-only-held', cron: '0 * * * *', misfirePolicy: 'skip', nextRunAt: ms(H, 7_200_000) });
    await tick(ms(H, 7_200_000 - 2000));
    const waiting = async () => (await t.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    )).rows[0].n as number;
    const holder = await t.pool.connect();
    let withdrawing: Promise<string[]> | undefined;
    let finished = false;
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT id FROM jobs WHERE id = $1 FOR UPDATE`, [id]);
      withdrawing = withdrawMissedAheadRuns(t.db, { graceMs: GRACE, actor: 'scheduler' }, ms(BACK, 7_200_000)).finally(() => { finished = true; });
      // skipping the job would let this worker's claims begin before the holder's tick committed
      await expect.poll(waiting, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(finished).toBe(false);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await withdrawing!).toHaveLength(1);
    expect(await withdrawMissedAheadRuns(t.db, { graceMs: GRACE, actor: 'scheduler' }, ms(BACK, 7_200_000))).toEqual([]);
  });

  it('a job an operator pauses between the search and the lock is left alone', async () => {
    const at = ms(H, 10_800_000);
    const id = await insertJob(t.db, { key: 'claim-only-paused-meanwhile', cron: '0 * * * *', misfirePolicy: 'skip', nextRunAt: at });
    await tick(ms(at, -2000));
    let paused = false;
    // the operator's pause commits right after the search answered
    const db = new Proxy(t.db, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop !== '$queryRawUnsafe') return typeof value === 'function' ? value.bind(target) : value;
        return async (sql: string, ...args: unknown[]) => {
          const rows = await target.$queryRawUnsafe(sql, ...args);
          if (!paused && sql.includes('jobs-with-missed-ahead-runs')) {
            paused = true;
            await t.pool.query(`UPDATE jobs SET status = 'paused', updated_by = 'alice' WHERE id = $1`, [id]);
          }
          return rows;
        };
      },
    });
    expect(await withdrawMissedAheadRuns(db, { graceMs: GRACE, actor: 'scheduler' }, ms(at, 1_800_000))).toEqual([]);
    expect(paused).toBe(true);
    expect((await runsOf(id)).map((r) => r.status)).toEqual(['pending']);
  });

  it('a claim-only worker started after the outage never starts the stale run', async () => {
    const at = ms(H, 14_400_000);
    const id = await insertJob(t.db, { key: 'claim-only-worker', cron: '0 * * * *', misfirePolicy: 'skip', nextRunAt: at });
    await tick(ms(at, -2000));
    const [ahead] = await runsOf(id);
    const t0 = Date.now();
    const w = createWorker({
      config: testWorkerConfig(t.url, { roles: ['claim'], lookaheadMs: LOOKAHEAD, misfireGraceMs: GRACE, pollMs: 50 }),
      clock: () => new Date(ms(at, 1_800_000).getTime() + (Date.now() - t0)),
    });
    workers.push(w);
    await w.start();
    // start() resolves after the withdrawal, before the first claim
    const r = await t.db.run.findUniqueOrThrow({ where: { id: ahead!.id } });
    const [task] = await t.db.task.findMany({ where: { runId: ahead!.id } });
    expect([r.status, task!.startedAt]).toEqual(['cancelled', null]);
    expect((await t.db.job.findUniqueOrThrow({ where: { id } })).nextRunAt).toEqual(at);
  });
});

describe('a worker that ticks and claims, started after the outage', () => {
  /** The stack comes back at `at`: a worker whose clock moves on in real time from there, started. */
  async function startWorkerAt(at: Date): Promise<void> {
    const t0 = Date.now();
    const w = createWorker({
      config: testWorkerConfig(t.url, { lookaheadMs: LOOKAHEAD, misfireGraceMs: GRACE, pollMs: 50, tickMs: 200 }),
      clock: () => new Date(at.getTime() + (Date.now() - t0)),
    });
    workers.push(w);
    await w.start();
  }

  it('ticks before its first claim: the run created ahead of a missed slot is withdrawn, never started', async () => {
    const id = await insertJob(t.db, { key: 'ahead-misfire-restart', cron: '*/5 * * * * *', misfirePolicy: 'skip', blockStrategy: 'serial_execution', nextRunAt: S });
    await tick(ms(S, -1500));
    const [ahead] = await runsOf(id);
    expect(ahead).toMatchObject({ scheduledFor: S, status: 'pending' });
    // Ticker.catchUp runs before the claimer starts. In-process the ticker's first pass also wins
    // the race without it (this test is a guard on the outcome, not a proof of the ordering).
    await startWorkerAt(RESTART);
    // Settled: the run either withdrawn or taken by a claim.
    const run = await waitFor(async () => {
      const r = await t.db.run.findUniqueOrThrow({ where: { id: ahead.id } });
      const [task] = await t.db.task.findMany({ where: { runId: ahead.id } });
      return r.status !== 'pending' || task!.status !== 'pending' ? { r, task: task! } : null;
    }, 10_000, 'the run created ahead withdrawn or claimed');
    expect(run.r.status).toBe('cancelled');
    expect(run.task.startedAt).toBeNull();
    expect((await runsOf(id)).filter((x) => x.scheduledFor <= RESTART && x.status === 'skipped')).toHaveLength(17);
  });

  it('an hourly job that is not due at the restart: its run created ahead of the missed slot is withdrawn before the first claim (catchUp)', async () => {
    const H = new Date('2026-12-05T14:00:00.000Z');
    const BACK = new Date('2026-12-05T14:30:00.000Z');
    const id = await insertJob(t.db, { key: 'ahead-hourly-restart', cron: '0 * * * *', misfirePolicy: 'skip', blockStrategy: 'serial_execution', nextRunAt: H });
    await tick(ms(H, -2000));
    const [ahead] = await runsOf(id);
    await startWorkerAt(BACK);
    // the first claim comes after catchUp: the run is already withdrawn, never started
    const r = await t.db.run.findUniqueOrThrow({ where: { id: ahead.id } });
    const [task] = await t.db.task.findMany({ where: { runId: ahead.id } });
    expect([r.status, task!.startedAt]).toEqual(['cancelled', null]);
    expect((await runsOf(id)).filter((x) => x.scheduledFor.getTime() === H.getTime() && x.status === 'skipped')).toHaveLength(1);
  });
});

describe('a catch-up that meets a job another tick holds (another worker\'s tick, or this worker\'s own loop, in flight)', () => {
  /** Holds `jobId`'s row in a transaction of its own, as a tick in flight does; `release` commits it. */
  async function holdJob(jobId: string) {
    const holder = await t.pool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM jobs WHERE id = $1 FOR UPDATE', [jobId]);
    let done = false;
    return {
      client: holder,
      release: async () => {
        if (done) return;
        done = true;
        await holder.query('COMMIT');
        holder.release();
      },
    };
  }
  const waitingForLocks = async () => (await t.pool.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  )).rows[0].n as number;

  it('waits for the job instead of passing it by, so that the claims after the catch-up never start the run created ahead of the missed slot', async () => {
    const id = await insertJob(t.db, { key: 'ahead-catchup-held', cron: '*/5 * * * * *', misfirePolicy: 'skip', blockStrategy: 'serial_execution', nextRunAt: S });
    await tick(ms(S, -1500));
    const [ahead] = await runsOf(id);
    const held = await holdJob(id);
    try {
      // the loop's pass skips the held job at once: a catch-up like it would let the claims begin
      expect((await tick(RESTART)).jobs).toBe(0);
      let finished = false;
      const catchUp = runTick(t.db, { limit: 100, lookaheadMs: LOOKAHEAD, misfireGraceMs: GRACE, waitForLockedJobs: true }, RESTART)
        .finally(() => { finished = true; });
      await expect.poll(waitingForLocks, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(finished).toBe(false);
      await held.release();
      const r = await catchUp;
      expect([r.jobs, r.misfires]).toEqual([1, 1]);
    } finally {
      await held.release();
    }
    const runs = await runsOf(id);
    expect(runs.find((x) => x.id === ahead.id)).toMatchObject({ status: 'cancelled', error: expect.stringMatching(new RegExp(`^${BEFORE_SLOT_ERROR.missed}`)) });
    expect(runs.filter((x) => live(x) && x.scheduledFor <= RESTART)).toEqual([]);
    expect(await claimOf(id, ms(RESTART, 100))).toHaveLength(0);
  });

  it('a job the tick it waited for advanced is not returned, and the pass asks for another (its batch was picked full)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await insertJob(t.db, { key: `ahead-catchup-batch-${i}`, cron: '0 * * * *', misfirePolicy: 'skip', nextRunAt: ms(RESTART, -10_000 + i) }));
    const held = await holdJob(ids[0]!);
    let catchUp: ReturnType<typeof runTick> | undefined;
    try {
      catchUp = runTick(t.db, { limit: 3, misfireGraceMs: GRACE, waitForLockedJobs: true }, RESTART);
      await expect.poll(waitingForLocks, { timeout: 10_000 }).toBeGreaterThan(0);
      // the holder was a tick: it advanced its job before it committed
      await held.client.query('UPDATE jobs SET next_run_at = $2 WHERE id = $1', [ids[0], ms(RESTART, 3_600_000)]);
    } finally {
      await held.release();
    }
    const r = await catchUp!;
    expect([r.jobs, r.more]).toEqual([2, true]);
    const next = await t.db.job.findMany({ where: { id: { in: ids } }, select: { id: true, nextRunAt: true } });
    expect(next.every((j) => j.nextRunAt! > RESTART)).toBe(true);
  });

  it('the rewind of jobs not due waits for one another transaction holds, then moves it back', async () => {
    const H = new Date('2026-12-05T14:00:00.000Z');
    const BACK = new Date('2026-12-05T14:30:00.000Z');
    const id = await insertJob(t.db, { key: 'ahead-rewind-held', cron: '0 * * * *', misfirePolicy: 'skip', blockStrategy: 'serial_execution', nextRunAt: H });
    await tick(ms(H, -2000));
    const held = await holdJob(id);
    let finished = false;
    let rewind: Promise<string[]> | undefined;
    try {
      rewind = rewindMissedAheadJobs(t.db, { graceMs: GRACE }, BACK).finally(() => { finished = true; });
      await expect.poll(waitingForLocks, { timeout: 10_000 }).toBeGreaterThan(0);
      expect(finished).toBe(false);
    } finally {
      await held.release();
    }
    expect(await rewind!).toEqual([id]);
  });
});
