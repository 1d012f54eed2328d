/**
 * What a job in the recycle bin still runs: nothing new.
 * - Retry, clear and mark success of a task whose job is in the recycle bin or was purged: refused
 *   (404, nothing changed), as a retry of its run is (lib/engine/sql/lock-job-row.ts
 *   lockJobRowForReopen). Mark success and clear of a purged job's task answered 500 (a foreign key
 *   on job_audit), and a deleted job's tasks ran again from the recycle bin.
 * - Deleting a job cancels its runs that have not started (lib/engine/cancel-ahead-runs.ts
 *   cancelQueuedRuns): queued serial_execution runs started one after the other after a purge.
 *   So does an edit of what the job runs or where: queued runs ran the command an admin had
 *   replaced (their tasks keep the command of their creation).
 */
import { describe, expect, it } from 'vitest';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as job from '../../app/api/v1/jobs/[id]/route.ts';
import * as purge from '../../app/api/v1/jobs/[id]/purge/route.ts';
import * as restore from '../../app/api/v1/jobs/[id]/restore/route.ts';
import * as trigger from '../../app/api/v1/jobs/[id]/trigger/route.ts';
import * as retryRun from '../../app/api/v1/runs/[id]/retry/route.ts';
import * as retryTask from '../../app/api/v1/tasks/[id]/retry/route.ts';
import * as clearTask from '../../app/api/v1/tasks/[id]/clear/route.ts';
import * as markSuccess from '../../app/api/v1/tasks/[id]/mark-success/route.ts';
import { claimTasks, completeTask, QUEUED_CANCELLED_ERROR } from '../../lib/engine/index.ts';
import { call, useRestFixture, type RestFixture } from '../helpers/rest.ts';
import { claim, NODE } from './engine-fixtures.ts';

describe('task actions on a job in the recycle bin or purged', () => {
  let f: RestFixture;
  useRestFixture([], (x) => (f = x));

  /** A two-step job whose first step failed with no retry left: a dead task, its child skipped. */
  async function failedRun(key: string) {
    const created = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: f.operator, body: {
      key, name: key, schedule: { kind: 'manual' }, policy: { maxRetries: 0 },
      steps: [{ key: 'a', handler: 'builtin.noop' }, { key: 'b', handler: 'builtin.noop' }], edges: [{ from: 'a', to: 'b' }],
    } });
    expect(created.status).toBe(201);
    const run = await call(trigger.POST, 'POST', '/api/v1/jobs/x/trigger', { token: f.operator, params: { id: created.json.id }, body: {} });
    const [task] = (await claim(f.t.db, new Date())).filter((c) => c.runId === run.json.id);
    await completeTask(f.t.db, { taskId: task!.id, attempt: task!.attempt, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, new Date());
    return { jobId: created.json.id as string, runId: run.json.id as string, taskId: task!.id };
  }

  const state = async () => (await f.t.pool.query(`SELECT id, status, attempt FROM tasks ORDER BY id`)).rows;

  it('are refused with 404 naming why, and change nothing; after a restore they work again', async () => {
    const deleted = await failedRun('deleted.job');
    const purged = await failedRun('purged.job');
    // an admin's shell job: the 404 comes before any judgement of the command (there is none left)
    const shell = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: f.admin, body: {
      key: 'purged.shell', name: 'p', schedule: { kind: 'manual' }, handler: 'shell', payload: { command: ['/bin/false'] }, policy: { maxRetries: 0 },
    } });
    const shellRun = await call(trigger.POST, 'POST', '/api/v1/jobs/x/trigger', { token: f.admin, params: { id: shell.json.id }, body: {} });
    const [shellTask] = (await claim(f.t.db, new Date(), { handlers: ['shell'] })).filter((c) => c.runId === shellRun.json.id);
    await completeTask(f.t.db, { taskId: shellTask!.id, attempt: shellTask!.attempt, nodeId: NODE.nodeId, outcome: 'failed', error: 'exit 1' }, new Date());
    expect((await call(job.DELETE, 'DELETE', '/api/v1/jobs/x', { token: f.admin, params: { id: shell.json.id } })).status).toBe(200);
    expect((await call(purge.DELETE, 'DELETE', '/api/v1/jobs/x/purge', { token: f.admin, params: { id: shell.json.id } })).status).toBe(200);
    for (const [route, path] of [[retryTask.POST, 'retry'], [clearTask.POST, 'clear']] as const) {
      const r = await call(route, 'POST', `/api/v1/tasks/x/${path}`, { token: f.operator, params: { id: shellTask!.id }, body: {} });
      expect([path, r.status, r.json.error?.message]).toEqual([path, 404, expect.stringMatching(/was purged/)]);
    }
    expect((await call(job.DELETE, 'DELETE', '/api/v1/jobs/x', { token: f.operator, params: { id: deleted.jobId } })).status).toBe(200);
    expect((await call(job.DELETE, 'DELETE', '/api/v1/jobs/x', { token: f.operator, params: { id: purged.jobId } })).status).toBe(200);
    expect((await call(purge.DELETE, 'DELETE', '/api/v1/jobs/x/purge', { token: f.admin, params: { id: purged.jobId } })).status).toBe(200);
    const before = await state();
    for (const [which, run, why] of [[deleted, 'deleted', /is in the recycle bin: restore it/], [purged, 'purged', /was purged/]] as const) {
      for (const [route, path, body] of [[retryTask.POST, 'retry', {}], [clearTask.POST, 'clear', {}], [markSuccess.POST, 'mark-success', { reason: 'by hand' }]] as const) {
        const r = await call(route, 'POST', `/api/v1/tasks/x/${path}`, { token: f.operator, params: { id: which.taskId }, body });
        expect([run, path, r.status, r.json.error?.code]).toEqual([run, path, 404, 'not_found']);
        expect(r.json.error.message).toMatch(why);
      }
      // as the retry of the whole run is, naming why (a purged job's runs went with it)
      const rr = await call(retryRun.POST, 'POST', '/api/v1/runs/x/retry', { token: f.operator, params: { id: which.runId }, body: {} });
      expect([run, rr.status, rr.json.error?.message]).toEqual([run, 404, expect.stringMatching(run === 'deleted' ? why : /was purged|not found/)]);
    }
    expect(await state()).toEqual(before);
    expect((await call(restore.POST, 'POST', '/api/v1/jobs/x/restore', { token: f.operator, params: { id: deleted.jobId } })).status).toBe(200);
    expect((await call(retryTask.POST, 'POST', '/api/v1/tasks/x/retry', { token: f.operator, params: { id: deleted.taskId }, body: {} })).status).toBe(200);
  });
});

