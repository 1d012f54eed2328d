/**
 * Bulk enqueue: POST /api/v1/jobs/:id/trigger with { runs: [...] } (docs/on-time.md) and the
 * engine's triggerRuns: one transaction, runs in input order, the Idempotency-Key covering the
 * batch, bad entries refused by path with nothing written, block strategies applied in order.
 */
import { describe, expect, it } from 'vitest';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as trigger from '../../app/api/v1/jobs/[id]/trigger/route.ts';
import { claimTasks, completeTask, triggerRuns } from '../../lib/engine/index.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { call, useRestFixture, byToken } from '../helpers/rest.ts';
import { insertJob } from './worker-fixtures.ts';

describe('bulk trigger', () => {
  let t: TestDatabase;
  let operator: string;
  let viewer: string;
  useRestFixture([], (f) => ({ t, operator, viewer } = f));

  const manualJob = async (key: string, extra: Record<string, unknown> = {}) => {
    const c = await call(jobs.POST, 'POST', '/api/v1/jobs', {
      token: operator,
      body: { key, name: key, schedule: { kind: 'manual' }, handler: 'builtin.echo', payload: { base: 1 }, ...extra },
    });
    expect(c.status).toBe(201);
    return c.json.id as string;
  };

  it('creates every run with its tasks in order (201 { runs }), and the Idempotency-Key covers the batch', async () => {
    const id = await manualJob('bulk.order', { policy: { blockStrategy: 'serial_execution' } });
    const body = { runs: Array.from({ length: 300 }, (_, i) => ({ payload: { i } })) };
    const headers = { 'idempotency-key': 'bulk-1' };
    const r = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params: { id }, body, headers });
    expect(r.status).toBe(201);
    expect(r.json.runs).toHaveLength(300);
    expect(r.json.runs.map((x: { params: { i: number } }) => x.params.i)).toEqual(body.runs.map((x) => x.payload.i));
    expect(r.json.runs[0]).toMatchObject({ jobId: id, trigger: 'api', triggeredBy: byToken('ops'), status: 'pending', outcome: 'started' });
    expect(r.json.runs[1]).toMatchObject({ outcome: 'queued', reason: `queued: waiting for run ${r.json.runs[0].id} (serial_execution)` });
    const tasks = await t.pool.query(`SELECT t.payload, r.id AS run_id FROM tasks t JOIN runs r ON r.id = t.run_id WHERE r.job_id = $1`, [id]);
    expect(tasks.rows).toHaveLength(300);
    const byRun = new Map(tasks.rows.map((x) => [x.run_id, x.payload]));
    expect(byRun.get(r.json.runs[7].id)).toEqual({ base: 1, i: 7 });
    const logs = await t.pool.query(`SELECT count(*)::int AS n FROM task_logs l JOIN runs r ON r.id = l.run_id WHERE r.job_id = $1`, [id]);
    expect(logs.rows[0].n).toBe(300);
    const job = await t.db.job.findUniqueOrThrow({ where: { id } });
    expect(job.totalRuns).toBe(300);

    const again = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params: { id }, body, headers });
    expect(again.status).toBe(201);
    expect(again.json.runs.map((x: { id: string }) => x.id)).toEqual(r.json.runs.map((x: { id: string }) => x.id));
    expect(await t.db.run.count({ where: { jobId: id } })).toBe(300);
  });

  it('refuses a bad entry, an empty or oversized list, and payload with runs, naming the field; nothing is written', async () => {
    const id = await manualJob('bulk.bad');
    const cases: [unknown, string][] = [
      [{ runs: [{ payload: { ok: 1 } }, { payload: 'x' }] }, 'runs.1.payload'],
      [{ runs: [{ payload: {}, extra: 1 }] }, 'runs.0'],
      [{ runs: [] }, 'runs'],
      [{ runs: Array.from({ length: 1001 }, () => ({})) }, 'runs'],
      [{ runs: [{}], payload: {} }, 'runs'],
      [{ runs: 'all' }, 'runs'],
    ];
    for (const [body, field] of cases) {
      const r = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params: { id }, body });
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(Object.keys(r.json.error.fields ?? {}).some((k) => k === field || k.startsWith(`${field}.`)), JSON.stringify(r.json)).toBe(true);
    }
    expect(await t.db.run.count({ where: { jobId: id } })).toBe(0);
    const denied = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: viewer, params: { id }, body: { runs: [{}] } });
    expect(denied.status).toBe(403);
  });

  it('the single-run body still answers one run', async () => {
    const id = await manualJob('bulk.single');
    const r = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params: { id }, body: { payload: { y: 2 } } });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ jobId: id, outcome: 'started', params: { y: 2 } });
    expect(r.json.runs).toBeUndefined();
  });

  it('block strategies apply in order: discard_later starts one, cover_early keeps the last and cancels the active run', async () => {
    const now = new Date('2026-12-03T00:00:00Z');
    const discard = await insertJob(t.db, { key: 'bulk.discard', scheduleKind: 'manual', blockStrategy: 'discard_later' });
    const d = await triggerRuns(t.db, { jobId: discard, trigger: 'api', triggeredBy: 'test', scheduledFor: now, runs: [{}, {}, {}] }, now);
    expect(d.map((x) => [x.outcome, x.run.status])).toEqual([['started', 'pending'], ['skipped', 'skipped'], ['skipped', 'skipped']]);
    expect(d[1]!.run.reason).toBe(`blocked: previous run ${d[0]!.run.id} still active`);

    const cover = await insertJob(t.db, { key: 'bulk.cover', scheduleKind: 'manual', blockStrategy: 'cover_early' });
    const [first] = await triggerRuns(t.db, { jobId: cover, trigger: 'api', triggeredBy: 'test', scheduledFor: now, runs: [{}] }, now);
    const c = await triggerRuns(t.db, { jobId: cover, trigger: 'api', triggeredBy: 'test', scheduledFor: now, runs: [{}, {}] }, now);
    expect(c.map((x) => x.outcome)).toEqual(['skipped', 'covered']);
    const old = await t.db.run.findUniqueOrThrow({ where: { id: first!.run.id } });
    expect(old.status).toBe('cancelled');
  });

  it('serial_execution: the runs of one bulk trigger start one after the other in input order', async () => {
    const now = new Date('2026-12-03T00:00:00Z');
    const handler = 'bulk.serial';
    const id = await insertJob(t.db, { key: 'bulk.serial', scheduleKind: 'manual', blockStrategy: 'serial_execution', steps: [{ handler }] });
    const made = await triggerRuns(t.db, { jobId: id, trigger: 'api', triggeredBy: 'test', scheduledFor: now, runs: Array.from({ length: 12 }, (_, i) => ({ payload: { i } })) }, now);
    const order: number[] = [];
    const node = { nodeId: 'node-a', handlers: [handler], group: 'default', labels: {}, limit: 10, leaseSeconds: 30 };
    for (let k = 0; k < 13; k++) {
      const got = await claimTasks(t.db, node, now);
      expect(got.length).toBeLessThanOrEqual(1); // one run of the job at a time
      for (const x of got) {
        order.push(made.findIndex((m) => m.run.id === x.runId));
        await completeTask(t.db, { taskId: x.id, attempt: x.attempt, nodeId: node.nodeId, outcome: 'success' }, now);
      }
    }
    expect(order).toEqual(made.map((_, i) => i));
  });
});
