/**
 * Layout is not configuration (docs/console.md "Versions and layout", lib/jobs/layout-rule.ts): a DAG save
 * that only moved boxes stores the positions without a job version, still optimistic-locked and authorised;
 * a save that changes steps or edges makes exactly one version; the diff never lists a position; a rollback
 * leaves the layout of the steps the job still has. Real PostgreSQL.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { offerHandlers, useTestDatabase } from '../helpers/db.ts';
import type { Actor } from '../../lib/auth/actor.ts';
import { createJob, diffVersions, getJob, listVersions, rollbackJob, saveDag, updateJob } from '../../lib/jobs/index.ts';
import { DomainError } from '../../lib/errors.ts';

const alice: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000001', name: 'alice@example.com', role: 'operator' };
const viewer: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000003', name: 'vera@example.com', role: 'viewer' };
const NOW = new Date('2026-03-07T00:00:00Z');

async function rejects(p: Promise<unknown>): Promise<DomainError> {
  const e = await p.then(() => null, (x) => x);
  expect(e).toBeInstanceOf(DomainError);
  return e as DomainError;
}

const step = (key: string, x: number, y: number, handler = 'h') => ({ key, handler, position: { x, y } });

describe('saving the DAG editor', () => {
  const t = useTestDatabase();
  beforeAll(async () => {
    await offerHandlers(t, ['h', 'h2']);
  });

  it('stores moved boxes without a new version; a change of steps or edges makes exactly one', async () => {
    const job = await createJob(t.db, {
      key: 'layout.save', name: 'l', schedule: { kind: 'manual' },
      steps: [step('a', 0, 0), step('b', 300, 0)], edges: [{ from: 'a', to: 'b' }],
    }, alice, NOW);
    expect(job.version).toBe(1);

    // only boxes moved: positions stored, same version, no version row
    const moved = await saveDag(t.db, job.id, { expectedVersion: 1, steps: [step('a', 40, 80), step('b', 500, 120)], edges: [{ from: 'a', to: 'b' }] }, alice, NOW);
    expect(moved.version).toBe(1);
    expect(moved.steps.map((s) => s.position)).toEqual([{ x: 40, y: 80 }, { x: 500, y: 120 }]);
    expect((await getJob(t.db, job.id, viewer, NOW)).steps.map((s) => s.position)).toEqual([{ x: 40, y: 80 }, { x: 500, y: 120 }]);
    expect((await listVersions(t.db, job.id, viewer)).items.map((v) => v.version)).toEqual([1]);

    // still optimistic-locked and authorised: a stale version is a 409, a viewer a 403; neither writes
    const stale = await rejects(saveDag(t.db, job.id, { expectedVersion: 2, steps: [step('a', 1, 1), step('b', 2, 2)], edges: [{ from: 'a', to: 'b' }] }, alice, NOW));
    expect(stale.status).toBe(409);
    const refused = await rejects(saveDag(t.db, job.id, { expectedVersion: 1, steps: [step('a', 1, 1), step('b', 2, 2)], edges: [{ from: 'a', to: 'b' }] }, viewer, NOW));
    expect(refused.status).toBe(403);
    expect((await getJob(t.db, job.id, viewer, NOW)).steps.map((s) => s.position)).toEqual([{ x: 40, y: 80 }, { x: 500, y: 120 }]);

    // a PATCH of steps that differ only in position is the same layout-only change
    const patched = await updateJob(t.db, job.id, { expectedVersion: 1, steps: [step('a', 41, 81), step('b', 501, 121)] }, alice, NOW);
    expect([patched.version, patched.steps[0]!.position]).toEqual([1, { x: 41, y: 81 }]);

    // an edge changed and boxes moved in one save: exactly one version, recording the positions of then
    const changed = await saveDag(t.db, job.id, { expectedVersion: 1, steps: [step('a', 60, 60), step('b', 600, 60)], edges: [{ from: 'a', to: 'b', type: 'soft' }] }, alice, NOW);
    expect(changed.version).toBe(2);
    const versions = (await listVersions(t.db, job.id, viewer)).items;
    expect(versions.map((v) => v.version)).toEqual([2, 1]);
    // the diff names the edge only: positions are layout, never a change
    expect((await diffVersions(t.db, job.id, 1, 2, viewer)).diff.changedFields).toEqual(['edges.a->b']);

    // a step's handler changed: one more version
    const handler = await saveDag(t.db, job.id, { expectedVersion: 2, steps: [step('a', 60, 60, 'h2'), step('b', 600, 60)], edges: [{ from: 'a', to: 'b', type: 'soft' }] }, alice, NOW);
    expect(handler.version).toBe(3);
    expect((await listVersions(t.db, job.id, viewer)).items.map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it('a rollback restores configuration, not layout: steps still there keep their place, a step brought back takes its old one', async () => {
    const job = await createJob(t.db, {
      key: 'layout.rollback', name: 'r', schedule: { kind: 'manual' },
      steps: [step('a', 0, 0), step('gone', 300, 0)], edges: [{ from: 'a', to: 'gone' }],
    }, alice, NOW);
    const v2 = await saveDag(t.db, job.id, { expectedVersion: 1, steps: [step('a', 10, 10)], edges: [] }, alice, NOW);
    expect(v2.version).toBe(2);
    // boxes moved after v2: no version
    expect((await saveDag(t.db, job.id, { expectedVersion: 2, steps: [step('a', 700, 700)], edges: [] }, alice, NOW)).version).toBe(2);

    // v1 differs from the current configuration (step `gone`): restored, with `a` where it sits now
    const rolled = await rollbackJob(t.db, job.id, { version: 1, expectedVersion: 2 }, alice, NOW);
    expect(rolled.version).toBe(3);
    expect(rolled.steps.map((s) => [s.key, s.position])).toEqual([['a', { x: 700, y: 700 }], ['gone', { x: 300, y: 0 }]]);

    // a version that differs from the current one only in positions restores nothing: refused, nothing written
    const other = await createJob(t.db, { key: 'layout.rollback2', name: 'r2', schedule: { kind: 'manual' }, steps: [step('a', 0, 0)], edges: [] }, alice, NOW);
    await saveDag(t.db, other.id, { expectedVersion: 1, steps: [step('a', 99, 99)], edges: [] }, alice, NOW);
    await updateJob(t.db, other.id, { expectedVersion: 1, name: 'r2b' }, alice, NOW);
    const back = await updateJob(t.db, other.id, { expectedVersion: 2, name: 'r2' }, alice, NOW); // v1's configuration, boxes elsewhere
    expect(back.version).toBe(3);
    const refused = await rejects(rollbackJob(t.db, other.id, { version: 1 }, alice, NOW));
    expect(refused.status).toBe(422);
    expect(refused.fields?.version).toMatch(/Nothing to roll back/);
    expect((await listVersions(t.db, other.id, viewer)).items.find((v) => v.version === 1)?.rollbackRefusal).toMatch(/Nothing to roll back/);
    expect((await getJob(t.db, other.id, viewer, NOW)).version).toBe(3);
  });
});
