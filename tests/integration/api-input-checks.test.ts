/**
 * Bad input is a 4xx naming the field, never a run that fails later, and nothing is written:
 * a trigger's payload (empty included, single and bulk) gets the save's checks over the whole
 * merge (lib/handlers/check-payloads.ts), a grpc step's proto is parsed on save the way the
 * worker parses it (lib/handlers/grpc-proto.ts).
 */
import { describe, expect, it } from 'vitest';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as trigger from '../../app/api/v1/jobs/[id]/trigger/route.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { call, useRestFixture } from '../helpers/rest.ts';

const PROTO = 'syntax = "proto3"; package a; service B { rpc C (M) returns (M); } message M { string s = 1; }';

describe('input checks on trigger and on save', () => {
  let t: TestDatabase;
  let admin: string;
  let operator: string;
  useRestFixture([], (f) => ({ t, admin, operator } = f));

  const create = async (token: string, key: string, body: Record<string, unknown>) =>
    call(jobs.POST, 'POST', '/api/v1/jobs', { token, body: { key, name: key, schedule: { kind: 'manual' }, ...body } });
  const created = async (token: string, key: string, body: Record<string, unknown>) => {
    const c = await create(token, key, body);
    expect(c.status, JSON.stringify(c.json)).toBe(201);
    return c.json.id as string;
  };
  const fire = (token: string, id: string, body: unknown) => call(trigger.POST, 'POST', `/api/v1/jobs/${id}/trigger`, { token, params: { id }, body });
  const fieldsOf = (r: { json: any }) => Object.keys(r.json?.error?.fields ?? {}).sort();

  it('an empty trigger payload still completes the merge: a required field is asked for (single and bulk)', async () => {
    const id = await created(operator, 'chk.http', { handler: 'http', payload: { method: 'GET' } });
    const one = await fire(operator, id, { payload: {} });
    expect(one.status).toBe(400);
    expect(fieldsOf(one)).toEqual(['payload.url']);
    const many = await fire(operator, id, { runs: [{ payload: {} }] });
    expect(many.status).toBe(400);
    expect(fieldsOf(many)).toEqual(['runs.0.payload.url']);
    expect(await t.db.run.count({ where: { jobId: id } })).toBe(0);
    expect((await fire(operator, id, { payload: { url: 'https://x.test' } })).status).toBe(201);
  });

  it('number settings are checked on a trigger as on save (single and bulk), nothing started', async () => {
    const sleep = await created(operator, 'chk.sleep', { handler: 'builtin.sleep', payload: { ms: 1 } });
    const one = await fire(operator, sleep, { payload: { ms: 'abc' } });
    expect(one.status).toBe(400);
    expect(fieldsOf(one)).toEqual(['payload.ms']);
    const many = await fire(operator, sleep, { runs: [{ payload: { ms: 5 } }, { payload: { ms: -1 } }] });
    expect(many.status).toBe(400);
    expect(fieldsOf(many)).toEqual(['runs.1.payload.ms']);
    expect(await t.db.run.count({ where: { jobId: sleep } })).toBe(0);
    const saved = await create(operator, 'chk.sleep2', { handler: 'builtin.sleep', payload: { ms: 'abc' } });
    expect(saved.status).toBe(400);
    expect(fieldsOf(saved)).toEqual(['payload.ms']);

    const shell = await created(admin, 'chk.shell', { handler: 'shell', payload: { command: ['/bin/true'] } });
    const sh = await fire(admin, shell, { payload: { killGraceMs: 'abc' } });
    expect(sh.status).toBe(400);
    expect(fieldsOf(sh)).toEqual(['payload.killGraceMs']);
    expect(await t.db.run.count({ where: { jobId: shell } })).toBe(0);
  });

  it('a grpc proto that does not parse, or lacks the service or method, is refused on save at the field', async () => {
    const step = (config: Record<string, unknown>) => ({ steps: [{ key: 'main', handler: 'grpc', config: { address: '127.0.0.1:5432', service: 'a.B', method: 'C', proto: PROTO, ...config } }] });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ proto: 'this is not a proto {{{' }, 'steps.0.config.proto', /does not parse/],
      [{ proto: 'syntax = "proto3"; import "/etc/passwd";' }, 'steps.0.config.proto', /not available/],
      [{ service: 'a.Nope' }, 'steps.0.config.service', /unknown service "a\.Nope" \(the proto defines: a\.B\)/],
      [{ method: 'D' }, 'steps.0.config.method', /unknown method "D"/],
    ];
    for (const [config, field, message] of cases) {
      const r = await create(operator, `chk.grpc.${field}`, step(config));
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(fieldsOf(r)).toEqual([field]);
      expect(r.json.error.fields[field]).toMatch(message);
    }
    expect(await t.db.job.count({ where: { key: { startsWith: 'chk.grpc.' } } })).toBe(0);
    expect((await create(operator, 'chk.grpc.ok', step({}))).status).toBe(201);
  });
});
