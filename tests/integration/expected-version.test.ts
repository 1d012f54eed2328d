/**
 * One optimistic-lock rule (lib/jobs/update-job.ts assertExpectedVersion) for every change that
 * carries `expectedVersion`: a version the job never had is not reported as someone's change.
 */
import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { updateJob } from '../../lib/jobs/update-job.ts';
import { saveDag } from '../../lib/jobs/save-dag.ts';
import { rollbackJob } from '../../lib/jobs/rollback-job.ts';
import { useTestDatabase } from '../helpers/db.ts';

describe('expectedVersion greater than the current version', () => {
  const t = useTestDatabase();
  const errorOf = async (p: Promise<unknown>) => p.then(() => { throw new Error('expected an error'); }, (e: unknown) => e as { code: string; message: string; fields?: Record<string, string>; detail?: Record<string, unknown> });

  it('update, DAG save and rollback answer "no such version", not a change by someone', async () => {
    const job = await createJob(t.db, { key: 'ev.future', name: 'ev', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, SYSTEM_ACTOR);
    expect(job.version).toBe(1);
    // one after the other: a call started before the loop reached it would reject with no handler yet
    const attempts = [
      () => updateJob(t.db, job.id, { expectedVersion: 2, name: 'x' }, SYSTEM_ACTOR),
      () => saveDag(t.db, job.id, { expectedVersion: 5, steps: [{ key: 'main', handler: 'builtin.echo' }], edges: [] }, SYSTEM_ACTOR),
      () => rollbackJob(t.db, job.id, { version: 1, expectedVersion: 3 }, SYSTEM_ACTOR),
    ];
    for (const attempt of attempts) {
      const e = await errorOf(attempt());
      expect(e.code).toBe('conflict');
      expect(e.message).toMatch(/has no version \d: its current version is 1/);
      expect(e.message).not.toMatch(/was changed by/);
      expect(e.fields?.expectedVersion).toMatch(/does not exist; the current version is 1/);
      expect(e.detail).toMatchObject({ currentVersion: 1 });
    }
    expect((await t.db.job.findUniqueOrThrow({ where: { id: job.id } })).version).toBe(1);
  });

  it('an older version is still the change report', async () => {
    const job = await createJob(t.db, { key: 'ev.past', name: 'ev', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, SYSTEM_ACTOR);
    await updateJob(t.db, job.id, { expectedVersion: 1, name: 'renamed' }, SYSTEM_ACTOR);
    const e = await errorOf(updateJob(t.db, job.id, { expectedVersion: 1, name: 'again' }, SYSTEM_ACTOR));
    expect(e.message).toMatch(/was changed by .*\(version 2, you edited version 1\): name/);
  });
});
