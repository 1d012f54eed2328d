/**
 * A step's handler must be built in or offered by a registered worker: a job
 * naming a handler nobody runs would wait forever.
 */
import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { updateJob } from '../../lib/jobs/update-job.ts';
import { useTestDatabase } from '../helpers/db.ts';

describe('handler names on save', () => {
  const t = useTestDatabase();

  const job = (key: string, extra: Record<string, unknown>) => ({ key, name: key, schedule: { kind: 'manual' }, ...extra });
  const fieldsOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return (e as { fields?: Record<string, string> }).fields;
    }
    throw new Error('expected a validation error');
  };

  it('refuses an unknown handler at the field, writing nothing', async () => {
    const before = await t.db.job.count();
    const shorthand = await fieldsOf(createJob(t.db, job('h.unknown', { handler: 'no.such' }), SYSTEM_ACTOR));
    expect(shorthand?.handler).toMatch(/Unknown handler "no\.such"/);
    const steps = await fieldsOf(
      createJob(t.db, job('h.unknown2', { steps: [{ key: 'a', handler: 'builtin.noop' }, { key: 'b', handler: 'nope' }] }), SYSTEM_ACTOR),
    );
    expect(Object.keys(steps ?? {})).toEqual(['steps.1.handler']);
    expect(await t.db.job.count()).toBe(before);
  });

  it('accepts built-ins and handlers a registered worker reports', async () => {
    await expect(createJob(t.db, job('h.builtin', { handler: 'builtin.echo' }), SYSTEM_ACTOR)).resolves.toBeTruthy();
    await t.pool.query(
      `INSERT INTO worker_nodes (node_id, name, host, pid, handlers, status) VALUES ('n-custom', 'n', 'h', 1, '{report.build}', 'offline')`,
    );
    const created = await createJob(t.db, job('h.custom', { handler: 'report.build' }), SYSTEM_ACTOR);
    expect(created.steps[0]?.handler).toBe('report.build');
  });

  it('checks handlers on update too', async () => {
    const created = await createJob(t.db, job('h.update', { handler: 'builtin.noop' }), SYSTEM_ACTOR);
    const fields = await fieldsOf(updateJob(t.db, created.id, { expectedVersion: created.version, handler: 'gone.away' }, SYSTEM_ACTOR));
    expect(fields?.handler).toMatch(/Unknown handler/);
  });
});