const SLEEPER_NODE = { handlers: ['builtin.sleep'], group: 'default', labels: {}, limit: 10, leaseSeconds: 30 };

/**
 * A serial_execution job made by `token` sleeping 3 s, triggered three times by the operator: the
 * first run started on a worker (node-a), the two after it queued behind it.
 */
async function serialBacklog(f: RestFixture, key: string, token: string) {
  const created = await call(jobs.POST, 'POST', '/api/v1/jobs', { token, body: {
    key, name: 's', schedule: { kind: 'manual' }, handler: 'builtin.sleep', payload: { ms: 3000 }, policy: { blockStrategy: 'serial_execution' },
  } });
  const params = { id: created.json.id as string };
  const runs: string[] = [];
  for (let i = 0; i < 3; i++) runs.push((await call(trigger.POST, 'POST', '/api/v1/jobs/x/trigger', { token: f.operator, params, body: {} })).json.id);
  const started = (await claimTasks(f.t.db, { ...SLEEPER_NODE, nodeId: 'node-a' }, new Date())).filter((c) => runs.includes(c.runId));
  expect(started.map((c) => c.runId)).toEqual([runs[0]]);
  return { params, runs, started };
}

describe('deleting a job', () => {
  let f: RestFixture;
  useRestFixture([], (x) => (f = x));

  it('cancels its runs that have not started (queued, held by a worker); the run going finishes', async () => {
    const { params, runs, started } = await serialBacklog(f, 'serial.sleeper', f.operator);
    expect((await call(job.DELETE, 'DELETE', '/api/v1/jobs/x', { token: f.operator, params })).status).toBe(200);
    const after = await f.t.db.run.findMany({ where: { id: { in: runs } } });
    const byId = new Map(after.map((r) => [r.id, r]));
    expect(byId.get(runs[0]!)!.status).not.toBe('cancelled');
    for (const id of runs.slice(1)) {
      expect(byId.get(id)).toMatchObject({ status: 'cancelled', error: expect.stringMatching(new RegExp(`^${QUEUED_CANCELLED_ERROR}job deleted by token:ops`)) });
    }
    // (below: an edit of the command does the same; a rename does not)
    // when the first ends, nothing else of the job starts
    await completeTask(f.t.db, { taskId: started[0]!.id, attempt: started[0]!.attempt, nodeId: 'node-a', outcome: 'success' }, new Date());
    expect((await claimTasks(f.t.db, { ...SLEEPER_NODE, nodeId: 'node-b' }, new Date())).filter((c) => runs.includes(c.runId))).toEqual([]);
  });
});

describe('editing what a job runs', () => {
  let f: RestFixture;
  useRestFixture([], (x) => (f = x));

  it('cancels its runs that have not started; an edit of anything else leaves them queued', async () => {
    const { params, runs } = await serialBacklog(f, 'serial.edited', f.admin);
    const statuses = async () => (await f.t.db.run.findMany({ where: { id: { in: runs } }, orderBy: { createdAt: 'asc' } })).map((r) => r.status);
    // a description: nothing of what runs changed
    expect((await call(job.PATCH, 'PATCH', '/api/v1/jobs/x', { token: f.admin, params, body: { expectedVersion: 1, description: 'slow one' } })).status).toBe(200);
    // (a one-step run reads pending until its attempt has lasted a moment: docs/engine.md "Run start")
    expect(await statuses()).toEqual(['pending', 'pending', 'pending']);
    // the payload: the two queued runs would sleep the old 3 s
    const edited = await call(job.PATCH, 'PATCH', '/api/v1/jobs/x', { token: f.admin, params, body: { expectedVersion: 2, payload: { ms: 10 } } });
    expect(edited.status).toBe(200);
    const after = await f.t.db.run.findMany({ where: { id: { in: runs } }, orderBy: { createdAt: 'asc' } });
    expect(after.map((r) => r.status)).toEqual(['pending', 'cancelled', 'cancelled']);
    expect((await f.t.db.task.findFirstOrThrow({ where: { runId: runs[0] } })).status).toBe('running');
    expect(after[1]!.error).toMatch(new RegExp(`^${QUEUED_CANCELLED_ERROR}the job's command or routing was changed by token:admin`));
  });
});
