/**
 * Job domain operations against a real PostgreSQL: create / update / optimistic
 * lock / pause / resume / soft delete / restore / purge / versions / diff /
 * rollback / keyset pagination / bad input writes nothing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase, offerHandlers } from '../helpers/db.ts';
import type { Actor } from '../../lib/auth/actor.ts';
import {
  bulkJobs,
  bulkJobsEach,
  createJob,
  deleteJob,
  diffVersions,
  getJob,
  listJobs,
  listRecycleBin,
  listVersions,
  pauseJob,
  purgeJob,
  restoreJob,
  resumeJob,
  resumeRefusal,
  rollbackJob,
  saveDag,
  updateJob,
} from '../../lib/jobs/index.ts';
import { DomainError } from '../../lib/errors.ts';
import { listRuns } from '../../lib/runs/list-runs.ts';
import { getRun } from '../../lib/runs/get-run.ts';
import { listAlarms } from '../../lib/alarms/list-alarms.ts';

const alice: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000001', name: 'alice@example.com', role: 'operator' };
const bob: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000002', name: 'bob@example.com', role: 'operator' };
const viewer: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000003', name: 'vera@example.com', role: 'viewer' };
const NOW = new Date('2026-03-07T00:00:00Z');

async function rejects(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return e as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('jobs lifecycle', () => {
  const t = useTestDatabase();
  beforeAll(async () => {
    await offerHandlers(t, ['h', 'h2']);
  });

  it('a change that waited behind another (its clock read before the wait) never gets an older version time than the version before it', async () => {
    const job = await createJob(t.db, { key: 'versions.clock', name: 'v', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, alice, NOW);
    const later = new Date(NOW.getTime() + 5_000);
    await pauseJob(t.db, job.id, alice, {}, later);
    // a delete whose request started before the pause committed (its `now` is earlier) writes version 3
    await deleteJob(t.db, job.id, bob, {}, new Date(NOW.getTime() + 1_000));
    const { items } = await listVersions(t.db, job.id, alice);
    expect(items.map((v) => [v.version, v.changeType, v.createdAt])).toEqual([
      [3, 'delete', later.toISOString()],
      [2, 'pause', later.toISOString()],
      [1, 'create', NOW.toISOString()],
    ]);
  });

  it('PATCH payload / handler on a one-step job change its step (the shorthand), keeping the rest; on a DAG payload is the job-level payload and handler alone is refused', async () => {
    const job = await createJob(t.db, { key: 'shorthand.patch', name: 's', schedule: { kind: 'manual' }, handler: 'builtin.echo', payload: { x: 1 } }, alice, NOW);
    await t.db.jobStep.updateMany({ where: { jobId: job.id }, data: { timeoutSeconds: 42, config: { keep: true } } });
    const p1 = await updateJob(t.db, job.id, { expectedVersion: 1, payload: { x: 2 } }, alice, NOW);
    expect(p1.version).toBe(2);
    expect(p1.payload).toEqual({});
    expect(p1.steps).toEqual([expect.objectContaining({ key: 'main', handler: 'builtin.echo', payload: { x: 2 }, timeoutSeconds: 42, config: { keep: true } })]);
    const { triggerRun } = await import('../../lib/engine/index.ts');
    const { run } = await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: NOW }, NOW);
    expect((await t.db.task.findFirstOrThrow({ where: { runId: run.id } })).payload).toEqual({ x: 2 });

    const p2 = await updateJob(t.db, job.id, { expectedVersion: 2, handler: 'builtin.noop' }, alice, NOW);
    expect(p2.steps).toEqual([expect.objectContaining({ key: 'main', handler: 'builtin.noop', payload: { x: 2 }, timeoutSeconds: 42 })]);

    const dag = await createJob(t.db, {
      key: 'shorthand.dag', name: 'd', schedule: { kind: 'manual' },
      steps: [{ key: 'a', handler: 'h', payload: { s: 'a' } }, { key: 'b', handler: 'h' }], edges: [{ from: 'a', to: 'b' }],
    }, alice, NOW);
    const d1 = await updateJob(t.db, dag.id, { expectedVersion: 1, payload: { shared: 1 } }, alice, NOW);
    expect(d1.payload).toEqual({ shared: 1 });
    expect(d1.steps.map((s) => s.payload)).toEqual([{ s: 'a' }, {}]);
    // a handler alone would throw the graph away: refused at `handler`, nothing written
    const h = await rejects(updateJob(t.db, dag.id, { expectedVersion: 2, handler: 'builtin.noop' }, alice, NOW));
    expect(h.code).toBe('validation');
    expect(h.fields).toEqual({ handler: expect.stringMatching(/^This job has 2 steps: handler would replace them all with one step/) });
    const same = await getJob(t.db, dag.id, alice);
    expect([same.version, same.steps.map((s) => s.key)]).toEqual([2, ['a', 'b']]);
    // replacing the graph says so with steps
    const one = await updateJob(t.db, dag.id, { expectedVersion: 2, steps: [{ key: 'main', handler: 'builtin.noop' }], edges: [] }, alice, NOW);
    expect(one.steps.map((s) => s.key)).toEqual(['main']);
  });

  it('resume refuses a once job whose run-at has passed (it fired): it would be active and never run', async () => {
    const job = await createJob(t.db, { key: 'once.fired', name: 'o', schedule: { kind: 'once', runAt: new Date(NOW.getTime() + 60_000) }, handler: 'builtin.noop' }, alice, NOW);
    const later = new Date(NOW.getTime() + 3_600_000);
    await pauseJob(t.db, job.id, alice, {}, later); // as the tick does after firing it
    const e = await rejects(resumeJob(t.db, job.id, alice, {}, later));
    expect(e.code).toBe('validation');
    expect(e.fields).toEqual({ 'schedule.runAt': 'Is in the past: this job would never fire' });
    expect(e.message).toMatch(/^Job once\.fired cannot be resumed: schedule\.runAt: Is in the past/);
    const after = await getJob(t.db, job.id, alice);
    expect([after.status, after.version]).toEqual(['paused', 2]);
    // the job page disables Resume with the same words, from the job as getJob answers it
    expect(resumeRefusal(after, later)).toBe(e.message);
    expect(resumeRefusal(after, NOW)).toBeNull();
    // still resumable before its run-at
    expect((await resumeJob(t.db, job.id, alice, {}, NOW)).status).toBe('active');
  });

  it('resumeRefusal: null for an active or a manual job and for a window still open; an ended window is named', async () => {
    const cron = await createJob(t.db, { key: 'refusal.window', name: 'w', schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'Europe/Berlin' }, endAt: new Date(NOW.getTime() + 86_400_000 * 3), handler: 'builtin.noop' }, alice, NOW);
    expect(resumeRefusal(cron, NOW)).toBeNull(); // active
    const paused = await pauseJob(t.db, cron.id, alice, {}, NOW);
    expect(resumeRefusal(paused, NOW)).toBeNull();
    const afterEnd = new Date(NOW.getTime() + 86_400_000 * 4);
    expect(resumeRefusal(paused, afterEnd)).toBe((await rejects(resumeJob(t.db, cron.id, alice, {}, afterEnd))).message);
    const manual = await pauseJob(t.db, (await createJob(t.db, { key: 'refusal.manual', name: 'm', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, alice, NOW)).id, alice, {}, NOW);
    expect(resumeRefusal(manual, afterEnd)).toBeNull();
  });

  it('a schedule that would never fire is named in the same 400 as the other bad fields, on create and on a change of it, at the given clock', async () => {
    const past = new Date(NOW.getTime() - 86_400_000).toISOString();
    const c = await rejects(createJob(t.db, { key: 'never.fires', name: '', schedule: { kind: 'once', runAt: past }, handler: 'builtin.noop', policy: { timeoutSeconds: 0 } }, alice, NOW));
    expect(c.code).toBe('validation');
    expect(c.fields).toEqual({ name: 'Name is required', 'policy.timeoutSeconds': 'Must be a whole number from 1 to 604800', 'schedule.runAt': 'Is in the past: this job would never fire' });
    // the same run-at is fine at an earlier clock: the rule reads the clock the save is given
    const early = await rejects(createJob(t.db, { key: 'never.fires', name: '', schedule: { kind: 'once', runAt: past }, handler: 'builtin.noop' }, alice, new Date(NOW.getTime() - 2 * 86_400_000)));
    expect(early.fields).toEqual({ name: 'Name is required' });
    expect(await t.db.job.count({ where: { key: 'never.fires' } })).toBe(0);

    const job = await createJob(t.db, { key: 'never.fires', name: 'n', schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'UTC' }, handler: 'builtin.noop' }, alice, NOW);
    const u = await rejects(updateJob(t.db, job.id, { expectedVersion: 1, name: '', endAt: past }, alice, NOW));
    expect(u.fields).toEqual({ name: 'Name is required', endAt: 'Is in the past: this job would never fire' });
    // a change that leaves the schedule alone is not judged on it
    const stale = await createJob(t.db, { key: 'never.fires.once', name: 'o', schedule: { kind: 'once', runAt: new Date(NOW.getTime() + 60_000) }, handler: 'builtin.noop' }, alice, NOW);
    const later = new Date(NOW.getTime() + 3_600_000);
    expect((await rejects(updateJob(t.db, stale.id, { expectedVersion: 1, name: '' }, alice, later))).fields).toEqual({ name: 'Name is required' });
    expect((await getJob(t.db, job.id, alice)).version).toBe(1);
  });

  it('creates a cron job with the handler shorthand, version 1, next_run_at in the job zone', async () => {
    const job = await createJob(
      t.db,
      { key: 'report.daily', name: 'Daily report', schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'America/New_York' }, handler: 'builtin.echo', payload: { x: 1 } },
      alice,
      NOW,
    );
    expect(job.version).toBe(1);
    expect(job.status).toBe('active');
    expect(job.steps).toHaveLength(1);
    expect(job.steps[0]).toMatchObject({ key: 'main', handler: 'builtin.echo', payload: { x: 1 } });
    expect(job.nextRunAt).toBe('2026-03-07T07:00:00.000Z');
    expect(job.createdBy).toBe('alice@example.com');
    expect(job.policy.blockStrategy).toBe('discard_later');
    const versions = (await listVersions(t.db, job.id, viewer)).items;
    expect(versions).toEqual([expect.objectContaining({ version: 1, changeType: 'create', createdBy: 'alice@example.com' })]);
    const detail = await getJob(t.db, job.id, viewer, NOW);
    expect(detail.nextFireTimes.slice(0, 3)).toEqual(['2026-03-07T07:00:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:00:00.000Z']);
  });

  it('creates a DAG job and refuses a cycle naming it, writing nothing', async () => {
    const base = {
      key: 'dag.job',
      name: 'DAG',
      schedule: { kind: 'manual' },
      steps: [
        { key: 'a', handler: 'builtin.noop' },
        { key: 'b', handler: 'builtin.noop' },
        { key: 'c', handler: 'builtin.noop' },
      ],
    };
    const e = await rejects(
      createJob(t.db, { ...base, edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'a' }] }, alice, NOW),
    );
    expect(e.code).toBe('validation');
    expect(e.fields?.edges).toMatch(/a -> b -> c -> a/);
    expect(await t.db.job.count({ where: { key: 'dag.job' } })).toBe(0);
    const job = await createJob(t.db, { ...base, edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c', type: 'soft' }] }, alice, NOW);
    expect(job.edges).toEqual([
      { from: 'a', to: 'b', type: 'hard' },
      { from: 'a', to: 'c', type: 'soft' },
    ]);
    expect(job.nextRunAt).toBeNull();
  });

  it('refuses a duplicate live key with 409 at key', async () => {
    const e = await rejects(createJob(t.db, { key: 'report.daily', name: 'x', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW));
    expect(e.status).toBe(409);
    expect(e.fields?.key).toBeTruthy();
  });

  it('updates with the right expectedVersion and answers a stale one with 409 naming what changed', async () => {
    const job = await createJob(t.db, { key: 'upd', name: 'Upd', schedule: { kind: 'interval', intervalSeconds: 60 }, handler: 'builtin.noop' }, alice, NOW);
    const v2 = await updateJob(
      t.db,
      job.id,
      { expectedVersion: 1, name: 'Updated', schedule: { kind: 'cron', cron: '*/5 * * * *', timezone: 'UTC' }, policy: { maxRetries: 3 }, reason: 'tune' },
      bob,
      NOW,
    );
    expect(v2.version).toBe(2);
    expect(v2.name).toBe('Updated');
    expect(v2.policy.maxRetries).toBe(3);
    expect(v2.policy.timeoutSeconds).toBe(300);
    expect(v2.nextRunAt).toBe('2026-03-07T00:05:00.000Z');
    expect(v2.updatedBy).toBe('bob@example.com');
    // alice still edits version 1
    const e = await rejects(updateJob(t.db, job.id, { expectedVersion: 1, description: 'mine' }, alice, NOW));
    expect(e.status).toBe(409);
    expect(e.detail?.currentVersion).toBe(2);
    expect(e.detail?.changedFields).toEqual(expect.arrayContaining(['name', 'schedule.kind', 'schedule.cron', 'policy.maxRetries']));
    expect((e.detail?.current as { name: string }).name).toBe('Updated');
    const row = await t.db.job.findUniqueOrThrow({ where: { id: job.id } });
    expect(row.description).toBe('');
    expect(row.version).toBe(2);
  });

  it('update validates the merged DAG and window', async () => {
    const job = await createJob(
      t.db,
      { key: 'upd.dag', name: 'x', schedule: { kind: 'manual' }, steps: [{ key: 'a', handler: 'h' }, { key: 'b', handler: 'h' }], edges: [{ from: 'a', to: 'b' }] },
      alice,
      NOW,
    );
    const e = await rejects(updateJob(t.db, job.id, { expectedVersion: 1, edges: [{ from: 'b', to: 'a' }, { from: 'a', to: 'b' }] }, alice, NOW));
    expect(e.fields?.edges).toMatch(/Cycle/);
    const e2 = await rejects(updateJob(t.db, job.id, { expectedVersion: 1, startAt: '2026-05-01T00:00:00Z', endAt: '2026-04-01T00:00:00Z' }, alice, NOW));
    expect(e2.fields?.endAt).toBeTruthy();
    // steps without edges keeps surviving edges
    const v2 = await updateJob(t.db, job.id, { expectedVersion: 1, steps: [{ key: 'a', handler: 'h' }, { key: 'b', handler: 'h2' }, { key: 'c', handler: 'h' }] }, alice, NOW);
    expect(v2.edges).toEqual([{ from: 'a', to: 'b', type: 'hard' }]);
    const v3 = await saveDag(t.db, job.id, { steps: [{ key: 'a', handler: 'h', position: { x: 5, y: 6 } }, { key: 'c', handler: 'h' }], edges: [{ from: 'c', to: 'a' }], expectedVersion: 2 }, alice, NOW);
    expect(v3.version).toBe(3);
    expect(v3.steps.map((s) => s.key)).toEqual(['a', 'c']);
    expect(v3.steps[0]!.position).toEqual({ x: 5, y: 6 });
    expect(v3.edges).toEqual([{ from: 'c', to: 'a', type: 'hard' }]);
  });

  it('pauses and resumes (resume clears dead letter and recomputes next_run_at from now)', async () => {
    const job = await createJob(t.db, { key: 'pr', name: 'pr', schedule: { kind: 'interval', intervalSeconds: 600 }, handler: 'h' }, alice, NOW);
    const paused = await pauseJob(t.db, job.id, alice, { reason: 'maintenance' }, NOW);
    expect(paused.status).toBe('paused');
    expect(paused.version).toBe(2);
    // A job reaches dead_letter only from active (lib/engine/states.ts JOB_TRANSITIONS, guarded in SQL).
    await t.db.job.update({ where: { id: job.id }, data: { status: 'active' } });
    await t.db.job.update({ where: { id: job.id }, data: { status: 'dead_letter', consecutiveFailures: 5, lastError: 'boom' } });
    const later = new Date(NOW.getTime() + 3600_000 + 1);
    const resumed = await resumeJob(t.db, job.id, bob, {}, later);
    expect(resumed.status).toBe('active');
    expect(resumed.consecutiveFailures).toBe(0);
    expect(resumed.lastError).toBeNull();
    expect(new Date(resumed.nextRunAt!).getTime()).toBeGreaterThan(later.getTime());
    const versions = (await listVersions(t.db, job.id, viewer)).items;
    expect(versions.map((v) => v.changeType)).toEqual(['resume', 'pause', 'create']);
    expect(versions[1]!.reason).toBe('maintenance');
  });

  it('a restore of a job whose schedule ran out in the recycle bin brings it back paused, saying why, like resume refuses it; nothing fires', async () => {
    const at = (s: number) => new Date(NOW.getTime() + s * 1000);
    const { runTick } = await import('../../lib/engine/tick/index.ts');
    // once: run-at 15 s ahead, deleted, restored 20 s later
    const once = await createJob(t.db, { key: 'restore.once', name: 'Once', schedule: { kind: 'once', runAt: at(15) }, handler: 'h' }, alice, NOW);
    await deleteJob(t.db, once.id, alice, {}, at(1));
    const back = await restoreJob(t.db, once.id, alice, {}, at(20));
    expect(back).toMatchObject({ status: 'paused', nextRunAt: null, deletedAt: null });
    expect(back.lastError).toBe('Restored paused: schedule.runAt: Is in the past: this job would never fire; change its schedule, then resume it');
    const { restoreNotice } = await import('../../lib/jobs/restore-job.ts');
    expect(restoreNotice(back)).toBe(back.lastError);
    const versions = (await listVersions(t.db, once.id, viewer)).items;
    expect(versions.map((v) => [v.changeType, v.reason])).toEqual([['restore', back.lastError], ['delete', null], ['create', null]]);
    // resume says the same, alone and in a batch (named at its index)
    const e = await rejects(resumeJob(t.db, once.id, alice, {}, at(21)));
    expect([e.status, e.fields]).toEqual([400, { 'schedule.runAt': 'Is in the past: this job would never fire' }]);
    const b = await rejects(bulkJobs(t.db, 'resume', { ids: [once.id] }, alice, at(21)));
    expect([b.status, b.fields]).toEqual([400, { 'ids.0': 'schedule.runAt: Is in the past: this job would never fire' }]);
    // nothing fires and no missed slot is recorded
    await runTick(t.db, { limit: 100 }, at(25));
    expect(await t.db.run.count({ where: { jobId: once.id } })).toBe(0);
    // a new run-at makes it resumable
    await updateJob(t.db, once.id, { expectedVersion: back.version, schedule: { kind: 'once', runAt: at(3600) } }, alice, at(30));
    expect(await resumeJob(t.db, once.id, alice, {}, at(31))).toMatchObject({ status: 'active', nextRunAt: at(3600).toISOString(), lastError: null });

    // an effective window whose endAt passed in the bin: paused, named at endAt (a reason given is kept, the notice added)
    const ended = await createJob(t.db, { key: 'restore.ended', name: 'Ended', schedule: { kind: 'cron', cron: '*/5 * * * *', timezone: 'UTC' }, endAt: at(3600), handler: 'h' }, alice, NOW);
    await deleteJob(t.db, ended.id, alice, {}, at(1));
    const endedBack = await restoreJob(t.db, ended.id, alice, { reason: 'needed again' }, at(7200));
    expect(endedBack).toMatchObject({ status: 'paused', nextRunAt: null, lastError: 'Restored paused: endAt: Is in the past: this job would never fire; change its schedule, then resume it' });
    expect((await listVersions(t.db, ended.id, viewer)).items[0]!.reason).toBe(`needed again (${endedBack.lastError})`);

    // a cron whose next fire falls after its window's end, and a cron with no fire time left at all (year field)
    const window = await createJob(t.db, { key: 'restore.window', name: 'Window', schedule: { kind: 'cron', cron: '0 12 10 3 *', timezone: 'UTC' }, endAt: new Date('2026-03-20T00:00:00Z'), handler: 'h' }, alice, NOW);
    const yearly = await createJob(t.db, { key: 'restore.year', name: 'Year', schedule: { kind: 'cron', cron: '0 0 12 10 3 ? 2026', timezone: 'UTC' }, handler: 'h' }, alice, NOW);
    for (const j of [window, yearly]) await deleteJob(t.db, j.id, alice, {}, at(1));
    const later = new Date('2026-03-12T00:00:00Z');
    expect(await restoreJob(t.db, window.id, alice, {}, later)).toMatchObject({ status: 'paused', nextRunAt: null, lastError: expect.stringMatching(/^Restored paused: endAt: No fire time falls inside startAt\.\.endAt/) });
    expect(await restoreJob(t.db, yearly.id, alice, {}, later)).toMatchObject({ status: 'paused', nextRunAt: null, lastError: expect.stringMatching(/^Restored paused: schedule\.cron: Has no fire time after now/) });

    // a job paused before it was deleted stays paused, with no notice; one that can still fire comes back active
    const paused = await createJob(t.db, { key: 'restore.paused', name: 'Paused', schedule: { kind: 'once', runAt: at(15) }, handler: 'h' }, alice, NOW);
    await pauseJob(t.db, paused.id, alice, {}, at(1));
    await deleteJob(t.db, paused.id, alice, {}, at(2));
    expect(await restoreJob(t.db, paused.id, alice, {}, at(20))).toMatchObject({ status: 'paused', lastError: null });
    const live = await createJob(t.db, { key: 'restore.live', name: 'Live', schedule: { kind: 'once', runAt: at(3600) }, handler: 'h' }, alice, NOW);
    await deleteJob(t.db, live.id, alice, {}, at(1));
    expect(await restoreJob(t.db, live.id, alice, {}, at(20))).toMatchObject({ status: 'active', nextRunAt: at(3600).toISOString(), lastError: null });
  });

  it('a rollback to a version whose once run-at has passed is a 422 naming version, writing nothing', async () => {
    const at = (s: number) => new Date(NOW.getTime() + s * 1000);
    const job = await createJob(t.db, { key: 'rollback.once', name: 'Once', schedule: { kind: 'once', runAt: at(15) }, handler: 'h' }, alice, NOW);
    const v2 = await updateJob(t.db, job.id, { expectedVersion: 1, schedule: { kind: 'once', runAt: at(86_400) } }, alice, at(1));
    const e = await rejects(rollbackJob(t.db, job.id, { version: 1, expectedVersion: 2 }, alice, at(20)));
    expect(e.status).toBe(422);
    expect(e.fields).toEqual({ version: 'Its configuration is refused now: schedule.runAt: Is in the past: this job would never fire' });
    expect(e.detail).toEqual({ fields: { 'schedule.runAt': 'Is in the past: this job would never fire' } });
    expect(await getJob(t.db, job.id, viewer, at(20))).toMatchObject({ version: 2, status: 'active', nextRunAt: v2.nextRunAt });
    expect(await t.db.jobVersion.count({ where: { jobId: job.id } })).toBe(2);
  });

  it('a rollback to a version whose key another live job took since is a 422 at version naming that job, writing nothing', async () => {
    const job = await createJob(t.db, { key: 'rollback.key', name: 'Renamed', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
    await updateJob(t.db, job.id, { expectedVersion: 1, key: 'rollback.key2' }, alice, NOW);
    const other = await createJob(t.db, { key: 'rollback.key', name: 'Newcomer', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
    const e = await rejects(rollbackJob(t.db, job.id, { version: 1 }, alice, NOW));
    expect(e.status).toBe(422);
    expect(e.fields).toEqual({ version: `Its configuration is refused now: key: Used by job Newcomer (${other.id}): rename or delete that job first` });
    expect(Object.keys(e.detail?.fields ?? {})).toEqual(['key']);
    expect(await getJob(t.db, job.id, viewer, NOW)).toMatchObject({ version: 2, key: 'rollback.key2' });
    expect(await t.db.jobVersion.count({ where: { jobId: job.id } })).toBe(2);
  });

  it('routing: a strategy change drops the node list or key the new strategy does not read', async () => {
    const job = await createJob(t.db, { key: 'route.switch', name: 'r', schedule: { kind: 'manual' }, handler: 'h', routing: { strategy: 'nodes', nodes: ['n1', 'n2'] } }, alice, NOW);
    expect(job.routing).toMatchObject({ strategy: 'nodes', nodes: ['n1', 'n2'], key: null });
    const hashed = await updateJob(t.db, job.id, { expectedVersion: 1, routing: { strategy: 'consistent_hash', key: 'tenant-7' } }, alice, NOW);
    expect(hashed.routing).toMatchObject({ strategy: 'consistent_hash', nodes: [], key: 'tenant-7' });
    const plain = await updateJob(t.db, job.id, { expectedVersion: 2, routing: { strategy: 'any' } }, alice, NOW);
    expect(plain.routing).toMatchObject({ strategy: 'any', nodes: [], key: null });
    // given with a strategy that does not read them: refused by field, nothing written
    const e = await rejects(updateJob(t.db, job.id, { expectedVersion: 3, routing: { nodes: ['n1'], key: 'k' } }, alice, NOW));
    expect(Object.keys(e.fields ?? {}).sort()).toEqual(['routing.key', 'routing.nodes']);
    expect(await t.db.jobVersion.count({ where: { jobId: job.id } })).toBe(3);
  });

  it('a restore or rollback that loses the race for its key to a job created meanwhile gets the answer it gets when that job was first', async () => {
    const job = await createJob(t.db, { key: 'bin.race', name: 'Raced', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
    await deleteJob(t.db, job.id, alice, {}, NOW);
    let other = '';
    let restoring: Promise<DomainError> | undefined;
    // the new job's insert is not committed when the restore looks for a holder of the key: the restore's
    // own write then waits on the live-key unique index, and fails once the insert commits
    await t.db.$transaction(async (tx) => {
      other = (await tx.job.create({ data: { key: 'bin.race', name: 'Newcomer', scheduleKind: 'manual' } })).id;
      restoring = rejects(restoreJob(t.db, job.id, alice, {}, NOW));
      await untilAJobWriteWaits();
    });
    const e = await restoring!;
    expect(e.status).toBe(409);
    expect(e.fields).toEqual({ key: `Used by job Newcomer (${other})` });
    expect(e.detail?.otherJobId).toBe(other);
    expect((await t.db.job.findUniqueOrThrow({ where: { id: job.id } })).deletedAt).not.toBeNull();

    // a rollback to the old key, the same way: its 422 at version, as when the holder was there first
    const renamed = await createJob(t.db, { key: 'rollback.race', name: 'Renamed', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
    await updateJob(t.db, renamed.id, { expectedVersion: 1, key: 'rollback.race2' }, alice, NOW);
    let rolling: Promise<DomainError> | undefined;
    await t.db.$transaction(async (tx) => {
      other = (await tx.job.create({ data: { key: 'rollback.race', name: 'Newcomer', scheduleKind: 'manual' } })).id;
      rolling = rejects(rollbackJob(t.db, renamed.id, { version: 1 }, alice, NOW));
      await untilAJobWriteWaits();
    });
    const r = await rolling!;
    expect([r.status, r.fields]).toEqual([422, { version: `Its configuration is refused now: key: Used by job Newcomer (${other}): rename or delete that job first` }]);
    expect(await t.db.jobVersion.count({ where: { jobId: renamed.id } })).toBe(2);
  });

  /** Resolves once a statement updating jobs waits for a lock (another transaction's uncommitted row). */
  async function untilAJobWriteWaits(): Promise<void> {
    for (;;) {
      const { rows } = await t.pool.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND query ILIKE '%update%jobs%'`);
      if (rows.length) return;
      await new Promise((r) => setImmediate(r));
    }
  }

  it('soft-deletes, restores (409 naming the job holding the key), purges keeping runs', async () => {
    const job = await createJob(t.db, { key: 'bin.me', name: 'Bin me', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
    const deleted = await deleteJob(t.db, job.id, alice, { reason: 'old' }, NOW);
    expect(deleted.deletedAt).toBe(NOW.toISOString());
    expect(deleted.deletedBy).toBe('alice@example.com');
    expect((await listJobs(t.db, { q: 'bin.me' }, viewer)).items).toHaveLength(0);
    const bin = await listRecycleBin(t.db, {}, viewer);
    expect(bin.items.map((j) => j.id)).toContain(job.id);
    // key reused by a new live job -> restore is a clear 409
    const other = await createJob(t.db, { key: 'bin.me', name: 'Usurper', schedule: { kind: 'manual' }, handler: 'h' }, bob, NOW);
    const e = await rejects(restoreJob(t.db, job.id, alice, {}, NOW));
    expect(e.status).toBe(409);
    expect(e.message).toContain('Usurper');
    expect(e.detail?.otherJobId).toBe(other.id);
    await deleteJob(t.db, other.id, bob, {}, NOW);
    const restored = await restoreJob(t.db, job.id, alice, {}, NOW);
    expect(restored.deletedAt).toBeNull();
    expect((await listVersions(t.db, job.id, viewer)).items.map((v) => v.changeType)).toEqual(['restore', 'delete', 'create']);
    // purge only from the bin
    expect((await rejects(purgeJob(t.db, job.id, alice))).status).toBe(409);
    await t.pool.query(
      `INSERT INTO runs (job_id, job_key, job_version, trigger, triggered_by, scheduled_for, status, trace_id, finished_at) VALUES ($1, 'bin.me', 1, 'manual', 'x', now(), 'success', 't', now())`,
      [job.id],
    );
    await t.pool.query(
      `INSERT INTO alarms (job_id, type, channel, target, status, content, created_at, updated_at, next_attempt_at)
       VALUES ($1, 'failure', 'log', '', 'sent', '{"jobKey":"bin.me"}', now(), now(), now())`,
      [job.id],
    );
    const purgedNames = async () => {
      const runs = (await listRuns(t.db, { jobId: job.id }, viewer)).items;
      return {
        list: runs.map((r) => r.jobPurged),
        run: (await getRun(t.db, runs[0]!.id, viewer)).jobPurged,
        alarms: (await listAlarms(t.db, { jobId: job.id })).items.map((a) => a.jobPurged),
      };
    };
    await deleteJob(t.db, job.id, alice, {}, NOW);
    // in the recycle bin the job keeps its page: its runs and alarms still link to it
    expect(await purgedNames()).toEqual({ list: [false], run: false, alarms: [false] });
    await purgeJob(t.db, job.id, alice);
    // purged: the lists name it as text (lib/jobs/purged-job-ids.ts)
    expect(await purgedNames()).toEqual({ list: [true], run: true, alarms: [true] });
    expect(await t.db.job.count({ where: { id: job.id } })).toBe(0);
    expect(await t.db.jobVersion.count({ where: { jobId: job.id } })).toBe(0);
    expect(await t.db.jobStep.count({ where: { jobId: job.id } })).toBe(0);
    expect(await t.db.run.count({ where: { jobId: job.id } })).toBe(1);
    expect((await rejects(getJob(t.db, job.id, viewer))).status).toBe(404);
  });

  it('diffs versions field by field and rolls back as a new version', async () => {
    const job = await createJob(
      t.db,
      { key: 'vv', name: 'V1', schedule: { kind: 'manual' }, steps: [{ key: 'a', handler: 'h', payload: { n: 1 } }, { key: 'b', handler: 'h' }], edges: [{ from: 'a', to: 'b' }] },
      alice,
      NOW,
    );
    await updateJob(
      t.db,
      job.id,
      {
        expectedVersion: 1,
        name: 'V2',
        policy: { backoff: { factor: 3 } },
        steps: [{ key: 'a', handler: 'h', payload: { n: 2 } }, { key: 'c', handler: 'h' }],
        edges: [{ from: 'a', to: 'c', type: 'on_failure' }],
      },
      bob,
      NOW,
    );
    const d = await diffVersions(t.db, job.id, 1, 2, viewer);
    expect(d.diff.fields).toEqual(
      expect.arrayContaining([
        { path: 'name', from: 'V1', to: 'V2' },
        { path: 'policy.backoff.factor', from: 2, to: 3 },
      ]),
    );
    expect(d.diff.steps.added.map((s) => s.key)).toEqual(['c']);
    expect(d.diff.steps.removed.map((s) => s.key)).toEqual(['b']);
    // a step added or removed is shown as configured: where its box sat is layout, not configuration
    expect([...d.diff.steps.added, ...d.diff.steps.removed].some((s) => 'position' in s)).toBe(false);
    expect(d.diff.steps.changed).toEqual([{ key: 'a', fields: [{ path: 'payload.n', from: 1, to: 2 }] }]);
    expect(d.diff.edges.added).toEqual([{ from: 'a', to: 'c', type: 'on_failure' }]);
    expect(d.diff.edges.removed).toEqual([{ from: 'a', to: 'b', type: 'hard' }]);
    expect((await rejects(diffVersions(t.db, job.id, 1, 9, viewer))).status).toBe(404);

    const rolled = await rollbackJob(t.db, job.id, { version: 1 }, alice, NOW);
    expect(rolled.version).toBe(3);
    expect(rolled.name).toBe('V1');
    expect(rolled.policy.backoff.factor).toBe(2);
    expect(rolled.steps.map((s) => [s.key, s.payload])).toEqual([
      ['a', { n: 1 }],
      ['b', {}],
    ]);
    expect(rolled.edges).toEqual([{ from: 'a', to: 'b', type: 'hard' }]);
    const versions = (await listVersions(t.db, job.id, viewer)).items;
    expect(versions[0]).toMatchObject({ version: 3, changeType: 'rollback', reason: 'Rollback to v1', createdBy: 'alice@example.com' });
    const d13 = await diffVersions(t.db, job.id, 1, 3, viewer);
    expect(d13.diff.changedFields).toEqual([]);
  });

  it('a rollback that would restore nothing (a pause or resume after the last edit, the current version) is a 422 naming version, writes nothing, and the version list says so', async () => {
    const job = await createJob(t.db, { key: 'rollback.nothing', name: 'First', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
    await updateJob(t.db, job.id, { expectedVersion: 1, name: 'Second' }, alice, NOW); // v2
    await pauseJob(t.db, job.id, alice, {}, NOW); // v3: the configuration of v2, paused
    await resumeJob(t.db, job.id, alice, {}, NOW); // v4: the configuration of v2, active
    const before = await t.db.jobVersion.count({ where: { jobId: job.id } });
    for (const [version, words] of [
      [3, 'v3 only records a pause; its configuration'],
      [4, 'v4 only records a resume; its configuration'],
      [2, "v2's configuration"],
    ] as const) {
      const e = await rejects(rollbackJob(t.db, job.id, { version }, alice, NOW));
      expect(e.status, `v${version}`).toBe(422);
      expect(e.message).toBe(`Nothing to roll back: ${words} is the current one (v4)`);
      expect(e.fields).toEqual({ version: e.message });
    }
    expect(await t.db.jobVersion.count({ where: { jobId: job.id } })).toBe(before);
    expect((await t.db.job.findUniqueOrThrow({ where: { id: job.id } })).version).toBe(4);

    const listed = (await listVersions(t.db, job.id, viewer)).items;
    expect(listed.map((v) => [v.version, v.rollbackRefusal === null])).toEqual([
      [4, false],
      [3, false],
      [2, false],
      [1, true],
    ]);
    expect(listed.find((v) => v.version === 3)!.rollbackRefusal).toBe('Nothing to roll back: v3 only records a pause; its configuration is the current one (v4)');

    // v1 differs: it rolls back, and then v1 is the one that would restore nothing, v2 to v4 restore "Second"
    const rolled = await rollbackJob(t.db, job.id, { version: 1 }, alice, NOW);
    expect(rolled).toMatchObject({ version: 5, name: 'First', status: 'active' });
    const after = (await listVersions(t.db, job.id, viewer)).items;
    expect(after.map((v) => [v.version, v.rollbackRefusal === null])).toEqual([
      [5, false],
      [4, true],
      [3, true],
      [2, true],
      [1, false],
    ]);
  });

  it('"Run now" triggers a manual run through the engine, stamped with the actor', async () => {
    const { triggerJob } = await import('../../lib/jobs/trigger-job.ts');
    const job = await createJob(
      t.db,
      { key: 'run.now', name: 'run now', schedule: { kind: 'manual' }, steps: [{ key: 'a', handler: 'builtin.echo', payload: { p: 1 } }, { key: 'b', handler: 'builtin.noop' }], edges: [{ from: 'a', to: 'b' }] },
      alice,
      NOW,
    );
    const r = await triggerJob(t.db, job.id, { payload: { q: 2 } }, bob, {}, NOW);
    if ('runs' in r) throw new Error('one run expected');
    expect(r.outcome).toBe('started');
    expect(r.run).toMatchObject({ jobId: job.id, trigger: 'manual', triggeredBy: 'bob@example.com', scheduledFor: NOW.toISOString() });
    expect(await t.db.task.count({ where: { runId: r.run.id } })).toBe(2);
    expect((await rejects(triggerJob(t.db, job.id, {}, viewer))).status).toBe(403);
    await deleteJob(t.db, job.id, alice, {}, NOW);
    // The engine finds no live job; the answer still says where it is, with or without a payload or a batch.
    for (const body of [{}, { payload: { q: 3 } }, { runs: [{}] }]) {
      const refused = await rejects(triggerJob(t.db, job.id, body, alice));
      expect(refused.status).toBe(404);
      expect(refused.message).toBe('Job run.now is in the recycle bin');
    }
    const unknown = await rejects(triggerJob(t.db, '00000000-0000-4000-8000-000000000000', {}, alice));
    expect([unknown.status, unknown.message]).toEqual([404, 'Job 00000000-0000-4000-8000-000000000000 not found']);
  });

  it('viewer cannot change anything', async () => {
    const job = await createJob(t.db, { key: 'ro', name: 'ro', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
    for (const p of [
      createJob(t.db, { key: 'ro2', name: 'x', schedule: { kind: 'manual' }, handler: 'h' }, viewer),
      updateJob(t.db, job.id, { expectedVersion: 1, name: 'x' }, viewer),
      pauseJob(t.db, job.id, viewer),
      resumeJob(t.db, job.id, viewer),
      deleteJob(t.db, job.id, viewer),
      restoreJob(t.db, job.id, viewer),
      purgeJob(t.db, job.id, viewer),
      rollbackJob(t.db, job.id, { version: 1 }, viewer),
      saveDag(t.db, job.id, { steps: [{ key: 'a', handler: 'h' }] }, viewer),
      bulkJobs(t.db, 'pause', { ids: [job.id] }, viewer),
    ]) {
      expect((await rejects(p)).status).toBe(403);
    }
    expect((await t.db.job.findUniqueOrThrow({ where: { id: job.id } })).version).toBe(1);
  });

  it('bulk pause is all or nothing', async () => {
    const a = await createJob(t.db, { key: 'bulk.a', name: 'a', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
    const b = await createJob(t.db, { key: 'bulk.b', name: 'b', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
    const e = await rejects(bulkJobs(t.db, 'pause', { ids: [a.id, b.id, '00000000-0000-4000-8000-00000000dead'] }, alice, NOW));
    expect(e.status).toBe(404);
    expect((await t.db.job.findUniqueOrThrow({ where: { id: a.id } })).status).toBe('active');
    const out = await bulkJobs(t.db, 'pause', { ids: [a.id, b.id] }, alice, NOW);
    expect(out.map((j) => j.status)).toEqual(['paused', 'paused']);
    await bulkJobs(t.db, 'delete', { ids: [a.id, b.id] }, alice, NOW);
    expect(await t.db.job.count({ where: { id: { in: [a.id, b.id] }, deletedAt: { not: null } } })).toBe(2);
  });

  it("the console's bulk acts on each job on its own: a refused resume leaves the others resumed, each outcome in the order given", async () => {
    const later = new Date(NOW.getTime() + 3_600_000);
    const cron = await createJob(t.db, { key: 'each.cron', name: 'c', schedule: { kind: 'cron', cron: '*/5 * * * *', timezone: 'UTC' }, handler: 'h' }, alice, NOW);
    const fired = await createJob(t.db, { key: 'each.fired', name: 'f', schedule: { kind: 'once', runAt: new Date(NOW.getTime() + 60_000) }, handler: 'h' }, alice, NOW);
    const manual = await createJob(t.db, { key: 'each.manual', name: 'm', schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
    const ids = [cron.id, fired.id, manual.id];
    expect((await bulkJobsEach(t.db, 'pause', { ids }, alice, later)).map((r) => r.ok)).toEqual([true, true, true]);
    // all or nothing (POST /jobs/bulk) refuses the batch for the fired once job and resumes none
    await rejects(bulkJobs(t.db, 'resume', { ids }, alice, later));
    expect(await t.db.job.count({ where: { id: { in: ids }, status: 'active' } })).toBe(0);
    // each on its own: the two others are resumed, the fired one is named, a job gone meanwhile too
    const gone = '00000000-0000-4000-8000-00000000dead';
    const out = await bulkJobsEach(t.db, 'resume', { ids: [...ids, gone] }, alice, later);
    expect(out.map((r) => (r.ok ? [r.id, r.job.status] : [r.id, r.code, r.message]))).toEqual([
      [cron.id, 'active'],
      [fired.id, 'validation', expect.stringMatching(/^Job each\.fired cannot be resumed: schedule\.runAt: Is in the past/)],
      [manual.id, 'active'],
      [gone, 'not_found', `Job ${gone} not found`],
    ]);
    const rows = await t.db.job.findMany({ where: { id: { in: ids } }, select: { key: true, status: true, version: true }, orderBy: { key: 'asc' } });
    expect(rows).toEqual([
      { key: 'each.cron', status: 'active', version: 3 },
      { key: 'each.fired', status: 'paused', version: 2 },
      { key: 'each.manual', status: 'active', version: 3 },
    ]);
    // a viewer is refused the whole call, as for every change
    await rejects(bulkJobsEach(t.db, 'pause', { ids }, viewer, later));
  });

  it('keyset pagination never repeats or skips pre-existing rows under concurrent inserts', async () => {
    const prefix = 'page';
    for (let i = 0; i < 23; i++) {
      await createJob(t.db, { key: `${prefix}.${String(i).padStart(2, '0')}`, name: `Page ${i % 5}`, schedule: { kind: 'interval', intervalSeconds: 60 + i }, handler: 'h' }, alice, new Date(NOW.getTime() + i * 1000));
    }
    for (const [sort, dir] of [
      ['created_at', 'desc'],
      ['key', 'asc'],
      ['name', 'desc'],
      ['next_run_at', 'asc'],
    ] as const) {
      const before = (await t.db.job.findMany({ where: { key: { startsWith: `${prefix}.` }, deletedAt: null }, select: { id: true } })).map((r) => r.id);
      const seen: string[] = [];
      let cursor: string | undefined;
      let n = 0;
      do {
        const page = await listJobs(t.db, { q: prefix, sort, dir, limit: '5', cursor }, viewer);
        seen.push(...page.items.map((j) => j.id));
        cursor = page.nextCursor ?? undefined;
        // concurrent inserts between page fetches, sorting everywhere (first, middle, last)
        await createJob(t.db, { key: `${prefix}.x${sort}${n}a`, name: `Page ${n}`, schedule: { kind: 'manual' }, handler: 'h' }, alice, new Date(NOW.getTime() + 10_000_000 + n));
        await createJob(t.db, { key: `${prefix}.${String(n).padStart(2, '0')}z${sort}`, name: `Page 0`, schedule: { kind: 'interval', intervalSeconds: 61 }, handler: 'h' }, alice, new Date(NOW.getTime() - 10_000_000 - n));
        n++;
      } while (cursor && n < 50);
      expect(new Set(seen).size).toBe(seen.length); // no repeats
      for (const id of before) expect(seen).toContain(id); // no skips
    }
    const e = await rejects(listJobs(t.db, { cursor: 'garbage' }, viewer));
    expect(e.fields?.cursor).toBeTruthy();
  });

  it('bad input on every field is a 400 naming the field and writes nothing', async () => {
    const good = { key: 'bad.input', name: 'ok', schedule: { kind: 'cron', cron: '0 * * * *', timezone: 'UTC' }, handler: 'builtin.noop' };
    const cases: [Record<string, unknown>, string][] = [
      [{ key: 'bad key!' }, 'key'],
      [{ key: '' }, 'key'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ description: 5 }, 'description'],
      [{ schedule: { kind: 'cron', cron: 'not a cron', timezone: 'UTC' } }, 'schedule.cron'],
      [{ schedule: { kind: 'cron', cron: '0 0 31 4 *', timezone: 'UTC' } }, 'schedule.cron'],
      [{ schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'Mars/Olympus' } }, 'schedule.timezone'],
      [{ schedule: { kind: 'interval', intervalSeconds: 0 } }, 'schedule.intervalSeconds'],
      [{ schedule: { kind: 'once', runAt: 'tomorrow' } }, 'schedule.runAt'],
      [{ schedule: { kind: 'weekly' } }, 'schedule.kind'],
      [{ startAt: 'yesterday' }, 'startAt'],
      [{ startAt: '2026-05-01T00:00:00Z', endAt: '2026-04-01T00:00:00Z' }, 'endAt'],
      [{ staggerSeconds: -1 }, 'staggerSeconds'],
      [{ handler: '' }, 'handler'],
      [{ payload: [1, 2] }, 'payload'],
      [{ payload: { big: 'x'.repeat(70_000) } }, 'payload'],
      [{ handler: undefined, steps: [] }, 'steps'],
      [{ handler: undefined, steps: [{ key: 'bad key', handler: 'h' }] }, 'steps.0.key'],
      [{ handler: undefined, steps: [{ key: 'a', handler: '' }] }, 'steps.0.handler'],
      [{ handler: undefined, steps: [{ key: 'a', handler: 'h', timeoutSeconds: 0 }] }, 'steps.0.timeoutSeconds'],
      [{ handler: undefined, steps: [{ key: 'a', handler: 'h', maxRetries: -1 }] }, 'steps.0.maxRetries'],
      [{ handler: undefined, steps: [{ key: 'a', handler: 'h' }, { key: 'a', handler: 'h' }] }, 'steps.1.key'],
      [{ handler: undefined, steps: [{ key: 'a', handler: 'h' }], edges: [{ from: 'a', to: 'zz' }] }, 'edges.0.to'],
      [{ handler: undefined, steps: [{ key: 'a', handler: 'h' }], edges: [{ from: 'a', to: 'a' }] }, 'edges.0.to'],
      [{ handler: undefined, steps: [{ key: 'a', handler: 'h' }, { key: 'b', handler: 'h' }], edges: [{ from: 'a', to: 'b', type: 'maybe' }] }, 'edges.0.type'],
      [{ policy: { timeoutSeconds: 0 } }, 'policy.timeoutSeconds'],
      [{ policy: { maxRetries: 1.5 } }, 'policy.maxRetries'],
      [{ policy: { backoff: { factor: 0.5 } } }, 'policy.backoff.factor'],
      [{ policy: { backoff: { jitter: 2 } } }, 'policy.backoff.jitter'],
      [{ policy: { blockStrategy: 'yolo' } }, 'policy.blockStrategy'],
      [{ policy: { misfirePolicy: 'never' } }, 'policy.misfirePolicy'],
      [{ policy: { misfireMaxCatchup: 0 } }, 'policy.misfireMaxCatchup'],
      [{ policy: { deadLetterAfter: -2 } }, 'policy.deadLetterAfter'],
      [{ policy: { priority: 'high' } }, 'policy.priority'],
      [{ routing: { strategy: 'random' } }, 'routing.strategy'],
      [{ routing: { labels: { a: 1 } } }, 'routing.labels.a'],
      [{ routing: { nodes: [''] } }, 'routing.nodes.0'],
      [{ alarms: { onFailure: 'yes' } }, 'alarms.onFailure'],
      [{ alarms: { channels: [{ type: 'pager', target: 'x' }] } }, 'alarms.channels.0.type'],
      [{ alarms: { channels: [{ type: 'webhook', target: 'not a url' }] } }, 'alarms.channels.0.target'],
      [{ alarms: { channels: [{ type: 'email', target: 'nobody' }] } }, 'alarms.channels.0.target'],
    ];
    for (const [patch, field] of cases) {
      const e = await rejects(createJob(t.db, { ...good, ...patch }, alice, NOW));
      expect(e.status, JSON.stringify(patch)).toBe(400);
      expect(Object.keys(e.fields ?? {}), `${JSON.stringify(patch).slice(0, 80)} -> ${JSON.stringify(e.fields)}`).toContain(field);
    }
    expect(await t.db.job.count({ where: { key: 'bad.input' } })).toBe(0);
    const ok = await createJob(t.db, good, alice, NOW);
    expect(ok.key).toBe('bad.input');
  });
});
