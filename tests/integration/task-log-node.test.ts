/**
 * The run page's task log names the worker once (lib/runs/run-view.ts taskLogNodeNote): the claim's row says
 * "claimed by <node>" and is printed without a second "on <node>", while the REST view keeps the stored
 * `message` and `nodeId` of every row (docs/task-logs.md "State changes"). Rows as the engine writes them, on a
 * real PostgreSQL with an injected clock.
 */
import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { triggerRun } from '../../lib/engine/index.ts';
import { getRun } from '../../lib/runs/get-run.ts';
import { taskLogNodeNote } from '../../lib/runs/run-view.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { at, drive, insertJob, NODE } from './engine-fixtures.ts';

const t = useTestDatabase();

describe('task log: the worker', () => {
  it('is named once per state change on the run page, and kept whole in the API', async () => {
    const jobId = await insertJob(t.db, { key: 'task-log.node' });
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 't', scheduledFor: at(0) }, at(0));
    await drive(t.db, at(100));
    const view = await getRun(t.db, run.id, SYSTEM_ACTOR);
    const logs = view.tasks[0]!.logs;
    const claim = logs.find((l) => l.toStatus === 'running')!;
    const done = logs.find((l) => l.toStatus === 'success')!;
    // the API: what the engine stored, both fields
    expect([claim.message, claim.nodeId]).toEqual([`claimed by ${NODE.nodeId}`, NODE.nodeId]);
    expect(done.nodeId).toBe(NODE.nodeId);
    // the run page: the claim's message names the worker, so no "on <node>" under it; the completion gets one
    expect(logs.map((l) => [l.toStatus, taskLogNodeNote(l)])).toEqual([['pending', null], ['running', null], ['success', NODE.nodeId]]);
  });
});
