/**
 * Recovery actions (docs/recovery.md) on a real PostgreSQL with an injected
 * clock: mark success, clear downstream, backfill; each role-checked (viewers
 * refused, nothing written), each audited in job_audit, bad input a 400 naming
 * the field, and the REST routes answering the same.
 */
import { describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../lib/db.ts';
import { selectLastRun } from '../../lib/engine/sql/last-runs.ts';
import type { Actor } from '../../lib/auth/actor.ts';
import { cancelRun, completeTask, retryRun, triggerRun } from '../../lib/engine/index.ts';
import { markTaskSuccessAs, clearTaskAs } from '../../lib/runs/task-recovery.ts';
import { retryTaskAs } from '../../lib/runs/run-actions.ts';
import { backfillJob, previewBackfill } from '../../lib/jobs/backfill-job.ts';
import { runTick } from '../../lib/engine/tick/run-tick.ts';
import { staggerOffsetMs } from '../../lib/schedule/index.ts';
import { listJobAudit } from '../../lib/jobs/list-job-audit.ts';
import { getRun } from '../../lib/runs/get-run.ts';
import type { RunView } from '../../lib/runs/run-view.ts';
import { rebuildStats } from '../../lib/stats/rebuild-stats.ts';
import { call, useRestFixture, byToken } from '../helpers/rest.ts';
import * as backfillRoute from '../../app/api/v1/jobs/[id]/backfill/route.ts';
import * as backfillPreviewRoute from '../../app/api/v1/jobs/[id]/backfill/preview/route.ts';
import * as auditRoute from '../../app/api/v1/jobs/[id]/audit/route.ts';
import * as markRoute from '../../app/api/v1/tasks/[id]/mark-success/route.ts';
import * as clearRoute from '../../app/api/v1/tasks/[id]/clear/route.ts';
import { T0, at, claim, claimStep, drive, insertJob, logsOf, NODE, statusesOf, tasksOf, type JobSpec } from './engine-fixtures.ts';

let db: PrismaClient;
let tokens: { operator: string; viewer: string };
useRestFixture([], (f) => {
  db = f.t.db;
  tokens = { operator: f.operator, viewer: f.viewer };
});

const OPS: Actor = { kind: 'user', id: 'u-ops', name: 'ops@example.com', role: 'operator' };
const VIEWER: Actor = { kind: 'user', id: 'u-view', name: 'view@example.com', role: 'viewer' };

async function startRun(spec: JobSpec, now = T0) {
  const jobId = await insertJob(db, spec);
  const { run } = await triggerRun(db, { jobId, trigger: 'manual', triggeredBy: 't', scheduledFor: now }, now);
  return { jobId, runId: run.id };
}
const runOf = (id: string) => db.run.findUniqueOrThrow({ where: { id } });
const auditOf = (jobId: string) => db.jobAudit.findMany({ where: { jobId }, orderBy: { createdAt: 'asc' } });
async function statsTotals() {
  const r = await db.handlerStatsDaily.aggregate({ _sum: { success: true, failure: true, timeout: true, deadLetter: true } });
  return r._sum;
}
async function expectDomain(p: Promise<unknown>, code: string, field?: string) {
  const e = await p.then(() => null, (x) => x);
  expect(e, 'expected a DomainError').toMatchObject({ name: 'DomainError', code });
  if (field) expect(Object.keys(e.fields ?? {})).toContain(field);
}

describe('mark success', () => {
  it('releases the failed task\'s downstream as if it had succeeded, re-evaluates the run, audits, and leaves handler stats alone', async () => {
    const { jobId, runId } = await startRun({
      steps: [{ key: 'a' }, { key: 'b' }, { key: 'c' }, { key: 'd' }, { key: 'e' }],
      edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'e' }, { from: 'a', to: 'c', type: 'on_failure' }, { from: 'a', to: 'd', type: 'soft' }],
    });
    await drive(db, at(1000), { a: 'failed' });
    expect(await statusesOf(db, runId)).toEqual({ a: 'dead', b: 'skipped', c: 'success', d: 'success', e: 'skipped' });
    expect((await runOf(runId)).status).toBe('failed');
    const stats = await statsTotals();

    const view = await markTaskSuccessAs(db, (await tasksOf(db, runId)).a.id, { reason: 'loaded by hand' }, OPS, at(2000));
    expect(view.status).toBe('running');
    const t = await tasksOf(db, runId);
    expect({ a: t.a.status, b: t.b.status, e: t.e.status, c: t.c.status, d: t.d.status })
      .toEqual({ a: 'success', b: 'pending', e: 'pending', c: 'success', d: 'success' });
    expect([t.b.pendingParents, t.e.pendingParents]).toEqual([0, 1]);
    expect(t.a.error).toBeNull();
    // the attempt keeps when it ended and which worker ran it: the mark is not an attempt
    // (its instant and actor are in the task log row below)
    expect(await db.task.findUniqueOrThrow({ where: { id: t.a.id }, select: { startedAt: true, completedAt: true, lockedBy: true } }))
      .toEqual({ startedAt: at(1000), completedAt: at(1000), lockedBy: NODE.nodeId });
    const log = (await logsOf(db, t.a.id)).at(-1)!;
    expect(log).toMatchObject({ fromStatus: 'dead', toStatus: 'success', detail: { actor: OPS.name, reason: 'loaded by hand', markedSuccess: true } });
    expect(log.message).toContain('ops@example.com');
    expect(await statsTotals()).toEqual(stats);

    expect(await drive(db, at(3000))).toEqual(['b', 'e']);
    expect((await runOf(runId)).status).toBe('success');
    const audit = await auditOf(jobId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'mark_success', runId, taskId: t.a.id, actor: OPS.name, reason: 'loaded by hand' });
    expect(audit[0].detail).toMatchObject({ stepKey: 'a', fromStatus: 'dead', reopened: 2 });
  });

  it('on a one-step run the run ends success at once and the job follows, even 40 days later', async () => {
    const { jobId, runId } = await startRun({});
    await drive(db, at(1000), { main: 'failed' });
    expect((await runOf(runId)).status).toBe('failed');
    // 40 days is more milliseconds than runs.duration_ms (int4) holds: capped, never an error
    const view = await markTaskSuccessAs(db, (await tasksOf(db, runId)).main.id, { reason: 'ok' }, OPS, at(40 * 86_400_000));
    expect(view.status).toBe('success');
    expect((await runOf(runId)).durationMs).toBe(2147483647);
    expect((await selectLastRun(db, await db.job.findUniqueOrThrow({ where: { id: jobId } })))?.status).toBe('success');
  });

  it('an on_failure child not yet started is skipped by design once its parent is marked success', async () => {
    const { runId } = await startRun({ steps: [{ key: 'a' }, { key: 'fix' }], edges: [{ from: 'a', to: 'fix', type: 'on_failure' }] });
    const [a] = await claim(db, at(1000));
    await completeTask(db, { taskId: a.id, attempt: a.attempt, nodeId: NODE.nodeId, outcome: 'failed', error: 'x' }, at(1000));
    expect(await statusesOf(db, runId)).toEqual({ a: 'dead', fix: 'pending' });
    const view = await markTaskSuccessAs(db, a.id, { reason: 'fine' }, OPS, at(2000));
    expect(await statusesOf(db, runId)).toEqual({ a: 'success', fix: 'skipped' });
    expect(view.status).toBe('success');
  });

  it('refuses viewers, a missing reason, a task that is not dead and an unknown task, writing nothing', async () => {
    const { jobId, runId } = await startRun({});
    await drive(db, at(1000), { main: 'failed' });
    const id = (await tasksOf(db, runId)).main.id;
    await expectDomain(markTaskSuccessAs(db, id, { reason: 'x' }, VIEWER, at(2000)), 'forbidden');
    await expectDomain(markTaskSuccessAs(db, id, {}, OPS, at(2000)), 'validation', 'reason');
    await expectDomain(markTaskSuccessAs(db, id, { reason: '  ' }, OPS, at(2000)), 'validation', 'reason');
    await expectDomain(markTaskSuccessAs(db, id, { reason: 'x', extra: 1 }, OPS, at(2000)), 'validation', 'extra');
    await expectDomain(markTaskSuccessAs(db, '00000000-0000-4000-8000-000000000000', { reason: 'x' }, OPS, at(2000)), 'not_found');
    expect((await tasksOf(db, runId)).main.status).toBe('dead');
    expect(await auditOf(jobId)).toEqual([]);
    await markTaskSuccessAs(db, id, { reason: 'x' }, OPS, at(2000));
    await expectDomain(markTaskSuccessAs(db, id, { reason: 'x' }, OPS, at(3000)), 'conflict');
    expect(await auditOf(jobId)).toHaveLength(1);
  });
});

