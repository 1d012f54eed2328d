/**
 * Each attack docs/security.md lists, replayed: refused with a status and a
 * message, and nothing changed in the database.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { clientAddress } from '../../lib/auth/client-address.ts';
import { parseCidr } from '../../lib/net/cidr.ts';
import { login } from '../../lib/auth/login.ts';
import { LoginRateLimiter } from '../../lib/auth/rate-limit.ts';
import { createApiToken } from '../../lib/auth/tokens.ts';
import { createUser, deleteUser, updateUser } from '../../lib/auth/users.ts';
import { refusedHostMessage } from '../../lib/net/outbound.ts';
import { deliverAlarm } from '../../lib/alarms/deliver.ts';
import { lockDownDataDir, writePrivateFile } from '../../lib/infra/private-files.ts';
import { ensureSystemJobs } from '../../lib/system-jobs/definitions.ts';
import { createHandlerRegistry, loggerTaskLog, unwrapResult, type HandlerContext } from '../../worker/handlers/index.ts';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as job from '../../app/api/v1/jobs/[id]/route.ts';
import * as dag from '../../app/api/v1/jobs/[id]/dag/route.ts';
import * as pause from '../../app/api/v1/jobs/[id]/pause/route.ts';
import * as restore from '../../app/api/v1/jobs/[id]/restore/route.ts';
import * as rollback from '../../app/api/v1/jobs/[id]/rollback/route.ts';
import * as trigger from '../../app/api/v1/jobs/[id]/trigger/route.ts';
import * as cancelRun from '../../app/api/v1/runs/[id]/cancel/route.ts';
import * as retryRun from '../../app/api/v1/runs/[id]/retry/route.ts';
import * as retryTask from '../../app/api/v1/tasks/[id]/retry/route.ts';
import * as clearTask from '../../app/api/v1/tasks/[id]/clear/route.ts';
import * as markSuccess from '../../app/api/v1/tasks/[id]/mark-success/route.ts';
import * as drain from '../../app/api/v1/workers/[id]/drain/route.ts';
import * as resumeWorker from '../../app/api/v1/workers/[id]/resume/route.ts';
import * as tokensRoute from '../../app/api/v1/tokens/route.ts';
import * as importRoute from '../../app/api/v1/jobs/import/route.ts';
import { importCrontab } from '../../lib/jobs/import-crontab.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { deleteJob } from '../../lib/jobs/delete-job.ts';
import { completeTask } from '../../lib/engine/index.ts';
import { claim, NODE } from './engine-fixtures.ts';
import { useTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { call } from '../helpers/rest.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ISSUE_COMMAND = ['/bin/sh', '-c', `id; cat .tickflow/database-url; tr '\\0' '\\n' < /proc/${process.pid}/environ`];

/** Row counts and the state a refused call could change. */
async function snapshot(t: TestDatabase): Promise<unknown> {
  const q = async (sql: string) => (await t.pool.query(sql)).rows;
  return {
    jobs: await q(`SELECT id, status, version, deleted_at, payload, cron_expression FROM jobs ORDER BY id`),
    steps: await q(`SELECT job_id, key, handler, payload, config FROM job_steps ORDER BY job_id, key`),
    versions: await q(`SELECT count(*)::int AS n FROM job_versions`),
    runs: await q(`SELECT count(*)::int AS n FROM runs`),
    tokens: await q(`SELECT id, user_id, scope, revoked_at FROM api_tokens ORDER BY id`),
    workers: await q(`SELECT node_id, status FROM worker_nodes ORDER BY node_id`),
  };
}

