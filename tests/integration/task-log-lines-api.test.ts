/**
 * GET /api/v1/tasks/:id/logs and GET /api/v1/logs/search through the REST wrapper: any
 * role reads (viewer included), no credentials is a 401, bad input a 400 naming the field,
 * an unknown task a 404; the answer shapes of docs/task-logs.md.
 */
import { describe, expect, it } from 'vitest';
import * as taskLogs from '../../app/api/v1/tasks/[id]/logs/route.ts';
import * as search from '../../app/api/v1/logs/search/route.ts';
import { log } from '../../lib/log.ts';
import { DEFAULT_TASK_LOG_CONFIG, TaskLogWriter } from '../../worker/task-log-writer.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { call, useRestFixture } from '../helpers/rest.ts';
import { triggerOneTask } from './worker-fixtures.ts';

describe('task log line routes', () => {
  let t: TestDatabase;
  let viewer: string;
  useRestFixture(['h'], (f) => ({ t, viewer } = f));

  it('a viewer tails an attempt page by page and searches it; errors are 4xx naming the field', async () => {
    const id = await triggerOneTask(t.db, { key: 'api.logs', steps: [{ handler: 'h' }] });
    const task = await t.db.task.findUniqueOrThrow({ where: { id } });
    const w = new TaskLogWriter({ ...DEFAULT_TASK_LOG_CONFIG }, { pool: t.pool, clock: () => new Date(), logger: log('test') });
    const l = w.open({ taskId: id, runId: task.runId, jobId: task.jobId, attempt: 1, scheduledFor: task.scheduledFor });
    for (let i = 1; i <= 5; i++) l.taskLog.info(`widget ${i}`, i === 1 ? { sku: 'A-1' } : undefined);
    await w.stop();

    const first = await call(taskLogs.GET, 'GET', `/api/v1/tasks/${id}/logs?limit=3`, { token: viewer, params: { id } });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ taskId: id, runId: task.runId, jobId: task.jobId, stepKey: 'main', attempt: 1, attempts: 1, taskStatus: 'pending', final: false, leaseReclaimed: false, nextAfterSeq: 3, more: true });
    expect(first.json.lines[0]).toEqual({ seq: 1, time: expect.any(String), level: 'info', stream: 'log', text: 'widget 1', fields: { sku: 'A-1' } });
    expect(first.json.lines[1]).not.toHaveProperty('fields');
    const next = await call(taskLogs.GET, 'GET', `/api/v1/tasks/${id}/logs?afterSeq=3`, { token: viewer, params: { id } });
    expect(next.json.lines.map((x: { seq: number }) => x.seq)).toEqual([4, 5]);
    expect(next.json).toMatchObject({ nextAfterSeq: 5, more: false });

    const found = await call(search.GET, 'GET', `/api/v1/logs/search?q=widget%203&jobId=${task.jobId}`, { token: viewer });
    expect(found.status).toBe(200);
    expect(found.json).toEqual({ more: false, nextCursor: null, lines: [expect.objectContaining({ text: 'widget 3', taskId: id, runId: task.runId, jobId: task.jobId, jobKey: 'api.logs', stepKey: 'main', attempt: 1, seq: 3 })] });

    expect((await call(taskLogs.GET, 'GET', `/api/v1/tasks/${id}/logs`, { params: { id } })).status).toBe(401);
    expect((await call(search.GET, 'GET', '/api/v1/logs/search?q=widget')).status).toBe(401);
    const bad = await call(taskLogs.GET, 'GET', `/api/v1/tasks/${id}/logs?afterSeq=-1`, { token: viewer, params: { id } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields).toHaveProperty('afterSeq');
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await call(taskLogs.GET, 'GET', `/api/v1/tasks/${missing}/logs`, { token: viewer, params: { id: missing } })).status).toBe(404);
    const short = await call(search.GET, 'GET', '/api/v1/logs/search?q=wi', { token: viewer });
    expect(short.status).toBe(400);
    expect(short.json.error.fields).toHaveProperty('q');
    const noQ = await call(search.GET, 'GET', '/api/v1/logs/search', { token: viewer });
    expect(noQ.status).toBe(400);
    expect(noQ.json.error.fields).toHaveProperty('q');
    // paging: the cursor of a page of one line leads to the next, a forged one is a 400 at `cursor`
    const p1 = await call(search.GET, 'GET', `/api/v1/logs/search?q=widget&jobId=${task.jobId}&limit=1`, { token: viewer });
    expect(p1.json).toMatchObject({ more: true, nextCursor: expect.any(String), lines: [{ seq: 5 }] });
    const p2 = await call(search.GET, 'GET', `/api/v1/logs/search?q=widget&jobId=${task.jobId}&limit=1&cursor=${p1.json.nextCursor}`, { token: viewer });
    expect(p2.json).toMatchObject({ lines: [{ seq: 4 }] });
    const forged = await call(search.GET, 'GET', '/api/v1/logs/search?q=widget&cursor=abc', { token: viewer });
    expect(forged.status).toBe(400);
    expect(forged.json.error.fields).toHaveProperty('cursor');
  });
});
