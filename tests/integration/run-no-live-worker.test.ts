/**
 * A ready task whose handler no live worker offers waits without anyone claiming it; the run page
 * says so (lib/runs/get-run.ts, TaskView.noLiveWorker from lib/handlers/catalogue.ts
 * handlerAvailability): none ever registered, one online, one stopped. A task still waiting for its
 * parents is not marked. Real PostgreSQL; worker nodes registered with the real clock (the rule
 * reads heartbeat age against it).
 */
import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { triggerRun } from '../../lib/engine/index.ts';
import { markNodeStopped, registerNode } from '../../lib/engine/nodes/index.ts';
import { getRun } from '../../lib/runs/get-run.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob } from './engine-fixtures.ts';

const t = useTestDatabase();

describe('a task whose handler no live worker offers', () => {
  it('is marked on the run while no worker online offers its handler, with when one last did', async () => {
    const jobId = await insertJob(t.db, {
      key: 'gone.handler',
      steps: [{ key: 'first', handler: 'custom.gone' }, { key: 'then', handler: 'custom.gone' }],
      edges: [{ from: 'first', to: 'then' }],
    });
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 't', scheduledFor: new Date() });
    const marks = async () => Object.fromEntries((await getRun(t.db, run.id, SYSTEM_ACTOR)).tasks.map((x) => [x.stepKey, x.noLiveWorker]));

    // never offered by anyone; `then` waits for its parent, not for a worker
    expect(await marks()).toEqual({ first: { lastOfferedAt: null, outsideRouting: false }, then: null });

    const node = { name: 'w', host: 'h', pid: 1, group: 'default', labels: {}, handlers: ['custom.gone'], version: 'test' };
    const beat = new Date();
    const nodeId = await registerNode(t.db, node, beat);
    expect(await marks()).toEqual({ first: null, then: null });

    await markNodeStopped(t.db, { nodeId, signal: 'SIGTERM' }, beat);
    const after = await marks();
    expect(after.then).toBeNull();
    expect(after.first).toEqual({ lastOfferedAt: expect.any(String), outsideRouting: false });
    expect(Date.parse(after.first!.lastOfferedAt!)).toBeGreaterThanOrEqual(beat.getTime() - 1000);

    // another worker's handlers do not count
    await registerNode(t.db, { ...node, pid: 2, handlers: ['builtin.noop'] });
    expect((await marks()).first).not.toBeNull();
  });

  it('is marked while live workers offer its handler but its routing lets none of them take it', async () => {
    const node = { name: 'w', host: 'h', pid: 1, group: 'default', labels: { zone: 'a' }, handlers: ['custom.routed'], version: 'test' };
    const nodeId = await registerNode(t.db, node);
    const runOfJob = async (routing: Parameters<typeof insertJob>[1]) => {
      const jobId = await insertJob(t.db, { key: `routed.${Math.random().toString(36).slice(2, 8)}`, steps: [{ key: 'main', handler: 'custom.routed' }], ...routing });
      const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 't', scheduledFor: new Date() });
      return async () => (await getRun(t.db, run.id, SYSTEM_ACTOR)).tasks[0]!.noLiveWorker;
    };
    // the only worker offering it is in another group / lacks the label / is not among the listed nodes
    const gpu = await runOfJob({ routingNodeGroup: 'gpu' });
    expect(await gpu()).toEqual({ lastOfferedAt: expect.any(String), outsideRouting: true });
    expect(await (await runOfJob({ routingLabels: { zone: 'b' } }))()).toMatchObject({ outsideRouting: true });
    expect(await (await runOfJob({ routingStrategy: 'nodes', routingNodes: ['someone-else'] }))()).toMatchObject({ outsideRouting: true });
    // routing that a live worker offering it matches: not marked
    expect(await (await runOfJob({ routingNodeGroup: 'default', routingLabels: { zone: 'a' } }))()).toBeNull();
    expect(await (await runOfJob({ routingStrategy: 'nodes', routingNodes: [nodeId] }))()).toBeNull();
    expect(await (await runOfJob({ routingStrategy: 'consistent_hash', routingKey: 'k' }))()).toBeNull();
    // a worker of that group that offers it comes online: no longer marked
    await registerNode(t.db, { ...node, pid: 2, group: 'gpu' });
    expect(await gpu()).toBeNull();
  });
});