describe('attacks on least privilege', () => {
  const t = useTestDatabase();
  let adminId: string;
  let operatorId: string;
  let admin: string;
  let operator: string;
  beforeAll(async () => {
    process.env.DATABASE_URL = t.url;
    adminId = (await createUser(t.db, { email: 'boss@attack.test', password: 'admin-password', role: 'admin' }, SYSTEM_ACTOR)).id;
    operatorId = (await createUser(t.db, { email: 'ops@attack.test', password: 'operator-password', role: 'operator' }, SYSTEM_ACTOR)).id;
    admin = (await createApiToken(t.db, { name: 'boss', scope: 'admin', ownerId: adminId }, SYSTEM_ACTOR)).token;
    operator = (await createApiToken(t.db, { name: 'ops', scope: 'operate', ownerId: operatorId }, SYSTEM_ACTOR)).token;
  });
  afterAll(async () => {
    const { getDb } = await import('../../lib/db.ts');
    await getDb().$disconnect();
  });

  const shellJob = (key: string) => ({ key, name: key, schedule: { kind: 'manual' }, handler: 'shell', payload: { command: ISSUE_COMMAND } });

  it('an operator cannot create a shell job (the id / database-url / environ command)', async () => {
    const before = await snapshot(t);
    const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: shellJob('attack.shell') });
    expect(r.status).toBe(403);
    expect(r.json.error.code).toBe('forbidden');
    expect(r.json.error.message).toBe(
      'Only an admin may create a job running shell: shell runs programs on the worker host, so only an admin may set or change what it runs. You may still change its schedule, pause or resume it.',
    );
    expect(r.json.error.fields).toEqual({ handler: expect.stringMatching(/^shell runs programs/) });
    // nor as one step of a DAG, nor sql on a named connection
    const dagJob = { key: 'attack.dag', name: 'd', schedule: { kind: 'manual' }, steps: [{ key: 'a', handler: 'builtin.noop' }, { key: 'b', handler: 'shell', payload: { command: ['/bin/id'] } }] };
    const d = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: dagJob });
    expect(d.status).toBe(403);
    expect(d.json.error.fields).toEqual({ 'steps.1.handler': expect.any(String) });
    const sql = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'attack.sql', name: 's', schedule: { kind: 'manual' }, handler: 'sql', payload: { connection: 'prod', sql: 'select 1' } } });
    expect(sql.status).toBe(403);
    expect(sql.json.error.message).toMatch(/^Only an admin may create a job running sql: sql on a named connection/);
    expect(await snapshot(t)).toEqual(before);
    // sql on the restricted default connection stays open to operators
    expect((await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'ok.sql', name: 's', schedule: { kind: 'manual' }, handler: 'sql', payload: { sql: 'select 1' } } })).status).toBe(201);
  });

  it('an operator\'s sql job on the default connection: Run now cannot name a connection (single and bulk), the override is judged last', async () => {
    // The reported escalation: the step's connection "" used to win the check while the run's override won at run time.
    const created = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'op.sql.default', name: 's', schedule: { kind: 'manual' }, handler: 'sql', payload: { sql: 'select 1', connection: '' } } });
    expect(created.status).toBe(201);
    const params = { id: created.json.id as string };
    const before = await snapshot(t);
    const steal = { connection: 'admin', sql: 'select email, password_hash from users' };
    const one = await call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: operator, params, body: { payload: steal } });
    expect(one.status).toBe(403);
    expect(one.json.error.message).toMatch(/^Only an admin may override the payload of a job running sql: sql on a named connection/);
    expect(one.json.error.fields).toEqual({ payload: expect.any(String) });
    const bulk = await call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: operator, params, body: { runs: [{ payload: { sql: 'select 2' } }, { payload: steal }] } });
    expect(bulk.status).toBe(403);
    expect(await snapshot(t)).toEqual(before);
    // an override on the default connection is the operator's to make; an admin may name one
    expect((await call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: operator, params, body: { payload: { sql: 'select 2' } } })).status).toBe(201);
    expect((await call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: admin, params, body: { payload: steal } })).status).toBe(201);
  });

  it('on an admin\'s shell job an operator may change the schedule and pause, but not the command or routing (edit, DAG, rollback, restore, Run now override)', async () => {
    const created = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: admin, body: { ...shellJob('admin.shell'), payload: { command: ['/bin/echo', 'hi'] } } });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const params = { id };

    const sched = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params, body: { expectedVersion: 1, schedule: { kind: 'cron', cron: '0 3 * * *', timezone: 'UTC' } } });
    expect(sched.status).toBe(200);
    expect((await call(pause.POST, 'POST', `/api/v1/jobs/${id}/pause`, { token: operator, params, body: {} })).json.status).toBe('paused');

    const before = await snapshot(t);
    const edit = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params, body: { expectedVersion: 3, payload: { command: ISSUE_COMMAND } } });
    expect(edit.status).toBe(403);
    expect(edit.json.error.message).toMatch(/^Only an admin may set or change the command or routing of a job running shell: .* You may still change its schedule, pause or resume it\.$/);
    const swap = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params, body: { expectedVersion: 3, handler: 'builtin.echo' } });
    expect(swap.status).toBe(403);
    // where it runs is part of it: a program allowed on some hosts is not allowed on others (docs/security.md)
    for (const routing of [{ nodeGroup: 'db-hosts' }, { labels: { role: 'primary' } }, { strategy: 'nodes', nodes: ['db-1'] }]) {
      const moved = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params, body: { expectedVersion: 3, routing } });
      expect(moved.status, JSON.stringify(routing)).toBe(403);
      expect(moved.json.error.fields).toEqual({ routing: expect.any(String) });
    }
    const graph = await call(dag.PUT, 'PUT', `/api/v1/jobs/${id}/dag`, { token: operator, params, body: { expectedVersion: 3, steps: [{ key: 'main', handler: 'shell', payload: { command: ['/bin/id'] } }], edges: [] } });
    expect(graph.status).toBe(403);
    const run = await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params, body: { payload: { command: ISSUE_COMMAND } } });
    expect(run.status).toBe(403);
    expect(run.json.error.message).toMatch(/^Only an admin may override the payload of a job running shell/);
    expect(run.json.error.fields).toEqual({ payload: expect.any(String) });
    expect(await snapshot(t)).toEqual(before);
    // Run now without an override is fine
    expect((await call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token: operator, params, body: {} })).status).toBe(201);

    // rollback to a shell version of a job an admin turned into something harmless
    const v = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: admin, params, body: { expectedVersion: 3, handler: 'builtin.echo', payload: {} } });
    expect(v.status).toBe(200);
    const before2 = await snapshot(t);
    const rb = await call(rollback.POST, 'POST', `/api/v1/jobs/${id}/rollback`, { token: operator, params, body: { version: 1 } });
    expect(rb.status).toBe(403);
    expect(rb.json.error.message).toMatch(/^Only an admin may set or change the command or routing of a job running shell/);
    expect(await snapshot(t)).toEqual(before2);
    // a job that runs nothing privileged is the operator's to re-route
    expect((await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params, body: { expectedVersion: v.json.version, routing: { nodeGroup: 'elsewhere' } } })).status).toBe(200);

    // restore of a deleted shell job
    const back = await call(rollback.POST, 'POST', `/api/v1/jobs/${id}/rollback`, { token: admin, params, body: { version: 1 } });
    expect(back.status).toBe(200);
    expect((await call(job.DELETE, 'DELETE', `/api/v1/jobs/${id}`, { token: operator, params, body: {} })).status).toBe(200);
    const before3 = await snapshot(t);
    const rs = await call(restore.POST, 'POST', `/api/v1/jobs/${id}/restore`, { token: operator, params, body: {} });
    expect(rs.status).toBe(403);
    expect(rs.json.error.message).toMatch(/^Only an admin may restore a job running shell/);
    expect(await snapshot(t)).toEqual(before3);
    expect((await call(restore.POST, 'POST', `/api/v1/jobs/${id}/restore`, { token: admin, params, body: {} })).status).toBe(200);
  });

  it("an operator may not rewire an admin's shell DAG (order, or an on_failure edge that decides whether a step runs), but may move its boxes", async () => {
    const steps = [
      { key: 'backup', handler: 'shell', payload: { command: ['/bin/echo', 'backup'] }, position: { x: 0, y: 0 } },
      { key: 'drop', handler: 'shell', payload: { command: ['/bin/echo', 'drop old'] }, position: { x: 200, y: 0 } },
      { key: 'report', handler: 'builtin.echo', position: { x: 400, y: 0 } },
    ];
    const created = await call(jobs.POST, 'POST', '/api/v1/jobs', {
      token: admin,
      body: { key: 'admin.shell-dag', name: 'shell DAG', schedule: { kind: 'manual' }, steps, edges: [{ from: 'backup', to: 'drop' }, { from: 'drop', to: 'report' }] },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const params = { id };
    const before = await snapshot(t);
    const attempts = [
      // drop first, backup after
      [{ from: 'drop', to: 'backup' }, { from: 'backup', to: 'report' }],
      // drop runs only when the backup failed
      [{ from: 'backup', to: 'drop', type: 'on_failure' }, { from: 'drop', to: 'report' }],
      // the builtin step in between: the steps' commands are untouched, the order is not
      [{ from: 'backup', to: 'report' }, { from: 'report', to: 'drop' }],
    ];
    for (const edges of attempts) {
      const r = await call(dag.PUT, 'PUT', `/api/v1/jobs/${id}/dag`, { token: operator, params, body: { expectedVersion: 1, steps, edges } });
      expect(r.status, JSON.stringify(edges)).toBe(403);
      expect(r.json.error.message).toMatch(/^Only an admin may set or change the command or routing of a job running shell/);
      expect(r.json.error.fields).toEqual({ edges: expect.any(String) });
      const patch = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${id}`, { token: operator, params, body: { expectedVersion: 1, edges } });
      expect(patch.status, JSON.stringify(edges)).toBe(403);
    }
    expect(await snapshot(t)).toEqual(before);
    // the same edges in another order and with the default type spelled out change nothing that runs
    const same = await call(dag.PUT, 'PUT', `/api/v1/jobs/${id}/dag`, {
      token: operator,
      params,
      body: { expectedVersion: 1, steps: steps.map((s) => ({ ...s, position: { x: s.position.x, y: 90 } })), edges: [{ from: 'drop', to: 'report', type: 'hard' }, { from: 'backup', to: 'drop' }] },
    });
    expect(same.status).toBe(200);
    // the admin may rewire it
    const v = same.json.version as number;
    const rewired = await call(dag.PUT, 'PUT', `/api/v1/jobs/${id}/dag`, { token: admin, params, body: { expectedVersion: v, steps, edges: attempts[0] } });
    expect(rewired.status).toBe(200);
  });

  it('retrying a run judges its payload override again, on the job as it is now (the retry reuses the old params on the current command)', async () => {
    // An operator's override on a harmless job is theirs to make; once an admin turns the job into
    // shell, a retry of that run would merge the operator's command over the admin's.
    const created = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'op.echo.later.shell', name: 'e', schedule: { kind: 'manual' }, handler: 'builtin.echo', payload: {} } });
    expect(created.status).toBe(201);
    const params = { id: created.json.id as string };
    const run = await call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: operator, params, body: { payload: { command: ISSUE_COMMAND } } });
    expect(run.status).toBe(201);
    const runParams = { id: run.json.id as string };
    expect((await call(cancelRun.POST, 'POST', `/api/v1/runs/${runParams.id}/cancel`, { token: operator, params: runParams, body: {} })).status).toBe(200);
    const made = await call(job.PATCH, 'PATCH', `/api/v1/jobs/${params.id}`, { token: admin, params, body: { expectedVersion: 1, handler: 'shell', payload: { command: ['/bin/true'] } } });
    expect(made.status).toBe(200);
    const before = await snapshot(t);
    const retried = await call(retryRun.POST, 'POST', `/api/v1/runs/${runParams.id}/retry`, { token: operator, params: runParams, body: {} });
    expect(retried.status).toBe(403);
    expect(retried.json.error.message).toMatch(/^Only an admin may retry with its payload override a run of a job running shell: /);
    expect(retried.json.error.fields).toEqual({ payload: expect.any(String) });
    expect(await snapshot(t)).toEqual(before);

    // an admin's Run now naming a connection is not the operator's to repeat either
    const sqlJob = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'op.sql.retry', name: 's', schedule: { kind: 'manual' }, handler: 'sql', payload: { sql: 'select 1' } } });
    const sqlParams = { id: sqlJob.json.id as string };
    const adminRun = await call(trigger.POST, 'POST', `/api/v1/jobs/${sqlParams.id}/trigger`, { token: admin, params: sqlParams, body: { payload: { connection: 'admin', sql: 'select email, password_hash from users' } } });
    expect(adminRun.status).toBe(201);
    const adminRunParams = { id: adminRun.json.id as string };
    expect((await call(cancelRun.POST, 'POST', `/api/v1/runs/${adminRunParams.id}/cancel`, { token: admin, params: adminRunParams, body: {} })).status).toBe(200);
    const before2 = await snapshot(t);
    const again = await call(retryRun.POST, 'POST', `/api/v1/runs/${adminRunParams.id}/retry`, { token: operator, params: adminRunParams, body: {} });
    expect(again.status).toBe(403);
    expect(again.json.error.message).toMatch(/^Only an admin may retry with its payload override a run of a job running sql: sql on a named connection/);
    expect(await snapshot(t)).toEqual(before2);
    // a run without an override is the operator's to retry, and the admin may retry theirs
    expect((await call(retryRun.POST, 'POST', `/api/v1/runs/${adminRunParams.id}/retry`, { token: admin, params: adminRunParams, body: {} })).status).toBe(201);
    const plain = await call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: operator, params, body: {} });
    const plainParams = { id: plain.json.id as string };
    expect((await call(cancelRun.POST, 'POST', `/api/v1/runs/${plainParams.id}/cancel`, { token: operator, params: plainParams, body: {} })).status).toBe(200);
    expect((await call(retryRun.POST, 'POST', `/api/v1/runs/${plainParams.id}/retry`, { token: operator, params: plainParams, body: {} })).status).toBe(201);
  });

  it("retrying or clearing a task of a run with an admin's override needs the role the override needed", async () => {
    // The task keeps the payload its run's override made: retrying it runs that one-off command again.
    const created = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: admin, body: { ...shellJob('admin.shell.oneoff'), payload: { command: ['/bin/echo', 'standing'] } } });
    const params = { id: created.json.id as string };
    const oneOff = await call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: admin, params, body: { payload: { command: ['/bin/sh', '-c', 'echo one-off cleanup'] } } });
    expect(oneOff.status).toBe(201);
    const runParams = { id: oneOff.json.id as string };
    expect((await call(cancelRun.POST, 'POST', `/api/v1/runs/${runParams.id}/cancel`, { token: admin, params: runParams, body: {} })).status).toBe(200);
    const task = (await t.pool.query(`SELECT id::text AS id FROM tasks WHERE run_id = $1`, [runParams.id])).rows[0].id as string;
    const before = await snapshot(t);
    const again = await call(retryTask.POST, 'POST', `/api/v1/tasks/${task}/retry`, { token: operator, params: { id: task }, body: {} });
    expect(again.status).toBe(403);
    expect(again.json.error.message).toMatch(/^Only an admin may run again \(retry, clear or mark success\) a task that keeps an override, or an older command or routing, of a job running shell/);
    expect(again.json.error.fields).toEqual({ task: expect.any(String) });
    const cleared = await call(clearTask.POST, 'POST', `/api/v1/tasks/${task}/clear`, { token: operator, params: { id: task }, body: {} });
    expect(cleared.status).toBe(403);
    expect(await snapshot(t)).toEqual(before);
    // a run without an override is the operator's to retry task by task; the admin may retry the one-off
    const plain = await call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: operator, params, body: {} });
    const plainRun = { id: plain.json.id as string };
    expect((await call(cancelRun.POST, 'POST', `/api/v1/runs/${plainRun.id}/cancel`, { token: operator, params: plainRun, body: {} })).status).toBe(200);
    const plainTask = (await t.pool.query(`SELECT id::text AS id FROM tasks WHERE run_id = $1`, [plainRun.id])).rows[0].id as string;
    expect((await call(retryTask.POST, 'POST', `/api/v1/tasks/${plainTask}/retry`, { token: operator, params: { id: plainTask }, body: {} })).status).toBe(200);
    expect((await call(cancelRun.POST, 'POST', `/api/v1/runs/${plainRun.id}/cancel`, { token: operator, params: plainRun, body: {} })).status).toBe(200);
    expect((await call(retryTask.POST, 'POST', `/api/v1/tasks/${task}/retry`, { token: admin, params: { id: task }, body: {} })).status).toBe(200);
  });

  it('retrying, clearing or marking success on a task of an older run needs an admin once an admin changed or moved the command it keeps', async () => {
    // Tasks keep the command and routing of their run's creation: re-running one after the admin
    // changed the job would be, one task at a time, the rollback an operator may not make.
    const created = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: admin, body: { ...shellJob('admin.shell.changed'), steps: [
      { key: 'a', handler: 'shell', payload: { command: ['/bin/sh', '-c', 'echo OLD-COMMAND-RAN; exit 1'] } },
      { key: 'b', handler: 'shell', payload: { command: ['/bin/echo', 'after'] } },
    ], edges: [{ from: 'a', to: 'b' }], handler: undefined, payload: undefined, policy: { maxRetries: 0 } } });
    expect(created.status).toBe(201);
    const params = { id: created.json.id as string };
    const old = await call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: admin, params, body: {} });
    const runParams = { id: old.json.id as string };
    const taskOf = async (run: string, key: string) => (await t.pool.query(`SELECT id::text AS id FROM tasks WHERE run_id = $1 AND step_key = $2`, [run, key])).rows[0].id as string;
    /** The run's ready step fails on a worker, with no retry left: dead, its child pending. */
    const fail = async (run: string) => {
      const [task] = (await claim(t.db, new Date(), { handlers: ['shell'] })).filter((c) => c.runId === run);
      await completeTask(t.db, { taskId: task!.id, attempt: task!.attempt, nodeId: NODE.nodeId, outcome: 'failed', error: 'exit 1' }, new Date());
    };
    const a = await taskOf(runParams.id, 'a');
    await fail(runParams.id);
    const v = (await t.db.job.findUniqueOrThrow({ where: { id: params.id } })).version;
    const edited = await call(dag.PUT, 'PUT', `/api/v1/jobs/${params.id}/dag`, { token: admin, params, body: { expectedVersion: v, steps: [
      { key: 'a', handler: 'shell', payload: { command: ['/bin/echo', 'NEW-SAFE-COMMAND'] } },
      // b changed too: a mark success of a would release the old b
      { key: 'b', handler: 'shell', payload: { command: ['/bin/echo', 'after, v2'] } },
    ], edges: [{ from: 'a', to: 'b', type: 'hard' }] } });
    expect(edited.status).toBe(200);
    const before = await snapshot(t);
    for (const [route, path] of [[retryTask.POST, 'retry'], [clearTask.POST, 'clear'], [markSuccess.POST, 'mark-success']] as const) {
      const r = await call(route, 'POST', `/api/v1/tasks/${a}/${path}`, { token: operator, params: { id: a }, body: path === 'retry' ? {} : { reason: 'x' } });
      expect([path, r.status, r.json.error?.fields]).toEqual([path, 403, { task: expect.stringContaining('shell runs programs') }]);
    }
    expect(await snapshot(t)).toEqual(before);
    // moved to other hosts counts the same; a run made with the current command is the operator's to retry
    const fresh = await call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: admin, params, body: {} });
    const freshA = await taskOf(fresh.json.id, 'a');
    await fail(fresh.json.id);
    expect((await call(retryTask.POST, 'POST', `/api/v1/tasks/${freshA}/retry`, { token: operator, params: { id: freshA }, body: {} })).status).toBe(200);
    await fail(fresh.json.id);
    const marked = await call(markSuccess.POST, 'POST', `/api/v1/tasks/${freshA}/mark-success`, { token: operator, params: { id: freshA }, body: { reason: 'done by hand' } });
    expect(marked.status).toBe(200);
    const freshB = await taskOf(fresh.json.id, 'b');
    const [b] = (await claim(t.db, new Date(), { handlers: ['shell'] })).filter((c) => c.id === freshB);
    await completeTask(t.db, { taskId: b!.id, attempt: b!.attempt, nodeId: NODE.nodeId, outcome: 'failed', error: 'exit 1' }, new Date());
    expect((await call(retryTask.POST, 'POST', `/api/v1/tasks/${freshB}/retry`, { token: operator, params: { id: freshB }, body: {} })).status).toBe(200);
    await fail(fresh.json.id);
    const v2 = (await t.db.job.findUniqueOrThrow({ where: { id: params.id } })).version;
    expect((await call(job.PATCH, 'PATCH', `/api/v1/jobs/${params.id}`, { token: admin, params, body: { expectedVersion: v2, routing: { nodeGroup: 'elsewhere' } } })).status).toBe(200);
    expect((await call(clearTask.POST, 'POST', `/api/v1/tasks/${freshA}/clear`, { token: operator, params: { id: freshA }, body: {} })).status).toBe(403);
    // the admin may
    expect((await call(retryTask.POST, 'POST', `/api/v1/tasks/${a}/retry`, { token: admin, params: { id: a }, body: {} })).status).toBe(200);

    // rewired counts the same: an on_failure cleanup the admin made a hard dependency would run again through the old edge
    const rewired = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: admin, body: { key: 'admin.shell.rewired', name: 'r', schedule: { kind: 'manual' }, policy: { maxRetries: 0 },
      steps: [{ key: 'a', handler: 'shell', payload: { command: ['/bin/false'] } }, { key: 'c', handler: 'shell', payload: { command: ['/bin/echo', 'CLEANUP-RAN'] } }],
      edges: [{ from: 'a', to: 'c', type: 'on_failure' }] } });
    const rp = { id: rewired.json.id as string };
    const rrun = await call(trigger.POST, 'POST', `/api/v1/jobs/${rp.id}/trigger`, { token: admin, params: rp, body: {} });
    await fail(rrun.json.id);
    expect((await call(dag.PUT, 'PUT', `/api/v1/jobs/${rp.id}/dag`, { token: admin, params: rp, body: { expectedVersion: 1,
      steps: [{ key: 'a', handler: 'shell', payload: { command: ['/bin/false'] } }, { key: 'c', handler: 'shell', payload: { command: ['/bin/echo', 'CLEANUP-RAN'] } }],
      edges: [{ from: 'a', to: 'c', type: 'hard' }] } })).status).toBe(200);
    const ra = await taskOf(rrun.json.id, 'a');
    const cleared = await call(clearTask.POST, 'POST', `/api/v1/tasks/${ra}/clear`, { token: operator, params: { id: ra }, body: {} });
    expect([cleared.status, Object.keys(cleared.json.error?.fields ?? {})]).toEqual([403, ['task']]);

    // only what the action runs again is judged: a leaf that runs nothing privileged, in a run whose
    // shell step the admin changed, is the operator's to clear; the shell step is not
    const mixed = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: admin, body: { key: 'admin.shell.mixed', name: 'm', schedule: { kind: 'manual' }, policy: { maxRetries: 0 },
      steps: [{ key: 'a', handler: 'shell', payload: { command: ['/bin/false'] } }, { key: 'b', handler: 'builtin.noop' }],
      edges: [{ from: 'a', to: 'b', type: 'soft' }] } });
    const mp = { id: mixed.json.id as string };
    const mrun = await call(trigger.POST, 'POST', `/api/v1/jobs/${mp.id}/trigger`, { token: admin, params: mp, body: {} });
    await fail(mrun.json.id);
    const [mb] = (await claim(t.db, new Date(), { handlers: ['builtin.noop'] })).filter((c) => c.runId === mrun.json.id);
    await completeTask(t.db, { taskId: mb!.id, attempt: mb!.attempt, nodeId: NODE.nodeId, outcome: 'success' }, new Date());
    expect((await call(dag.PUT, 'PUT', `/api/v1/jobs/${mp.id}/dag`, { token: admin, params: mp, body: { expectedVersion: 1,
      steps: [{ key: 'a', handler: 'shell', payload: { command: ['/bin/echo', 'NEW'] } }, { key: 'b', handler: 'builtin.noop' }],
      edges: [{ from: 'a', to: 'b', type: 'soft' }] } })).status).toBe(200);
    expect((await call(clearTask.POST, 'POST', `/api/v1/tasks/${mb!.id}/clear`, { token: operator, params: { id: mb!.id }, body: {} })).status).toBe(200);
    const ma = await taskOf(mrun.json.id, 'a');
    expect((await call(retryTask.POST, 'POST', `/api/v1/tasks/${ma}/retry`, { token: operator, params: { id: ma }, body: {} })).status).toBe(403);
  });

  it('a Run now override is judged under the job lock: an admin turning the job into shell meanwhile does not let it through', async () => {
    // The override used to be checked on a read before the engine locked the job: a trigger racing an
    // admin's edit (echo -> shell) passed the check on the old graph and ran its argv on the new one.
    const created = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'op.echo.race', name: 'e', schedule: { kind: 'manual' }, handler: 'builtin.echo', payload: {} } });
    const params = { id: created.json.id as string };
    const admin = await t.pool.connect();
    try {
      // the admin's edit, holding the job row as update-job does, not committed yet
      await admin.query('BEGIN');
      await admin.query('SELECT id FROM jobs WHERE id = $1 FOR UPDATE', [params.id]);
      await admin.query(`UPDATE job_steps SET handler = 'shell', payload = '{"command": ["/bin/true"]}' WHERE job_id = $1`, [params.id]);
      const racing = call(trigger.POST, 'POST', `/api/v1/jobs/${params.id}/trigger`, { token: operator, params, body: { payload: { command: ISSUE_COMMAND } } });
      // the trigger has read the committed (echo) graph and now waits for the job row
      await expect.poll(async () => (await t.pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`)).rows[0].n, { timeout: 10_000 }).toBeGreaterThan(0);
      await admin.query('COMMIT');
      const r = await racing;
      expect(r.status).toBe(403);
      expect(r.json.error.message).toMatch(/^Only an admin may override the payload of a job running shell/);
    } finally {
      await admin.query('ROLLBACK').catch(() => undefined);
      admin.release();
    }
    const runs = await t.pool.query(`SELECT count(*)::int AS n FROM runs WHERE job_id = $1`, [params.id]);
    expect(runs.rows[0].n).toBe(0);
  });

  it('system.* handlers only run in the system jobs: no user creates one, and an operator cannot shrink retention', async () => {
    await ensureSystemJobs(t.db);
    const retention = await t.db.job.findFirstOrThrow({ where: { key: 'system.retention' } });
    const before = await snapshot(t);
    const body = { key: 'attack.retention', name: 'r', schedule: { kind: 'interval', intervalSeconds: 60 }, handler: 'system.retention', payload: { olderThanDays: 0.00001 } };
    for (const token of [operator, admin]) {
      const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token, body });
      expect(r.status).toBe(403);
      expect(r.json.error.message).toMatch(/^Only the system may create a job running system\.retention: system\.retention belongs to the system jobs/);
    }
    const params = { id: retention.id };
    const patch = await call(job.PATCH, 'PATCH', '/api/v1/jobs/x', { token: operator, params, body: { expectedVersion: retention.version, payload: { olderThanDays: 0.00001 } } });
    expect(patch.status).toBe(403);
    // the refusal names the field the request set what runs with, never one it did not send
    const reason = expect.stringMatching(/^system\.retention belongs to the system jobs/);
    expect(patch.json.error.fields).toEqual({ payload: reason });
    const viaSteps = { expectedVersion: retention.version, steps: [{ key: 'main', handler: 'system.retention', payload: { olderThanDays: 0.00001 } }] };
    expect((await call(job.PATCH, 'PATCH', '/api/v1/jobs/x', { token: operator, params, body: viaSteps })).json.error.fields).toEqual({ 'steps.0.handler': reason });
    expect((await call(job.PATCH, 'PATCH', '/api/v1/jobs/x', { token: operator, params, body: { expectedVersion: retention.version, handler: 'builtin.noop' } })).json.error.fields).toEqual({ handler: reason });
    const created = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { ...body, handler: undefined, payload: undefined, steps: [{ key: 'main', handler: 'system.retention' }] } });
    expect([created.status, created.json.error.fields]).toEqual([403, { 'steps.0.handler': reason }]);
    const run = await call(trigger.POST, 'POST', '/api/v1/jobs/x/trigger', { token: operator, params, body: { payload: { olderThanDays: 0.00001 } } });
    expect(run.status).toBe(403);
    expect(await snapshot(t)).toEqual(before);
    // its schedule stays an operator's to change
    const s = await call(job.PATCH, 'PATCH', '/api/v1/jobs/x', { token: operator, params, body: { expectedVersion: retention.version, schedule: { kind: 'cron', cron: '19 * * * *', timezone: 'UTC' } } });
    expect(s.status).toBe(200);
  });

  it('no user takes over a system job\'s identity: its key and name are the system\'s, and system. keys are reserved on create, update, import and restore', async () => {
    await ensureSystemJobs(t.db);
    const stats = await t.db.job.findFirstOrThrow({ where: { key: 'system.stats-check' } });
    const params = { id: stats.id };
    const before = await snapshot(t);
    const patch = (token: string, body: Record<string, unknown>, id = stats.id) => call(job.PATCH, 'PATCH', '/api/v1/jobs/x', { token, params: { id }, body });
    const systemJob = 'system.stats-check is a system job: only the system may change its key or name, so that no job can pass for it. You may still change its schedule, pause or resume it.';
    for (const token of [operator, admin]) {
      // the reported spoof: rename it away, then take its key
      const rename = await patch(token, { expectedVersion: stats.version, key: 'not.system', name: 'Harmless noop' });
      expect([rename.status, rename.json.error.code, rename.json.error.fields]).toEqual([403, 'forbidden', { key: systemJob }]);
      const name = await patch(token, { expectedVersion: stats.version, name: 'Harmless noop' });
      expect([name.status, name.json.error.fields]).toEqual([403, { name: systemJob }]);
      for (const key of ['system.stats-check', 'System.Stats-Check', 'system.mine', 'system:stats-check', 'system_stats-check', 'system-stats-check']) {
        const spoof = await call(jobs.POST, 'POST', '/api/v1/jobs', { token, body: { key, name: 'Spoof', schedule: { kind: 'manual' }, handler: 'builtin.noop' } });
        expect([spoof.status, spoof.json.error.fields], key).toEqual([403, { key: 'Keys starting with "system" and ".", ":", "_" or "-" are reserved for Tickflow\'s system jobs; choose another key' }]);
      }
      const imported = await call(importRoute.POST, 'POST', '/api/v1/jobs/import', { token, body: { text: '0 2 * * * /bin/true', timezone: 'UTC', keyPrefix: 'system', dryRun: true } });
      // an operator may not import shell jobs at all (`text`); an admin not under a system. prefix
      expect([imported.status, Object.keys(imported.json.error?.fields ?? {})]).toEqual([403, token === admin ? ['keyPrefix'] : ['text']]);
    }
    // the crontab CLI acts as the system, and still imports no shell job under a system. key
    await expect(importCrontab(t.db, { text: '0 2 * * * /bin/true', timezone: 'UTC', keyPrefix: 'System.x' }, SYSTEM_ACTOR)).rejects.toMatchObject({ status: 403, fields: { keyPrefix: expect.stringMatching(/reserved/) } });
    expect(await snapshot(t)).toEqual(before);

    // an ordinary job may not move into the namespace either (PATCH, and a rollback goes through the same check)
    const own = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'ops.job', name: 'Ops', schedule: { kind: 'manual' }, handler: 'builtin.noop' } });
    expect(own.status).toBe(201);
    const moved = await patch(operator, { expectedVersion: 1, key: 'system.stats-check2' }, own.json.id);
    expect([moved.status, moved.json.error.fields]).toEqual([403, { key: expect.stringMatching(/^Keys starting with "system" and "\.", ":", "_" or "-" are reserved/) }]);
    // nor take a system job's name, under another key (the reported look-alike beside system.stats-check)
    const lookalike = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: 'systemx.stats-check', name: 'System: stats sanity check', schedule: { kind: 'manual' }, handler: 'builtin.noop' } });
    expect([lookalike.status, lookalike.json.error.fields]).toEqual([403, { name: 'Names starting with "System:" are reserved for Tickflow\'s system jobs; choose another name' }]);
    expect((await patch(operator, { expectedVersion: 1, name: 'System - ops' }, own.json.id)).status).toBe(403);
    // nor with a separator that only looks like one of ":", ".", "-", "_" (the Armenian full stop, the Hebrew sof
    // pasuq, the minus sign, a runic colon), by create, PATCH or crontab import
    for (const [i, name] of ['System\u0589 stats sanity check', 'System\u05c3 stats sanity check', 'System\u2212stats-check', 'System\u16ec stats', 'System\u205a x', 'System / stats'].entries()) {
      const r = await call(jobs.POST, 'POST', '/api/v1/jobs', { token: operator, body: { key: `look.alike${i}`, name, schedule: { kind: 'manual' }, handler: 'builtin.noop' } });
      expect([name, r.status, Object.keys(r.json.error?.fields ?? {})]).toEqual([name, 403, ['name']]);
      expect((await patch(operator, { expectedVersion: 1, name }, own.json.id)).status).toBe(403);
    }
    const imported = await importCrontab(t.db, { text: '0 2 * * * System\u0589 stats sanity check', timezone: 'UTC', dryRun: true }, SYSTEM_ACTOR);
    expect(imported.skipped.map((x) => x.reason)).toEqual([expect.stringMatching(/reserved for Tickflow's system jobs/)]);
    // a name that only begins with the word stays anyone's
    expect((await patch(operator, { expectedVersion: 1, name: 'System backup (legacy)' }, own.json.id)).status).toBe(200);
    // its schedule and its routing stay an operator's to change, and an unchanged key and name pass
    const s = await patch(operator, { expectedVersion: stats.version, key: stats.key, name: stats.name, schedule: { kind: 'cron', cron: '46 0 * * *', timezone: 'UTC' } });
    expect(s.status).toBe(200);
    const routed = await patch(operator, { expectedVersion: s.json.version, routing: { nodeGroup: 'maintenance' } });
    expect([routed.status, routed.json.routing?.nodeGroup]).toEqual([200, 'maintenance']);
    expect((await patch(operator, { expectedVersion: routed.json.version, routing: {}, payload: { days: 9 } })).status).toBe(403);

    // a system job renamed before this rule: a user may put its own key back, nothing else
    await t.pool.query(`UPDATE jobs SET key = 'not.system' WHERE id = $1`, [stats.id]);
    const cur = await t.db.job.findUniqueOrThrow({ where: { id: stats.id } });
    expect((await patch(operator, { expectedVersion: cur.version, key: 'system.retention2' })).status).toBe(403);
    const back = await patch(operator, { expectedVersion: cur.version, key: 'system.stats-check' });
    expect([back.status, back.json.key]).toEqual([200, 'system.stats-check']);

    // restore: a job given a system. key before keys were checked stays in the bin; a system job comes back (admin)
    const legacy = await createJob(t.db, { key: 'legacy.spoof', name: 'Spoof', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, SYSTEM_ACTOR);
    await t.pool.query(`UPDATE jobs SET key = 'system.legacy' WHERE id = $1`, [legacy.id]);
    await deleteJob(t.db, legacy.id, SYSTEM_ACTOR);
    const r = await call(restore.POST, 'POST', '/api/v1/jobs/x/restore', { token: admin, params: { id: legacy.id } });
    expect([r.status, Object.keys(r.json.error.fields)]).toEqual([403, ['key']]);
    expect(r.json.error.message).toMatch(/^Cannot restore: Keys starting with "system" and "\.", ":", "_" or "-" are reserved/);
    expect((await t.db.job.findUniqueOrThrow({ where: { id: legacy.id } })).deletedAt).not.toBeNull();
    const purge = await t.db.job.findFirstOrThrow({ where: { key: 'system.recycle-bin-purge' } });
    await deleteJob(t.db, purge.id, SYSTEM_ACTOR);
    const restored = await call(restore.POST, 'POST', '/api/v1/jobs/x/restore', { token: admin, params: { id: purge.id } });
    expect([restored.status, restored.json.key]).toEqual([200, 'system.recycle-bin-purge']);
  });

  it('draining the only worker needs a confirmation naming the consequence; resume undoes a drain', async () => {
    await t.pool.query(`INSERT INTO worker_nodes (node_id, name, host, pid) VALUES ('only-node', 'only', 'h', 1)`);
    const before = await snapshot(t);
    const r = await call(drain.POST, 'POST', '/api/v1/workers/only-node/drain', { token: operator, params: { id: 'only-node' } });
    expect(r.status).toBe(409);
    expect(r.json.error.message).toBe(
      'only is the last online worker: draining it means no schedule fires and no task runs until a worker is resumed or another one starts. Confirm to drain it anyway (confirmLastWorker: true).',
    );
    expect(await snapshot(t)).toEqual(before);
    expect((await call(drain.POST, 'POST', '/api/v1/workers/only-node/drain', { token: operator, params: { id: 'only-node' }, body: { confirmLastWorker: true } })).json.status).toBe('draining');
    expect((await call(resumeWorker.POST, 'POST', '/api/v1/workers/only-node/resume', { token: operator, params: { id: 'only-node' } })).json.status).toBe('online');
  });

  it('tokens have an owner and die with the owner\'s access: made by a token, disabled, demoted, deleted', async () => {
    const bossId = (await createUser(t.db, { email: 'boss2@attack.test', password: 'admin-password', role: 'admin' }, SYSTEM_ACTOR)).id;
    const first = (await createApiToken(t.db, { name: 'first', scope: 'admin', ownerId: bossId }, SYSTEM_ACTOR)).token;
    const second = await call(tokensRoute.POST, 'POST', '/api/v1/tokens', { token: first, body: { name: 'second', scope: 'admin' } });
    expect(second.status).toBe(201);
    expect(second.json).toMatchObject({ userId: bossId, owner: 'boss2@attack.test', scope: 'admin' });
    const operate = await call(tokensRoute.POST, 'POST', '/api/v1/tokens', { token: first, body: { name: 'operate', scope: 'operate' } });
    const works = async (tk: string) => (await call(jobs.GET, 'GET', '/api/v1/jobs', { token: tk })).status;
    const adminOnly = async (tk: string) => (await call(tokensRoute.GET, 'GET', '/api/v1/tokens', { token: tk })).status;
    expect(await works(second.json.token)).toBe(200);

    const bossActor = { kind: 'user' as const, id: adminId, name: 'boss@attack.test', role: 'admin' as const };
    await updateUser(t.db, bossId, { role: 'operator' }, bossActor);
    // demoted below the admin scope: those tokens are dead; the operate one acts as operator
    for (const tk of [first, second.json.token]) expect(await works(tk)).toBe(401);
    expect(await works(operate.json.token)).toBe(200);
    expect(await adminOnly(operate.json.token)).toBe(403);
    // disabled: every token dies, and enabling the owner again does not bring them back (revoked)
    await updateUser(t.db, bossId, { disabled: true }, bossActor);
    for (const tk of [first, second.json.token, operate.json.token]) expect(await works(tk)).toBe(401);
    await updateUser(t.db, bossId, { disabled: false, role: 'admin' }, bossActor);
    for (const tk of [first, second.json.token, operate.json.token]) expect(await works(tk)).toBe(401);
    await deleteUser(t.db, bossId, bossActor);
    expect(await works(operate.json.token)).toBe(401);
    expect(await t.db.apiToken.count({ where: { userId: bossId } })).toBe(0);

    // a token cannot outrank its owner, and the bootstrap token must name an owner
    const before = await snapshot(t);
    const over = await call(tokensRoute.POST, 'POST', '/api/v1/tokens', { token: admin, body: { name: 'x', scope: 'admin', ownerId: operatorId } });
    expect(over.status).toBe(400);
    expect(over.json.error.fields).toEqual({ scope: "At most the owner's role (operator)" });
    process.env.TICKFLOW_API_TOKEN = 'bootstrap-token-for-the-attack-test';
    try {
      const env = await call(tokensRoute.POST, 'POST', '/api/v1/tokens', { token: 'bootstrap-token-for-the-attack-test', body: { name: 'orphan', scope: 'read' } });
      expect(env.status).toBe(400);
      expect(env.json.error.fields).toEqual({ ownerId: 'Required when the caller is not a user' });
    } finally {
      delete process.env.TICKFLOW_API_TOKEN;
    }
    expect(await snapshot(t)).toEqual(before);
  });

  it('login: a stranger cannot lock a user out from elsewhere, X-Forwarded-For is believed only from trusted proxies, two console processes share the limit', async () => {
    await createUser(t.db, { email: 'victim@attack.test', password: 'victim-password', role: 'viewer' }, SYSTEM_ACTOR);
    const now = new Date();
    // the attacker rotates X-Forwarded-For; the peer is what counts (no trusted proxy configured)
    const consoleA = new LoginRateLimiter();
    const consoleB = new LoginRateLimiter();
    for (let i = 0; i < 5; i++) {
      const client = clientAddress('203.0.113.9', `198.51.100.${i}`, []);
      expect(client).toBe('203.0.113.9');
      await expect(login(t.db, { email: 'victim@attack.test', password: `guess-${i}`, client }, now, i % 2 ? consoleA : consoleB)).rejects.toMatchObject({ code: 'unauthorized' });
    }
    const blocked = login(t.db, { email: 'victim@attack.test', password: 'victim-password', client: clientAddress('203.0.113.9', '192.0.2.77', []) }, now, consoleA);
    await expect(blocked).rejects.toMatchObject({ code: 'rate_limited', status: 429 });
    await expect(blocked).rejects.toThrow(/^Too many failed logins; try again in 15 min$/);
    // the victim, from their own address, is not locked out
    const ok = await login(t.db, { email: 'victim@attack.test', password: 'victim-password', client: '192.0.2.10' }, now, consoleB);
    expect(ok.actor.name).toBe('victim@attack.test');
    // behind a trusted proxy the forwarded address is the client
    expect(clientAddress('10.0.0.5', '198.51.100.7, 10.0.0.6', [parseCidr('10.0.0.0/8')!])).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.5', '198.51.100.7, 10.0.0.6', [])).toBe('10.0.0.5');
    // one address spraying many accounts is stopped too (per-client limit)
    const spray = new LoginRateLimiter(5, 6);
    for (let i = 0; i < 6; i++) await expect(login(t.db, { email: `nobody${i}@attack.test`, password: 'x', client: '203.0.113.50' }, now, spray)).rejects.toMatchObject({ code: 'unauthorized' });
    await expect(login(t.db, { email: 'victim@attack.test', password: 'victim-password', client: '203.0.113.50' }, now, spray)).rejects.toMatchObject({ code: 'rate_limited' });
    // without a known client address, the per-client limit would lock everyone out: only per-account applies
    const blind = new LoginRateLimiter(5, 2);
    for (let i = 0; i < 2; i++) await expect(login(t.db, { email: `other${i}@attack.test`, password: 'x', client: 'unknown' }, now, blind)).rejects.toMatchObject({ code: 'unauthorized' });
    expect((await login(t.db, { email: 'victim@attack.test', password: 'victim-password', client: 'unknown' }, now, blind)).actor.name).toBe('victim@attack.test');
  });

  it('login: guesses sent all at once count as they are checked, not after bcrypt (no burst past the limit)', async () => {
    await createUser(t.db, { email: 'burst@attack.test', password: 'burst-password', role: 'viewer' }, SYSTEM_ACTOR);
    const now = new Date();
    const limiter = new LoginRateLimiter(3, 100);
    // every request reads the count before any of them has recorded its failure
    const guesses = Array.from({ length: 10 }, (_, i) => login(t.db, { email: 'burst@attack.test', password: `burst-guess-${i}`, client: '203.0.113.77' }, now, limiter).then(
      () => 'signed in',
      (e: { code?: string }) => e.code,
    ));
    const outcomes = await Promise.all(guesses);
    // at most the limit get their password checked (a race may refuse one more, never let one more in)
    const checked = outcomes.filter((o) => o === 'unauthorized').length;
    expect(checked).toBeLessThanOrEqual(3);
    expect(outcomes.filter((o) => o === 'rate_limited')).toHaveLength(10 - checked);
    // one by one, the remaining tries of the limit are still there
    for (let i = checked; i < 3; i++) await expect(login(t.db, { email: 'burst@attack.test', password: `burst-late-${i}`, client: '203.0.113.77' }, now, limiter)).rejects.toMatchObject({ code: 'unauthorized' });
    // the right password from that address is refused now too; from another it works
    await expect(login(t.db, { email: 'burst@attack.test', password: 'burst-password', client: '203.0.113.77' }, now, limiter)).rejects.toMatchObject({ code: 'rate_limited' });
    expect((await login(t.db, { email: 'burst@attack.test', password: 'burst-password', client: '203.0.113.78' }, now, limiter)).actor.name).toBe('burst@attack.test');
    // a success clears its own attempt: the owner signing in five times in a row is never limited
    for (let i = 0; i < 5; i++) expect((await login(t.db, { email: 'burst@attack.test', password: 'burst-password', client: '203.0.113.79' }, now, limiter)).actor.name).toBe('burst@attack.test');
  });

  it('passwords over 72 UTF-8 bytes are refused with a field error (bcrypt would ignore the rest)', async () => {
    const before = await t.db.user.count();
    const long = 'p'.repeat(72) + 'tail';
    await expect(createUser(t.db, { email: 'long@attack.test', password: long, role: 'viewer' }, SYSTEM_ACTOR)).rejects.toMatchObject({
      code: 'validation',
      fields: { password: 'At most 72 bytes in UTF-8 (bcrypt ignores anything after that)' },
    });
    // 36 two-byte characters are 72 bytes: fine; 37 are not
    await createUser(t.db, { email: 'utf@attack.test', password: 'é'.repeat(36), role: 'viewer' }, SYSTEM_ACTOR);
    await expect(login(t.db, { email: 'utf@attack.test', password: 'é'.repeat(37), client: '192.0.2.1' })).rejects.toMatchObject({ code: 'validation', fields: { password: expect.any(String) } });
    expect(await t.db.user.count()).toBe(before + 1);
    expect(await t.db.loginFailure.count({ where: { email: 'utf@attack.test' } })).toBe(0);
  });

  describe('outbound calls', () => {
    let server: Server;
    let hits = 0;
    let port = 0;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        hits++;
        res.end('internal secret');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
      delete process.env.TICKFLOW_OUTBOUND_ALLOW;
    });
    afterAll(async () => {
      await new Promise((r) => server.close(r));
    });

    const ctx = (payload: Record<string, unknown>): HandlerContext => {
      const silent = pino({ level: 'silent' });
      return { payload, config: {}, attempt: 1, taskId: 't', runId: 'r', signal: new AbortController().signal, log: silent, taskLog: loggerTaskLog(silent), progress: () => undefined, timeoutMs: 10_000 };
    };

    it('the http executor refuses loopback however spelled, before connecting', async () => {
      const http = createHandlerRegistry().get('http')!;
      for (const url of [`http://127.0.0.1:${port}/`, `http://[::1]:${port}/`]) {
        await expect(http(ctx({ url })), url).rejects.toMatchObject({ detail: { code: 'outbound_refused' }, message: expect.stringMatching(/outbound call refused: \S+ is a loopback address/) });
      }
      // a host name's refusal does not say what it resolved to (lib/net/outbound.ts refusedHostMessage)
      await expect(http(ctx({ url: `http://localhost:${port}/` }))).rejects.toMatchObject({ detail: { code: 'outbound_refused' }, message: expect.stringContaining(refusedHostMessage('localhost')) });
      // a numeric spelling of an address is not a URL Tickflow calls (lib/net/outbound-url.ts)
      await expect(http(ctx({ url: `http://2130706433:${port}/` }))).rejects.toThrow(/payload\.url: has a host written as "2130706433", which is called as 127\.0\.0\.1/);
      expect(hits).toBe(0);
    });

    it('webhook alarms refuse internal addresses too', async () => {
      const alarm = { id: 'a', jobId: null, runId: null, type: 'test', level: 'info', channel: 'webhook', target: `http://127.0.0.1:${port}/hook`, content: {}, count: 1, attempts: 1, createdAt: new Date() } as const;
      await expect(deliverAlarm(alarm as never)).rejects.toThrow(/^webhook outbound call refused: 127\.0\.0\.1 is a loopback address/);
      expect(hits).toBe(0);
      process.env.TICKFLOW_OUTBOUND_ALLOW = `127.0.0.1:${port}`;
      try {
        await deliverAlarm(alarm as never);
        expect(hits).toBe(1);
      } finally {
        delete process.env.TICKFLOW_OUTBOUND_ALLOW;
      }
    });

    it('a webhook receiver that streams an endless answer costs a few KB: delivery reads 4 KB of it and ends', async () => {
      // 64 KB chunks for as long as the client reads: reading the whole answer would hold the worker until the timeout
      const endless = createServer((req, res) => {
        res.writeHead(req.url === '/refuse' ? 500 : 200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const pump = () => { while (!res.destroyed && res.write(chunk)); };
        res.on('drain', pump);
        pump();
      });
      await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
      const endlessPort = (endless.address() as { port: number }).port;
      process.env.TICKFLOW_OUTBOUND_ALLOW = `127.0.0.1:${endlessPort}`;
      try {
        const alarm = { id: 'b', jobId: null, runId: null, type: 'test', level: 'info', channel: 'webhook', content: {}, count: 1, attempts: 1, createdAt: new Date() } as const;
        await deliverAlarm({ ...alarm, target: `http://127.0.0.1:${endlessPort}/ok` } as never, { timeoutMs: 5_000 });
        const refused = await deliverAlarm({ ...alarm, target: `http://127.0.0.1:${endlessPort}/refuse` } as never, { timeoutMs: 5_000 }).then(() => null, (e: Error) => e);
        expect(refused?.message).toMatch(/^webhook answered HTTP 500: x{200}$/);
      } finally {
        delete process.env.TICKFLOW_OUTBOUND_ALLOW;
        endless.closeAllConnections();
        await new Promise((r) => endless.close(r));
      }
    });

    it('a receiver\'s refusal that quotes the webhook path or query (its token), as sent, normalised, decoded or only the token, does not give them back in the delivery error', async () => {
      const echo = createServer((req, res) => {
        res.writeHead(404, { 'content-type': 'text/plain' });
        // as routers and token checks answer: the path as sent, then normalised, then only its last
        // segment and the query's token value, decoded
        const u = new URL(req.url!, 'http://x');
        res.end(`No route POST ${req.url} (full: http://${req.headers.host}${req.url}); normalised ${u.pathname.replace(/\/{2,}/g, '/')}; `
          + `unknown token ${decodeURIComponent(u.pathname.split('/').pop()!)}; token value ${u.searchParams.get('token')}`);
      });
      await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
      const port = (echo.address() as { port: number }).port;
      process.env.TICKFLOW_OUTBOUND_ALLOW = `127.0.0.1:${port}`;
      try {
        const alarm = { id: 'c', jobId: null, runId: null, type: 'test', level: 'info', channel: 'webhook', content: {}, count: 1, attempts: 1, createdAt: new Date() } as const;
        const refused = await deliverAlarm({ ...alarm, target: `http://127.0.0.1:${port}/hooks//SECRET%2DPATH?token=SECRETQ` } as never, { timeoutMs: 5_000 }).then(() => null, (e: Error) => e);
        expect(refused?.message).toMatch(/^webhook answered HTTP 404: No route POST …/);
        expect(refused?.message).toMatch(/; unknown token …; token value …$/);
        expect(refused?.message).not.toMatch(/SECRET/i);
      } finally {
        delete process.env.TICKFLOW_OUTBOUND_ALLOW;
        await new Promise((r) => echo.close(r));
      }
    });
  });

  it('a shell task sees no secret: scrubbed environment, no database URL, no worker environ', async () => {
    const dataDir = path.join(ROOT, '.tickflow', `attack-${process.pid}`);
    mkdirSync(dataDir, { recursive: true });
    const secretUrl = 'postgresql://postgres:very-secret-db-password@127.0.0.1:1/tickflow';
    writePrivateFile(path.join(dataDir, 'database-url'), `${secretUrl}\n`);
    lockDownDataDir(dataDir);
    const secrets = { TICKFLOW_API_TOKEN: 'tf-env-secret-token', TICKFLOW_ADMIN_PASSWORD: 'env-admin-password', TICKFLOW_WEBHOOK_SECRET: 'env-webhook-secret' };
    Object.assign(process.env, secrets);
    try {
      const shell = createHandlerRegistry({ allowShell: true }).get('shell')!;
      const script = `id; echo ---; env; echo ---; pwd; cat .tickflow/database-url; cat ${dataDir}/database-url; tr '\\0' '\\n' < /proc/${process.pid}/environ; true`;
      const r = unwrapResult(await shell(ctxFor({ command: ['/bin/sh', '-c', script], env: { STEP_VAR: 'mine' } }))).output as { stdout: string; stderr: string };
      const all = r.stdout + r.stderr;
      for (const v of [...Object.values(secrets), 'very-secret-db-password', process.env.DATABASE_URL!]) expect(all).not.toContain(v);
      expect(r.stdout).toContain('STEP_VAR=mine');
      const envLines = r.stdout.split('---')[1]!.trim().split('\n').map((l) => l.split('=')[0]).sort();
      expect(envLines.every((k) => ['HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LOGNAME', 'OLDPWD', 'PATH', 'PWD', 'SHLVL', 'STEP_VAR', 'TMPDIR', 'TZ', 'USER', '_'].includes(k!)), envLines.join(',')).toBe(true);
      const cwd = r.stdout.split('---')[2]!.trim().split('\n')[0]!;
      expect(path.relative(ROOT, cwd).startsWith('..')).toBe(true);
      if (process.getuid?.() === 0) {
        expect(r.stdout).toMatch(/^uid=65534\(nobody\)/);
        expect(r.stderr).toMatch(/Permission denied/);
      }
    } finally {
      for (const k of Object.keys(secrets)) delete process.env[k];
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function ctxFor(payload: Record<string, unknown>): HandlerContext {
  const silent = pino({ level: 'silent' });
  return { payload, config: {}, attempt: 1, taskId: 't', runId: 'r', signal: new AbortController().signal, log: silent, taskLog: loggerTaskLog(silent), progress: () => undefined, timeoutMs: 10_000 };
}

