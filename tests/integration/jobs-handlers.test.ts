/**
 * A step's handler must be built in or offered by a registered worker: a job
 * naming a handler nobody runs would wait forever.
 */
import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { updateJob } from '../../lib/jobs/update-job.ts';
import { triggerJob } from '../../lib/jobs/trigger-job.ts';
import { getJob } from '../../lib/jobs/get-job.ts';
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

describe('shipped executors\' inputs on save and trigger (lib/handlers/builtin-schemas.ts)', () => {
  const t = useTestDatabase();
  const job = (key: string, extra: Record<string, unknown>) => ({ key, name: key, schedule: { kind: 'manual' }, ...extra });
  const fieldsOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      expect((e as { code?: string }).code).toBe('validation');
      return (e as { fields?: Record<string, string> }).fields;
    }
    throw new Error('expected a validation error');
  };

  it.each([
    [{ handler: 'http', payload: { url: 123 } }, ['payload.url']],
    [{ handler: 'http', payload: { url: 'ftp://x' } }, ['payload.url']],
    [{ handler: 'http', payload: { method: 'G E T', headers: { 'a b': 'c' } } }, ['payload.method', 'payload.headers.a b']],
    [{ handler: 'http', payload: { url: 'https://x.test', headers: { a: 'v\r\nX: y' } } }, ['payload.headers.a']],
    [{ handler: 'http', payload: { expectStatus: 'abc' } }, ['payload.expectStatus']],
    [{ handler: 'sql', payload: { sql: '' } }, ['payload.sql']],
    [{ steps: [{ key: 'a', handler: 'shell', config: { command: 'ls' } }] }, ['steps.0.config.command']],
    [{ payload: { url: 5 }, steps: [{ key: 'a', handler: 'builtin.noop' }, { key: 'b', handler: 'http', payload: {} }] }, ['payload.url']],
    [{ steps: [{ key: 'a', handler: 'grpc', config: { address: 'h:1' } }] }, ['steps.0.config.service', 'steps.0.config.method', 'steps.0.config.proto']],
  ])('refuses %o at %o, writing nothing', async (extra, paths) => {
    const before = await t.db.job.count();
    const fields = await fieldsOf(createJob(t.db, job(`b.${paths[0]}`, extra), SYSTEM_ACTOR));
    expect(Object.keys(fields ?? {}).sort()).toEqual([...paths].sort());
    expect(await t.db.job.count()).toBe(before);
  });

  it('leaves a required field to a later layer on save, and asks for it on a trigger with a payload', async () => {
    const created = await createJob(t.db, job('b.later', { handler: 'http', payload: { method: 'POST' } }), SYSTEM_ACTOR);
    const fields = await fieldsOf(triggerJob(t.db, created.id, { payload: { body: 'x' } }, SYSTEM_ACTOR));
    expect(Object.keys(fields ?? {})).toEqual(['payload.url']);
    const bulk = await fieldsOf(triggerJob(t.db, created.id, { runs: [{ payload: { url: 'https://x.test' } }, { payload: { url: 123 } }] }, SYSTEM_ACTOR));
    expect(Object.keys(bulk ?? {})).toEqual(['runs.1.payload.url']);
    expect(await t.db.run.count({ where: { jobId: created.id } })).toBe(0);
    await expect(triggerJob(t.db, created.id, { payload: { url: 'https://x.test' } }, SYSTEM_ACTOR)).resolves.toBeTruthy();
  });

  it('checks a change on update, and a stored job made invalid before this rule still loads', async () => {
    const created = await createJob(t.db, job('b.update', { handler: 'http', payload: { url: 'https://x.test' } }), SYSTEM_ACTOR);
    const fields = await fieldsOf(updateJob(t.db, created.id, { expectedVersion: created.version, payload: { url: 'https://x.test', expectStatus: 'abc' } }, SYSTEM_ACTOR));
    expect(Object.keys(fields ?? {})).toEqual(['payload.expectStatus']);
    await t.pool.query(`UPDATE job_steps SET payload = '{"url": 123}'::jsonb WHERE job_id = $1::uuid`, [created.id]);
    expect((await getJob(t.db, created.id, SYSTEM_ACTOR)).steps[0]?.payload).toEqual({ url: 123 });
  });
});