describe('clear', () => {
  it('re-runs a task and everything downstream in the same run, in DAG order, attempt + 1', async () => {
    const { jobId, runId } = await startRun({ steps: [{ key: 'a' }, { key: 'b' }, { key: 'c' }], edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }] });
    await drive(db, at(1000));
    expect((await runOf(runId)).status).toBe('success');
    const b = (await tasksOf(db, runId)).b;
    const view = await clearTaskAs(db, b.id, { reason: 'bad input file' }, OPS, at(2000));
    expect(view.status).toBe('running');
    const t = await tasksOf(db, runId);
    expect({ a: [t.a.status, t.a.attempt], b: [t.b.status, t.b.attempt, t.b.pendingParents], c: [t.c.status, t.c.attempt, t.c.pendingParents] })
      .toEqual({ a: ['success', 1], b: ['pending', 2, 0], c: ['pending', 2, 1] });
    expect((await logsOf(db, b.id)).at(-1)).toMatchObject({ fromStatus: 'success', toStatus: 'pending', detail: { actor: OPS.name } });
    expect(await drive(db, at(3000))).toEqual(['b', 'c']);
    expect((await runOf(runId)).status).toBe('success');
    const audit = await auditOf(jobId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ action: 'clear', runId, taskId: b.id, actor: OPS.name, reason: 'bad input file', detail: { stepKey: 'b', cleared: ['b', 'c'] } });
  });

  it('clears a dead task with its skipped downstream; a failed run can end success', async () => {
    const { runId } = await startRun({ steps: [{ key: 'a' }, { key: 'b' }], edges: [{ from: 'a', to: 'b' }] });
    await drive(db, at(1000), { a: 'failed' });
    expect((await runOf(runId)).status).toBe('failed');
    await clearTaskAs(db, (await tasksOf(db, runId)).a.id, {}, OPS, at(2000));
    expect(await statusesOf(db, runId)).toEqual({ a: 'pending', b: 'pending' });
    expect(await drive(db, at(3000))).toEqual(['a', 'b']);
    expect((await runOf(runId)).status).toBe('success');
  });

  it('a re-opened task that ends without running again shows no start and no duration of an earlier attempt; an automatic retry waits with none either', async () => {
    const { runId } = await startRun({ steps: [{ key: 'a' }, { key: 'b' }, { key: 'c' }], edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }] });
    await drive(db, at(1000), { a: 'failed' });
    await markTaskSuccessAs(db, (await tasksOf(db, runId)).a.id, { reason: 'loaded by hand' }, OPS, at(2000));
    expect(await drive(db, at(3000))).toEqual(['b', 'c']);
    // clear a: a, b and c re-open (attempt 2); a fails again, so b and c are skipped without running
    await clearTaskAs(db, (await tasksOf(db, runId)).a.id, {}, OPS, at(4000));
    const reopened = await db.task.findMany({ where: { runId }, orderBy: { stepKey: 'asc' } });
    expect(reopened.map((t) => [t.stepKey, t.status, t.attempt, t.startedAt, t.completedAt])).toEqual([
      ['a', 'pending', 2, null, null], ['b', 'pending', 2, null, null], ['c', 'pending', 2, null, null],
    ]);
    await drive(db, at(5000), { a: 'failed' });
    const view = await getRun(db, runId, OPS);
    const shown = Object.fromEntries(view!.tasks.map((t) => [t.stepKey, [t.status, t.attempt, t.startedAt, t.completedAt !== null]]));
    expect(shown).toEqual({ a: ['dead', 2, at(5000).toISOString(), true], b: ['skipped', 2, null, true], c: ['skipped', 2, null, true] });

    // the engine's own retry: the task waits for attempt 2 without attempt 1's start
    const retried = await startRun({ steps: [{ key: 'x', maxRetries: 1 }] });
    const claimed = await claimStep(db, retried.runId, 'x', at(6000));
    await completeTask(db, { taskId: claimed.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'x failed' }, at(6500));
    const x = await db.task.findFirstOrThrow({ where: { runId: retried.runId } });
    expect([x.status, x.attempt, x.startedAt, x.completedAt]).toEqual(['pending', 2, null, null]);
  });

  it('a leaf has no downstream (the run view says so) and its clear is a plain clear of that task alone; viewers are refused', async () => {
    const { jobId, runId } = await startRun({ steps: [{ key: 'a' }, { key: 'b' }, { key: 'c' }], edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c', type: 'soft' }] });
    await drive(db, at(1000));
    const before = await getRun(db, runId, OPS);
    const view = (v: RunView) => Object.fromEntries(v.tasks.map((t) => [t.stepKey, t.children.map((c) => `${c.step} (${c.type})`).sort()]));
    expect(view(before)).toEqual({ a: ['b (hard)', 'c (soft)'], b: [], c: [] });
    const b = (await tasksOf(db, runId)).b;
    await expectDomain(clearTaskAs(db, b.id, {}, VIEWER, at(2000)), 'forbidden');
    expect(await auditOf(jobId)).toEqual([]);

    const after = await clearTaskAs(db, b.id, {}, OPS, at(2000));
    expect(after.status).toBe('running');
    expect(await statusesOf(db, runId)).toEqual({ a: 'success', b: 'pending', c: 'success' });
    expect((await auditOf(jobId))[0]).toMatchObject({ action: 'clear', taskId: b.id, detail: { stepKey: 'b', cleared: ['b'] } });
    expect(await drive(db, at(3000))).toEqual(['b']);
    // b's second attempt was started by the operator's clear, not by its (zero) automatic retries
    const done = await getRun(db, runId, OPS);
    const tb = done.tasks.find((t) => t.stepKey === 'b')!;
    expect([done.status, tb.attempt, tb.maxRetries, tb.operatorAttempts]).toEqual(['success', 2, 0, 1]);
    expect(done.tasks.find((t) => t.stepKey === 'a')!.operatorAttempts).toBe(0);
  });

  it('refuses viewers, a running downstream task, an open task and a task whose parent excludes it, writing nothing', async () => {
    const { jobId, runId } = await startRun({ steps: [{ key: 'a' }, { key: 'b' }, { key: 'c' }], edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c' }] });
    const [a] = await claim(db, at(1000));
    await expectDomain(clearTaskAs(db, a.id, {}, OPS, at(1000)), 'conflict'); // running itself
    await completeTask(db, { taskId: a.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(1000));
    const claimed = await claim(db, at(1500), { limit: 1 }); // b or c running
    expect(claimed).toHaveLength(1);
    const before = await tasksOf(db, runId);
    await expectDomain(clearTaskAs(db, a.id, {}, VIEWER, at(2000)), 'forbidden');
    await expectDomain(clearTaskAs(db, a.id, {}, OPS, at(2000)), 'conflict');
    await expectDomain(clearTaskAs(db, a.id, { why: 'x' }, OPS, at(2000)), 'validation', 'why');
    expect(await tasksOf(db, runId)).toEqual(before);
    expect(await auditOf(jobId)).toEqual([]);

    const { runId: r2 } = await startRun({ steps: [{ key: 'a' }, { key: 'b' }], edges: [{ from: 'a', to: 'b' }] });
    await drive(db, at(3000), { a: 'failed' });
    await expectDomain(clearTaskAs(db, (await tasksOf(db, r2)).b.id, {}, OPS, at(4000)), 'conflict');
  });
});

describe('job counters', () => {
  const countersOf = async (jobId: string) => {
    const j = await db.job.findUniqueOrThrow({ where: { id: jobId } });
    return { total: j.totalRuns, success: j.successRuns, failed: j.failedRuns, last: (await selectLastRun(db, j))?.status, inARow: j.consecutiveFailures };
  };

  it('count each run once, under its latest outcome, through retry, clear and mark success (docs/recovery.md)', async () => {
    const { jobId, runId } = await startRun({});
    await drive(db, at(1000), { main: 'failed' });
    expect(await countersOf(jobId)).toEqual({ total: 1, success: 0, failed: 1, last: 'failed', inARow: 1 });

    // an operator retry that succeeds: the run moves from failed to success, not into both
    await retryTaskAs(db, (await tasksOf(db, runId)).main.id, OPS, at(2000));
    // the job's last run is that run, re-opened: shown as it is now (docs/console.md "Last run")
    expect(await countersOf(jobId)).toEqual({ total: 1, success: 0, failed: 0, last: 'running', inARow: 0 });
    await drive(db, at(3000));
    expect(await countersOf(jobId)).toEqual({ total: 1, success: 1, failed: 0, last: 'success', inARow: 0 });

    // a clear of the succeeded task that then fails: back under failed
    await clearTaskAs(db, (await tasksOf(db, runId)).main.id, {}, OPS, at(4000));
    expect(await countersOf(jobId)).toEqual({ total: 1, success: 0, failed: 0, last: 'running', inARow: 0 });
    await drive(db, at(5000), { main: 'failed' });
    expect(await countersOf(jobId)).toEqual({ total: 1, success: 0, failed: 1, last: 'failed', inARow: 1 });

    // retried and failing again, three times: still one failed run, one in a row toward dead letter
    for (const k of [0, 1, 2]) {
      await retryTaskAs(db, (await tasksOf(db, runId)).main.id, OPS, at(5100 + k * 100));
      await drive(db, at(5150 + k * 100), { main: 'failed' });
    }
    expect(await countersOf(jobId)).toEqual({ total: 1, success: 0, failed: 1, last: 'failed', inARow: 1 });

    // a mark success: under success again, once
    await markTaskSuccessAs(db, (await tasksOf(db, runId)).main.id, { reason: 'done by hand' }, OPS, at(6000));
    expect(await countersOf(jobId)).toEqual({ total: 1, success: 1, failed: 0, last: 'success', inARow: 0 });

    // a second run that fails counts beside it
    const { run } = await triggerRun(db, { jobId, trigger: 'manual', triggeredBy: 't', scheduledFor: at(7000) }, at(7000));
    await drive(db, at(8000), { main: 'failed' });
    expect((await runOf(run.id)).status).toBe('failed');
    expect(await countersOf(jobId)).toEqual({ total: 2, success: 1, failed: 1, last: 'failed', inARow: 1 });
  });
});

describe('backfill', () => {
  // Each job has a handler of its own, so a claim never picks up another test's ready tasks.
  const BF = { ...NODE, handlers: ['bf.work'] };
  const BF3 = { ...NODE, handlers: ['bf.discard'] };
  async function cronJob(spec: JobSpec = {}, cron = '0 * * * *', handler = 'bf.work') {
    const jobId = await insertJob(db, { steps: [{ key: 'main', handler }], ...spec });
    await db.job.update({ where: { id: jobId }, data: { scheduleKind: 'cron', cronExpression: cron, timezone: 'UTC', createdAt: new Date('2026-01-01T00:00:00Z') } });
    return jobId;
  }
  const NOW = new Date('2026-03-02T06:30:00Z');
  const range = { from: '2026-03-02T00:00:00Z', to: '2026-03-02T05:00:00Z' };

  it('previews the slots by the schedule rules, skips slots that already ran, and queues the runs oldest first; a second backfill creates nothing', async () => {
    const jobId = await cronJob();
    const ran = await triggerRun(db, { jobId, trigger: 'schedule', triggeredBy: 'scheduler', scheduledFor: new Date('2026-03-02T02:00:00Z') }, NOW);
    await drive(db, NOW, {}, BF.handlers);
    await db.run.create({ data: { jobId, jobKey: 'k', jobVersion: 1, trigger: 'schedule', triggeredBy: 'scheduler', scheduledFor: new Date('2026-03-02T03:00:00Z'), status: 'skipped', reason: 'misfire', traceId: 'x', finishedAt: NOW } });

    const preview = await previewBackfill(db, jobId, range, OPS, NOW);
    expect(preview.slots.map((s) => [s.scheduledFor.slice(11, 16), s.action])).toEqual([
      ['00:00', 'create'], ['01:00', 'create'], ['02:00', 'skip'], ['03:00', 'create'], ['04:00', 'create'], ['05:00', 'create'],
    ]);
    expect(preview.slots[2]).toMatchObject({ runId: ran.run.id, runStatus: 'success', trigger: 'schedule' });
    expect([preview.create, preview.skip, preview.maxSlots]).toEqual([5, 1, 1000]);
    expect(await db.run.count({ where: { jobId, trigger: 'backfill' } })).toBe(0);

    const r = await backfillJob(db, jobId, { ...range, reason: 'outage on 2 March' }, OPS, NOW);
    expect(r.runIds).toHaveLength(5);
    const runs = await db.run.findMany({ where: { jobId, trigger: 'backfill' }, orderBy: { scheduledFor: 'asc' } });
    expect(runs.map((x) => [x.scheduledFor.toISOString().slice(11, 16), x.status, x.triggeredBy])).toEqual(
      ['00:00', '01:00', '03:00', '04:00', '05:00'].map((h) => [h, 'pending', OPS.name]));
    expect(runs.map((x) => x.reason === null)).toEqual([true, false, false, false, false]);

    // One after the other, oldest slot first.
    const order: string[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await claim(db, new Date(NOW.getTime() + i * 1000), { ...BF, limit: 100 });
      expect(c).toHaveLength(1);
      order.push(c[0].scheduledFor!.toISOString().slice(11, 16));
      await completeTask(db, { taskId: c[0].id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, new Date(NOW.getTime() + i * 1000));
    }
    expect(order).toEqual(['00:00', '01:00', '03:00', '04:00', '05:00']);
    expect(await claim(db, new Date(NOW.getTime() + 9000), BF)).toEqual([]);

    const again = await backfillJob(db, jobId, range, OPS, new Date(NOW.getTime() + 60_000));
    expect([again.create, again.skip, again.runIds.length]).toEqual([0, 6, 0]);
    expect(await db.run.count({ where: { jobId, trigger: 'backfill' } })).toBe(5);

    const audit = (await listJobAudit(db, jobId, VIEWER)).items;
    expect(audit.map((a) => [a.action, a.actor, a.detail.created, a.detail.skipped])).toEqual([
      ['backfill', OPS.name, 0, 6], ['backfill', OPS.name, 5, 1],
    ]);
    expect(audit[1].reason).toBe('outage on 2 March');
  });

  it('backfill runs count their outcomes and durations but no lateness, live and in the rebuild; a scheduled run counts its lateness', async () => {
    const handler = 'bf.lateness';
    const node = { ...NODE, handlers: [handler] };
    const jobId = await cronJob({ maxRetries: 0 }, '0 * * * *', handler);
    // A scheduled fire of 06:00 started at 06:30:01: 1,801,000 ms late.
    await triggerRun(db, { jobId, trigger: 'schedule', triggeredBy: 'scheduler', scheduledFor: new Date('2026-03-02T06:00:00Z') }, NOW);
    const [fired] = await claim(db, new Date(NOW.getTime() + 1000), node);
    expect(fired!.latenessFrom).toEqual(new Date('2026-03-02T06:00:00Z'));
    await completeTask(db, { taskId: fired!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, new Date(NOW.getTime() + 1500));

    // Two backfilled slots, six hours past: one succeeds (the one-statement path), one fails (endAttempt).
    await backfillJob(db, jobId, { from: '2026-03-02T00:00:00Z', to: '2026-03-02T01:00:00Z' }, OPS, NOW);
    for (const [i, outcome] of (['success', 'failed'] as const).entries()) {
      const when = new Date(NOW.getTime() + 2000 + i * 1000);
      const [c] = await claim(db, when, node);
      expect(c!.scheduledFor!.toISOString().slice(11, 16)).toBe(['00:00', '01:00'][i]); // handlers still see their slot
      expect(c!.latenessFrom).toBeNull();
      await completeTask(db, { taskId: c!.id, attempt: 1, nodeId: NODE.nodeId, outcome, error: outcome === 'failed' ? 'no' : undefined }, new Date(when.getTime() + 250));
    }

    const row = await db.handlerStatsDaily.aggregate({
      where: { handler, statDate: new Date('2026-03-02T00:00:00Z') },
      _sum: { success: true, failure: true, totalDurationMs: true, totalLatenessMs: true, latenessCount: true },
    });
    expect(row._sum).toMatchObject({ success: 2, failure: 1, latenessCount: 1 });
    expect(Number(row._sum.totalLatenessMs)).toBe(1_801_000);
    expect(Number(row._sum.totalDurationMs)).toBe(500 + 250 + 250);
    // The rebuild reads the same rule back from task_logs: no drift.
    const rebuilt = await rebuildStats(db, { from: '2026-03-02', to: '2026-03-02' });
    expect(rebuilt.drift.filter((d) => d.handler === handler)).toEqual([]);
  });

  it('two backfills of the same range confirmed at once create each slot once', async () => {
    const jobId = await cronJob({}, '0 * * * *', 'bf.concurrent');
    const [x, y] = await Promise.all([backfillJob(db, jobId, range, OPS, NOW), backfillJob(db, jobId, range, { ...OPS, name: 'other@example.com' }, NOW)]);
    expect(x.runIds.length + y.runIds.length).toBe(6);
    expect([x.runIds.length, y.runIds.length].sort()).toEqual([0, 6]);
    const runs = await db.run.findMany({ where: { jobId, trigger: 'backfill' } });
    expect(new Set(runs.map((r) => r.scheduledFor.getTime())).size).toBe(6);
    expect(await auditOf(jobId)).toHaveLength(2);
  });

  it('discard_later: every slot is queued behind the active run, none is discarded', async () => {
    const jobId = await cronJob({ blockStrategy: 'discard_later' }, '0 * * * *', 'bf.discard');
    const active = await triggerRun(db, { jobId, trigger: 'manual', triggeredBy: 't', scheduledFor: NOW }, NOW);
    const r = await backfillJob(db, jobId, { from: '2026-03-02T00:00:00Z', to: '2026-03-02T01:00:00Z' }, OPS, NOW);
    const runs = await db.run.findMany({ where: { id: { in: r.runIds } }, orderBy: { scheduledFor: 'asc' } });
    expect(runs.map((x) => x.status)).toEqual(['pending', 'pending']);
    expect(runs[0].reason).toContain(active.run.id);
    expect((await claim(db, NOW, BF3)).map((c) => c.runId)).toEqual([active.run.id]);
  });

  it('a slot whose run was cancelled before it started is backfilled; that run then cannot be re-opened or retried (409)', async () => {
    const handler = 'bf.cancelled';
    const node = { ...NODE, handlers: [handler] };
    const jobId = await cronJob({}, '0 * * * *', handler);
    const later = (ms: number) => new Date(NOW.getTime() + ms);
    const slot = (h: string) => new Date(`2026-03-02T${h}:00Z`);
    // 00:00 starts and is then cancelled (it ran: it keeps its slot); 01:00, queued behind it, is
    // cancelled before it started, and so is a schedule run of 02:00.
    const first = await backfillJob(db, jobId, { from: slot('00:00').toISOString(), to: slot('01:00').toISOString() }, OPS, NOW);
    const [started] = await claim(db, NOW, node);
    expect(started!.runId).toBe(first.runIds[0]);
    await cancelRun(db, first.runIds[0]!, OPS.name, later(1000));
    await cancelRun(db, first.runIds[1]!, OPS.name, later(2000));
    const sched = await triggerRun(db, { jobId, trigger: 'schedule', triggeredBy: 'scheduler', scheduledFor: slot('02:00') }, NOW);
    await cancelRun(db, sched.run.id, OPS.name, later(3000));
    expect((await Promise.all([first.runIds[0]!, first.runIds[1]!, sched.run.id].map(runOf))).map((r) => [r.status, r.startedAt !== null]))
      .toEqual([['cancelled', true], ['cancelled', false], ['cancelled', false]]);

    const fourSlots = { from: slot('00:00').toISOString(), to: slot('03:00').toISOString() };
    const preview = await previewBackfill(db, jobId, fourSlots, OPS, NOW);
    expect(preview.slots.map((s) => [s.scheduledFor.slice(11, 16), s.action])).toEqual([['00:00', 'skip'], ['01:00', 'create'], ['02:00', 'create'], ['03:00', 'create']]);
    expect(preview.slots[0]).toMatchObject({ runId: first.runIds[0], runStatus: 'cancelled', trigger: 'backfill' });
    const again = await backfillJob(db, jobId, { from: slot('01:00').toISOString(), to: slot('02:00').toISOString() }, OPS, NOW);
    expect(again.runIds).toHaveLength(2);
    const [new1, new2] = again.runIds;

    // The cancelled runs do not come back: their slots have runs of their own now.
    const before = await db.run.count({ where: { jobId } });
    const cancelledTask = await db.task.findFirstOrThrow({ where: { runId: first.runIds[1]! } });
    await expect(retryTaskAs(db, cancelledTask.id, OPS, later(4000))).rejects.toMatchObject({
      code: 'conflict', message: expect.stringContaining(`cancelled before it started, and its slot has a run of its own since (${new1})`),
    });
    await expect(retryRun(db, first.runIds[1]!, OPS.name, later(4000))).rejects.toMatchObject({
      code: 'conflict', message: expect.stringContaining(`its slot has run ${new1} (pending) of its own`),
    });
    await expect(retryRun(db, sched.run.id, OPS.name, later(4000))).rejects.toMatchObject({
      code: 'conflict', message: expect.stringContaining(`its slot has run ${new2} (pending) of its own`),
    });
    expect(await db.run.count({ where: { jobId } })).toBe(before);
    expect((await runOf(first.runIds[1]!)).status).toBe('cancelled');
    // runs_backfill_slot_uniq refuses a second backfill run of a slot whatever the caller checked
    // (the error names the index of the partition).
    await expect(db.$executeRawUnsafe(
      `UPDATE runs SET status = 'pending', finished_at = NULL WHERE id = $1::uuid`, first.runIds[1]!,
    )).rejects.toThrow(/23505.*duplicate key value violates unique constraint/);
  });

  it('a slot the schedule still fires is left to it: a staggered slot whose nominal instant has passed runs once', async () => {
    const handler = 'bf.stagger';
    // The case needs the 06:00 slot's due instant after `now` (a second past the slot): a job whose
    // stagger offset (hashed from its random id, 0–1800 s) is under 2 s has none; 1 job in 900 is drawn again.
    let jobId = await cronJob({}, '0 * * * *', handler);
    while (staggerOffsetMs(jobId, 1800) < 2000) jobId = await cronJob({}, '0 * * * *', handler);
    const slot = new Date('2026-03-02T06:00:00Z');
    const due = new Date(slot.getTime() + staggerOffsetMs(jobId, 1800));
    await db.job.update({ where: { id: jobId }, data: { staggerSeconds: 1800, nextRunAt: due } });
    const now = new Date(slot.getTime() + 1000);
    const range = { from: '2026-03-02T05:00:00Z', to: '2026-03-02T06:00:00Z' };
    const preview = await previewBackfill(db, jobId, range, OPS, now);
    expect(preview.slots.map((x) => [x.scheduledFor.slice(11, 16), x.action, x.scheduled ?? false])).toEqual([['05:00', 'create', false], ['06:00', 'skip', true]]);
    const r = await backfillJob(db, jobId, range, OPS, now);
    expect([r.create, r.skip, r.runIds.length]).toEqual([1, 1, 1]);
    const [five] = await claim(db, new Date(now.getTime() + 10), { ...NODE, handlers: [handler] });
    await completeTask(db, { taskId: five!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, new Date(now.getTime() + 20));
    // the tick creates 06:00 ahead of its due instant, as it would have without the backfill
    await runTick(db, { limit: 10, lookaheadMs: 3000, misfireGraceMs: 60_000 }, new Date(Math.max(now.getTime(), due.getTime() - 2000)));
    const six = await db.run.findMany({ where: { jobId, scheduledFor: slot } });
    expect(six.map((x) => [x.trigger, x.status])).toEqual([['schedule', 'pending']]);
  });

  it('a run cancelled before it started and then retried keeps its slot; it cannot be re-opened; retry and backfill racing run the slot once', async () => {
    const handler = 'bf.retried';
    const jobId = await cronJob({}, '0 * * * *', handler);
    const node = { ...NODE, handlers: [handler] };
    const later = (ms: number) => new Date(NOW.getTime() + ms);
    const two = { from: '2026-03-02T02:00:00Z', to: '2026-03-02T02:00:00Z' };
    const sched = await triggerRun(db, { jobId, trigger: 'schedule', triggeredBy: 'scheduler', scheduledFor: new Date(two.from) }, NOW);
    await cancelRun(db, sched.run.id, OPS.name, later(1000));
    const retried = await retryRun(db, sched.run.id, OPS.name, later(2000));
    const [c] = await claim(db, later(3000), node);
    expect(c!.runId).toBe(retried.id);
    await completeTask(db, { taskId: c!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, later(4000));
    const preview = await previewBackfill(db, jobId, two, OPS, later(5000));
    expect(preview.slots).toEqual([expect.objectContaining({ action: 'skip', runId: sched.run.id, runStatus: 'cancelled' })]);
    expect((await backfillJob(db, jobId, two, OPS, later(5000))).runIds).toEqual([]);
    const task = await db.task.findFirstOrThrow({ where: { runId: sched.run.id } });
    await expect(retryTaskAs(db, task.id, OPS, later(6000))).rejects.toMatchObject({
      code: 'conflict', message: expect.stringContaining(`was retried as run ${retried.id} (success)`),
    });

    // The same, with the retry and a backfill confirmed at once: one of them runs the slot.
    const three = { from: '2026-03-02T03:00:00Z', to: '2026-03-02T03:00:00Z' };
    const other = await triggerRun(db, { jobId, trigger: 'schedule', triggeredBy: 'scheduler', scheduledFor: new Date(three.from) }, later(7000));
    await cancelRun(db, other.run.id, OPS.name, later(8000));
    const [retry, backfill] = await Promise.allSettled([retryRun(db, other.run.id, OPS.name, later(9000)), backfillJob(db, jobId, three, OPS, later(9000))]);
    const ran = (retry.status === 'fulfilled' ? 1 : 0) + (backfill.status === 'fulfilled' ? backfill.value.runIds.length : 0);
    expect(ran).toBe(1);
    if (retry.status === 'rejected') expect(retry.reason).toMatchObject({ code: 'conflict' });
  });

  it('a slot\'s retry chain: a run retried as a new run is not re-opened, by a task retry or a mark success; a chain that never ran leaves the slot free', async () => {
    const handler = 'bf.chain';
    const node = { ...NODE, handlers: [handler] };
    const jobId = await cronJob({ maxRetries: 0 }, '0 * * * *', handler);
    const later = (ms: number) => new Date(NOW.getTime() + ms);
    const fail = async (at: number) => {
      const [c] = await claim(db, later(at), node);
      await completeTask(db, { taskId: c!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'no' }, later(at + 1));
      return c!;
    };
    // S fails, is retried as R1, which fails and is retried as R2: R1 is not re-opened beside R2
    const s1 = await triggerRun(db, { jobId, trigger: 'schedule', triggeredBy: 'scheduler', scheduledFor: new Date('2026-03-02T01:00:00Z') }, NOW);
    const sTask = await fail(10);
    const r1 = await retryRun(db, s1.run.id, OPS.name, later(100));
    const r1Task = await fail(110);
    const r2 = await retryRun(db, r1.id, OPS.name, later(200));
    await expect(retryTaskAs(db, r1Task.id, OPS, later(300))).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining(`retried as run ${r2.id}`) });
    // nor S by a mark success of its one task (nothing downstream to re-open)
    await expect(markTaskSuccessAs(db, sTask.id, { reason: 'done by hand' }, OPS, later(300))).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining(`retried as run ${r1.id}`) });
    expect((await runOf(s1.run.id)).status).toBe('failed');

    // S cancelled before it started, retried as R1, R1 cancelled before it started: nothing ran, the slot is free
    const three = { from: '2026-03-02T03:00:00Z', to: '2026-03-02T03:00:00Z' };
    await cancelRun(db, r2.id, OPS.name, later(400)); // leave the job idle
    const s3 = await triggerRun(db, { jobId, trigger: 'schedule', triggeredBy: 'scheduler', scheduledFor: new Date(three.from) }, later(401));
    await cancelRun(db, s3.run.id, OPS.name, later(402));
    const r3 = await retryRun(db, s3.run.id, OPS.name, later(403));
    await cancelRun(db, r3.id, OPS.name, later(404));
    expect((await backfillJob(db, jobId, three, OPS, later(500))).runIds).toHaveLength(1);
  });

  it('a backfill overrides a skipped record: its run, cancelled before it started, may be retried', async () => {
    const jobId = await cronJob({}, '0 * * * *', 'bf.override');
    const four = { from: '2026-03-02T04:00:00Z', to: '2026-03-02T04:00:00Z' };
    await db.run.create({ data: { jobId, jobKey: 'k', jobVersion: 1, trigger: 'schedule', triggeredBy: 'scheduler', scheduledFor: new Date(four.from), status: 'skipped', reason: 'misfire', traceId: 'x', finishedAt: NOW } });
    const [bf] = (await backfillJob(db, jobId, four, OPS, NOW)).runIds;
    await cancelRun(db, bf!, OPS.name, new Date(NOW.getTime() + 1000));
    const retried = await retryRun(db, bf!, OPS.name, new Date(NOW.getTime() + 2000));
    expect(retried).toMatchObject({ trigger: 'retry', status: 'pending' });
  });

  it("an interval job's slots start one interval after its creation (never fired, the creation instant is no slot), or at its window's start", async () => {
    const jobId = await insertJob(db, { steps: [{ key: 'main', handler: 'bf.work' }] });
    await db.job.update({ where: { id: jobId }, data: { scheduleKind: 'interval', intervalSeconds: 3600, timezone: 'UTC', createdAt: new Date('2026-03-02T01:00:00Z') } });
    const slots = async () => (await previewBackfill(db, jobId, range, OPS, NOW)).slots.map((x) => x.scheduledFor.slice(11, 16));
    expect(await slots()).toEqual(['02:00', '03:00', '04:00', '05:00']);
    await db.job.update({ where: { id: jobId }, data: { startAt: new Date('2026-03-02T01:30:00Z') } });
    expect(await slots()).toEqual(['01:30', '02:30', '03:30', '04:30']);
  });

  it('refuses bad ranges naming the field, more than 1000 slots, manual jobs and viewers, writing nothing', async () => {
    const jobId = await cronJob({}, '* * * * *');
    const before = await db.run.count();
    await expectDomain(previewBackfill(db, jobId, { from: '2026-03-01T00:00:00Z', to: '2026-03-02T00:00:00Z' }, OPS, NOW), 'validation', 'to');
    await expectDomain(backfillJob(db, jobId, { from: '2026-03-01T00:00:00Z', to: '2026-03-02T00:00:00Z' }, OPS, NOW), 'validation', 'to');
    await expectDomain(backfillJob(db, jobId, { from: '2026-03-02T05:00:00Z', to: '2026-03-02T04:00:00Z' }, OPS, NOW), 'validation', 'from');
    await expectDomain(backfillJob(db, jobId, { from: '2026-03-02T05:00:00Z', to: '2026-03-02T07:00:00Z' }, OPS, NOW), 'validation', 'to');
    await expectDomain(backfillJob(db, jobId, { from: 'yesterday', to: '2026-03-02T04:00:00Z' }, OPS, NOW), 'validation', 'from');
    await expectDomain(backfillJob(db, jobId, { to: '2026-03-02T04:00:00Z' }, OPS, NOW), 'validation', 'from');
    await expectDomain(backfillJob(db, jobId, { ...range, slots: 3 }, OPS, NOW), 'validation', 'slots');
    await expectDomain(backfillJob(db, jobId, range, VIEWER, NOW), 'forbidden');
    await expectDomain(previewBackfill(db, jobId, range, VIEWER, NOW), 'forbidden');
    const manual = await insertJob(db, {});
    await expectDomain(backfillJob(db, manual, range, OPS, NOW), 'validation', 'from');
    // exactly 1000 minute slots is allowed
    const ok = await previewBackfill(db, jobId, { from: '2026-03-01T00:00:00Z', to: '2026-03-01T16:39:00Z' }, OPS, NOW);
    expect(ok.create).toBe(1000);
    expect(await db.run.count()).toBe(before);
    expect(await auditOf(jobId)).toEqual([]);
  });
});

describe('REST', () => {
  it('operators backfill, mark success and clear; viewers get 403 and may read the audit; bad input names the field', async () => {
    const jobId = await insertJob(db, {});
    await db.job.update({ where: { id: jobId }, data: { scheduleKind: 'cron', cronExpression: '0 0 * * *', timezone: 'UTC' } });
    const body = { from: '2026-01-01T00:00:00Z', to: '2026-01-03T00:00:00Z' };
    const key = () => ({ 'idempotency-key': crypto.randomUUID() });
    const denied = await call(backfillRoute.POST, 'POST', '/api/v1/x', { token: tokens.viewer, params: { id: jobId }, body, headers: key() });
    expect(denied.status).toBe(403);
    const bad = await call(backfillPreviewRoute.POST, 'POST', '/api/v1/x', { token: tokens.operator, params: { id: jobId }, body: { from: 'x', to: body.to } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.error.fields)).toEqual(['from']);
    const pre = await call(backfillPreviewRoute.POST, 'POST', '/api/v1/x', { token: tokens.operator, params: { id: jobId }, body });
    expect([pre.status, pre.json.create]).toEqual([200, 3]);
    const ok = await call(backfillRoute.POST, 'POST', '/api/v1/x', { token: tokens.operator, params: { id: jobId }, body, headers: key() });
    expect([ok.status, ok.json.runIds.length]).toEqual([201, 3]);

    const { runId } = await startRun({});
    await drive(db, at(1000), { main: 'failed' });
    const taskId = (await tasksOf(db, runId)).main.id;
    expect((await call(markRoute.POST, 'POST', '/api/v1/x', { token: tokens.viewer, params: { id: taskId }, body: { reason: 'x' }, headers: key() })).status).toBe(403);
    const noReason = await call(markRoute.POST, 'POST', '/api/v1/x', { token: tokens.operator, params: { id: taskId }, body: {}, headers: key() });
    expect([noReason.status, Object.keys(noReason.json.error.fields)]).toEqual([400, ['reason']]);
    const marked = await call(markRoute.POST, 'POST', '/api/v1/x', { token: tokens.operator, params: { id: taskId }, body: { reason: 'verified' }, headers: key() });
    expect([marked.status, marked.json.status], JSON.stringify(marked.json)).toEqual([200, 'success']);
    expect((await call(clearRoute.POST, 'POST', '/api/v1/x', { token: tokens.viewer, params: { id: taskId }, body: {}, headers: key() })).status).toBe(403);
    const cleared = await call(clearRoute.POST, 'POST', '/api/v1/x', { token: tokens.operator, params: { id: taskId }, body: {}, headers: key() });
    expect([cleared.status, cleared.json.status]).toEqual([200, 'running']);

    const audit = await call(auditRoute.GET, 'GET', '/api/v1/x', { token: tokens.viewer, params: { id: jobId } });
    expect(audit.status).toBe(200);
    expect(audit.json.items.map((a: { action: string; actor: string }) => [a.action, a.actor])).toEqual([['backfill', byToken('ops')]]);
    // the same range again: every slot has its run, none is created, and a 201 would say otherwise
    const again = await call(backfillRoute.POST, 'POST', '/api/v1/x', { token: tokens.operator, params: { id: jobId }, body, headers: key() });
    expect([again.status, again.json.runIds, again.json.skip]).toEqual([200, [], 3]);
  });
});
