/**
 * Handler modules (docs/handlers.md): TICKFLOW_HANDLERS loads defineHandler modules
 * all or nothing; the worker advertises their input JSON Schema with its registration;
 * a payload is checked against the handler's schema on save (domain layer) and before
 * every attempt (no retry for a payload that does not fit).
 */
import { createServer } from 'node:http';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { triggerRun } from '../../lib/engine/index.ts';
import { loadHandlerCatalogue } from '../../lib/handlers/catalogue.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { BUILTIN_HANDLER_NAMES } from '../../lib/jobs/known-handlers.ts';
import { updateJob } from '../../lib/jobs/update-job.ts';
import { saveDag } from '../../lib/jobs/save-dag.ts';
import { createWorker } from '../../worker/create-worker.ts';
import { HandlerModuleError, loadHandlerModules } from '../../worker/handlers/module-loader.ts';
import type { JsonObject } from '../../worker/handlers/types.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { ROOT, spawnWorker, testWorkerConfig, useWorkers, waitFor, waitForFinalTask } from './worker-fixtures.ts';

const FIXTURES = path.join(ROOT, 'tests/fixtures/handlers');
const EXAMPLES = path.join(ROOT, 'examples/handlers');
const reservedNames = BUILTIN_HANDLER_NAMES;

async function problemsOf(p: Promise<unknown>): Promise<string[]> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(HandlerModuleError);
    return (e as HandlerModuleError).problems;
  }
  throw new Error('expected HandlerModuleError');
}

describe('loading handler modules', () => {
  it('loads a folder of modules with their names, descriptions and input JSON Schemas', async () => {
    const loaded = await loadHandlerModules([EXAMPLES, path.join(FIXTURES, 'good/greet.ts')], { reservedNames });
    expect(Object.keys(loaded.handlers).sort()).toEqual(['examples.batch-sum', 'examples.fetch-json', 'fixture.greet']);
    expect(loaded.files['fixture.greet']).toBe(path.join(FIXTURES, 'good/greet.ts'));
    const spec = loaded.specs['examples.batch-sum']!;
    expect(spec.description).toMatch(/batches/);
    expect(spec.inputSchema).toMatchObject({
      type: 'object',
      required: ['items'],
      properties: { items: { type: 'array', items: { type: 'number' } }, batchSize: { type: 'integer', default: 10 } },
    });
    expect(loaded.specs['examples.fetch-json']).toMatchObject({ timeoutSeconds: 30, maxRetries: 2 });
  });

  it('relative entries resolve against the working directory', async () => {
    const loaded = await loadHandlerModules(['./good/greet.ts'], { reservedNames, cwd: FIXTURES });
    expect(Object.keys(loaded.handlers)).toEqual(['fixture.greet']);
  });

  it('names the file of a module that fails to load, and registers nothing from the good ones', async () => {
    const problems = await problemsOf(loadHandlerModules([path.join(FIXTURES, 'good'), path.join(FIXTURES, 'broken/syntax.ts')], { reservedNames }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(path.join(FIXTURES, 'broken/syntax.ts'));
    expect(problems[0]).toMatch(/failed to load: .*database password missing in fixture/);
  });

  it('gives up on a module whose top-level await never settles, naming it', async () => {
    const started = Date.now();
    const problems = await problemsOf(loadHandlerModules([path.join(FIXTURES, 'never-loads')], { reservedNames, loadTimeoutMs: 300 }));
    expect(problems).toEqual([expect.stringMatching(/never-loads\/pending\.mjs: did not finish loading within 0\.3 s/)]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('names a module with a syntax error', async () => {
    const problems = await problemsOf(loadHandlerModules([path.join(FIXTURES, 'syntax-error')], { reservedNames }));
    expect(problems).toEqual([expect.stringMatching(/syntax-error\/bad\.mjs: failed to load: .*(SyntaxError|Unexpected|Expected)/)]);
  });

  it('refuses a module that exports no handler, a missing path, and a schema with no JSON Schema form', async () => {
    const problems = await problemsOf(
      loadHandlerModules([path.join(FIXTURES, 'empty/nothing.ts'), './no/such/file.ts', path.join(FIXTURES, 'bad-schema')], { reservedNames, cwd: FIXTURES }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^\.\/no\/such\/file\.ts: no such file or folder/),
      expect.stringMatching(/nothing\.ts: exports no handler/),
      expect.stringMatching(/transform\.ts: handler "fixture\.transform": input has no JSON Schema form/),
    ]);
  });

  it('refuses a name defined twice (naming both files) and a built-in name', async () => {
    const dup = await problemsOf(loadHandlerModules([path.join(FIXTURES, 'dup')], { reservedNames }));
    expect(dup).toEqual([`${path.join(FIXTURES, 'dup/b.ts')}: handler "fixture.same" is defined twice (also in ${path.join(FIXTURES, 'dup/a.ts')})`]);
    const builtin = await problemsOf(loadHandlerModules([path.join(FIXTURES, 'builtin/http.ts')], { reservedNames }));
    expect(builtin).toEqual([expect.stringMatching(/http\.ts: handler "http" has the name of a built-in handler/)]);
  });
});

describe('the example handlers', () => {
  const noopLog = () => undefined;
  const attempt = (payload: JsonObject, signal: AbortSignal, lines: string[] = []) => ({
    payload, config: {}, attempt: 1, taskId: 't', runId: 'r', jobKey: 'k', scheduledFor: null,
    signal, log: pino({ level: 'silent' }), taskLog: { debug: noopLog, info: (t: string) => lines.push(t), warn: noopLog, error: noopLog }, progress: noopLog, timeoutMs: 60_000,
  });

  it('examples.fetch-json goes through the outbound guard: no loopback or metadata address unless TICKFLOW_OUTBOUND_ALLOW lists it', async () => {
    // Custom handlers are the operator's to use: an example that fetched with plain fetch handed every
    // operator the worker's loopback, its neighbours and the cloud metadata service.
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.setHeader('content-type', 'application/json');
      res.end('{"secret":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const loaded = await loadHandlerModules([path.join(EXAMPLES, 'fetch-json.ts')], { reservedNames });
      const run = (url: string) => loaded.handlers['examples.fetch-json']!(attempt({ url }, new AbortController().signal));
      await expect(run(`http://127.0.0.1:${port}/`)).rejects.toThrow(/outbound call refused: 127\.0\.0\.1 is a loopback address/);
      await expect(run(`http://localhost:${port}/`)).rejects.toThrow(/outbound call refused/);
      await expect(run('http://169.254.169.254/latest/meta-data/')).rejects.toThrow(/outbound call refused: 169\.254\.169\.254 is a link-local address/);
      expect(hits).toBe(0);
      process.env.TICKFLOW_OUTBOUND_ALLOW = `127.0.0.1:${port}`;
      expect(await run(`http://127.0.0.1:${port}/`)).toMatchObject({ status: 200, body: { secret: true } });
    } finally {
      delete process.env.TICKFLOW_OUTBOUND_ALLOW;
      server.close();
    }
  });

  it('examples.fetch-json passes the attempt signal to fetch: aborting the attempt stops a request that hangs', async () => {
    const server = createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    process.env.TICKFLOW_OUTBOUND_ALLOW = `127.0.0.1:${port}`; // the guard lets this one test server through
    try {
      const loaded = await loadHandlerModules([path.join(EXAMPLES, 'fetch-json.ts')], { reservedNames });
      const ac = new AbortController();
      const lines: string[] = [];
      const started = Date.now();
      setTimeout(() => ac.abort(new Error('attempt aborted: cancelled')), 200);
      const noop = () => undefined;
      const run = loaded.handlers['examples.fetch-json']!({
        payload: { url: `http://127.0.0.1:${port}/slow` }, config: {}, attempt: 1, taskId: 't', runId: 'r', jobKey: 'k', scheduledFor: null,
        signal: ac.signal, log: pino({ level: 'silent' }), taskLog: { debug: noop, info: (t: string) => lines.push(t), warn: noop, error: noop }, progress: noop, timeoutMs: 60_000,
      });
      await expect(run).rejects.toThrow('attempt aborted: cancelled');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(lines).toEqual([`GET http://127.0.0.1:${port}/slow`]);
    } finally {
      delete process.env.TICKFLOW_OUTBOUND_ALLOW;
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('a worker with handler modules', () => {
  const t = useTestDatabase();
  const workers = useWorkers();

  it('a worker process with a broken module stops at start naming the file and registers no node', async () => {
    const w = spawnWorker(t.url, { TICKFLOW_HANDLERS: `${path.join(FIXTURES, 'good')},${path.join(FIXTURES, 'dup')}` });
    const exit = await w.exited;
    expect(exit.code).toBe(2);
    expect(w.output()).toContain('cannot load handler modules (TICKFLOW_HANDLERS)');
    expect(w.output()).toContain(`handler "fixture.same" is defined twice`);
    expect(w.output()).not.toContain('worker ready');
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM worker_nodes`);
    expect(rows[0].n).toBe(0);
  });

  it('a handler throwing outside its promise ends the worker process, whose last line names the attempts it was running', async () => {
    const w = spawnWorker(t.url, { TICKFLOW_HANDLERS: path.join(FIXTURES, 'crash'), TICKFLOW_ROLES: 'claim' });
    await w.ready;
    const job = await createJob(t.db, { key: 'crash.once', name: 'crash', schedule: { kind: 'manual' }, handler: 'fixture.crash', payload: {} }, SYSTEM_ACTOR);
    const { run } = await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
    const task = await t.db.task.findFirstOrThrow({ where: { runId: run!.id } });
    const exit = await w.exited;
    expect(exit.code).toBe(1);
    expect(w.output()).toContain('thrown in a timer');
    expect(w.output()).toMatch(/uncaught exception \(a handler of a running attempt, most likely, threw outside its promise\)/);
    expect(w.output()).toContain(task.id);
    expect(w.output()).toContain(`fixture.crash task ${task.id} attempt 1`);
    // the lines written just before the throw were sent before the process ended, then one saying why it ended
    const { rows } = await t.pool.query(`SELECT seq, level, stream, text FROM task_log_lines WHERE task_id = $1::uuid ORDER BY seq`, [task.id]);
    expect(rows.map((r) => r.text)).toEqual(['started', 'about to throw in a timer', expect.stringMatching(/^the worker process stopped: uncaught exception .*: thrown in a timer$/)]);
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(rows[2]).toMatchObject({ level: 'error', stream: 'system' });
  });

  it('a worker process loads TypeScript modules (ESM and CommonJS folders) and advertises their schemas', async () => {
    const w = spawnWorker(t.url, { TICKFLOW_HANDLERS: `./examples/handlers,${path.join(FIXTURES, 'cjs/shout.ts')}`, TICKFLOW_ROLES: 'claim' });
    try {
      const nodeId = await w.ready;
      const { rows } = await t.pool.query(`SELECT handlers, handler_specs FROM worker_nodes WHERE node_id = $1`, [nodeId]);
      expect(rows[0].handlers).toEqual(expect.arrayContaining(['examples.batch-sum', 'examples.fetch-json', 'fixture.shout', 'grpc', 'builtin.echo']));
      expect(rows[0].handler_specs['fixture.shout']).toMatchObject({ description: 'Upper-cases a word', inputSchema: { required: ['word'] } });
      expect(Object.keys(rows[0].handler_specs).sort()).toEqual(['examples.batch-sum', 'examples.fetch-json', 'fixture.shout']);
      expect(Object.keys(rows[0].handler_specs['examples.batch-sum'].inputSchema.properties)).toEqual(['items', 'batchSize', 'delayMs']);

      const job = await createJob(t.db, { key: 'shout.once', name: 'shout', schedule: { kind: 'manual' }, handler: 'fixture.shout', payload: { word: 'tick' } }, SYSTEM_ACTOR);
      const { run } = await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
      const [task] = await t.db.task.findMany({ where: { runId: run.id } });
      const done = await waitForFinalTask(t.db, task!.id, 20_000);
      expect(done.status).toBe('success');
      expect(done.output).toBe('TICK');
    } finally {
      w.child.kill('SIGTERM');
      await w.exited;
    }
  });

  it('the catalogue lists advertised handlers with description and schema, and marks them unavailable once no live worker offers them', async () => {
    const loaded = await loadHandlerModules([path.join(FIXTURES, 'good')], { reservedNames });
    const now = new Date();
    const worker = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim'] }), db: t.db, handlers: loaded.handlers, handlerSpecs: loaded.specs, clock: () => now });
    workers.push(worker);
    await worker.register();
    const live = (await loadHandlerCatalogue(t.db, now)).find((e) => e.name === 'fixture.greet');
    expect(live).toMatchObject({ builtin: false, description: 'Greets someone', available: true, lastOfferedAt: now.toISOString() });
    expect(live?.inputSchema).toMatchObject({ properties: { who: { type: 'string', minLength: 1 } } });
    // Stored as json, not jsonb: the properties keep the schema's order (the order of the console's form fields).
    expect(Object.keys((live?.inputSchema as { properties: object }).properties)).toEqual(['who', 'times']);
    const later = new Date(now.getTime() + 5 * 60_000);
    const stale = (await loadHandlerCatalogue(t.db, later)).find((e) => e.name === 'fixture.greet');
    expect(stale).toMatchObject({ available: false, lastOfferedAt: now.toISOString() });
  });
});

describe('payload validation against the handler input schema', () => {
  const t = useTestDatabase();
  const workers = useWorkers();

  async function startWorker() {
    const loaded = await loadHandlerModules([path.join(FIXTURES, 'good'), EXAMPLES], { reservedNames });
    const worker = createWorker({ config: testWorkerConfig(t.url), db: t.db, handlers: loaded.handlers, handlerSpecs: loaded.specs });
    workers.push(worker);
    await worker.start();
    return worker;
  }

  const fieldsOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      expect((e as { code?: string }).code).toBe('validation');
      return (e as { fields?: Record<string, string> }).fields;
    }
    throw new Error('expected a validation error');
  };

  it('refuses on save a payload that does not fit, naming the field (create, update, DAG save), and writes nothing', async () => {
    await startWorker();
    const before = await t.db.job.count();
    const base = { name: 'x', schedule: { kind: 'manual' } };
    const f1 = await fieldsOf(createJob(t.db, { ...base, key: 'v.bad', handler: 'fixture.greet', payload: { who: '', times: 9, extra: 1 } }, SYSTEM_ACTOR));
    expect(Object.keys(f1 ?? {}).sort()).toEqual(['payload.times', 'payload.who']);
    const f2 = await fieldsOf(
      createJob(t.db, { ...base, key: 'v.bad2', steps: [{ key: 'a', handler: 'builtin.noop' }, { key: 'b', handler: 'examples.batch-sum', payload: { items: ['x'] } }] }, SYSTEM_ACTOR),
    );
    expect(f2).toEqual({ 'steps.1.payload.items.0': expect.stringMatching(/number/i) });
    expect(await t.db.job.count()).toBe(before);

    const ok = await createJob(t.db, { ...base, key: 'v.ok', handler: 'fixture.greet', payload: { who: 'ada' } }, SYSTEM_ACTOR);
    const f3 = await fieldsOf(updateJob(t.db, ok.id, { expectedVersion: ok.version, payload: { who: 7 } }, SYSTEM_ACTOR));
    expect(Object.keys(f3 ?? {})).toEqual(['payload.who']);
    const f4 = await fieldsOf(saveDag(t.db, ok.id, { expectedVersion: ok.version, steps: [{ key: 'main', handler: 'examples.batch-sum', payload: {} }], edges: [] }, SYSTEM_ACTOR));
    expect(Object.keys(f4 ?? {})).toEqual(['steps.0.payload.items']);
    expect((await t.db.job.findUniqueOrThrow({ where: { id: ok.id } })).version).toBe(ok.version);
  });

  it("refuses on save a shipped handler's numeric setting out of bounds, at the field it is read from, and writes nothing", async () => {
    const before = await t.db.job.count();
    const base = { name: 'x', schedule: { kind: 'manual' } };
    const f1 = await fieldsOf(createJob(t.db, { ...base, key: 'n.sleep', handler: 'builtin.sleep', payload: { ms: 'abc' } }, SYSTEM_ACTOR));
    expect(f1).toEqual({ 'payload.ms': 'builtin.sleep: ms must be a finite number between 0 and 604800000 ms, got "abc"' });
    const f2 = await fieldsOf(
      createJob(
        t.db,
        {
          ...base,
          key: 'n.dag',
          payload: { ms: -1 },
          steps: [
            { key: 'a', handler: 'builtin.sleep' },
            { key: 'b', handler: 'builtin.flaky', config: { failTimes: 1.5 } },
            { key: 'c', handler: 'builtin.ignore-abort', payload: { ms: 10 }, config: { ms: 'ignored: the payload wins' } },
          ],
        },
        SYSTEM_ACTOR,
      ),
    );
    expect(Object.keys(f2 ?? {}).sort()).toEqual(['payload.ms', 'steps.1.config.failTimes']);
    expect(f2?.['steps.1.config.failTimes']).toMatch(/must be a finite integer between 0 and 1000000, got 1\.5/);
    expect(await t.db.job.count()).toBe(before);

    // In bounds, as a numeric string, or absent (the handler's default): saved.
    const ok = await createJob(t.db, { ...base, key: 'n.ok', handler: 'builtin.sleep', payload: { ms: '250' } }, SYSTEM_ACTOR);
    const f3 = await fieldsOf(updateJob(t.db, ok.id, { expectedVersion: ok.version, payload: { ms: 1e100 } }, SYSTEM_ACTOR));
    expect(Object.keys(f3 ?? {})).toEqual(['payload.ms']);
    await updateJob(t.db, ok.id, { expectedVersion: ok.version, payload: {} }, SYSTEM_ACTOR);
  });

  it('runs a handler with its typed payload and context, and fails a payload that does not fit at once, without retries', async () => {
    await startWorker();
    const job = await createJob(
      t.db,
      { key: 'greet.job', name: 'greet', schedule: { kind: 'manual' }, handler: 'fixture.greet', payload: { who: 'ada', times: 2 }, policy: { maxRetries: 3 } },
      SYSTEM_ACTOR,
    );
    const good = await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
    const [task] = await t.db.task.findMany({ where: { runId: good.run.id } });
    const done = await waitForFinalTask(t.db, task!.id);
    expect(done.status).toBe('success');
    expect(done.output).toEqual({ text: 'hello ada hello ada', jobKey: 'greet.job', attempt: 1 });

    // A trigger payload is not checked on save: the worker's check fails the attempt, naming the field, and does not retry.
    const bad = await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date(), payload: { times: 'many' } });
    const [badTask] = await t.db.task.findMany({ where: { runId: bad.run.id } });
    const dead = await waitForFinalTask(t.db, badTask!.id);
    expect(dead.status).toBe('dead');
    expect(dead.attempt).toBe(1);
    expect(dead.error).toMatch(/fixture\.greet: the payload does not fit the handler's input: payload\.times: /);
    const logs = await t.db.taskLog.findMany({ where: { taskId: badTask!.id }, orderBy: { id: 'asc' } });
    expect(logs.filter((l) => l.toStatus === 'running')).toHaveLength(1);
    expect(logs.slice(-2).map((l) => l.toStatus)).toEqual(['failed', 'dead']);
    expect(logs.at(-1)?.message).toMatch(/not retried/);
  });

  it('runs a batch handler through its input defaults and output schema', async () => {
    await startWorker();
    const job = await createJob(
      t.db,
      { key: 'sum.job', name: 'sum', schedule: { kind: 'manual' }, handler: 'examples.batch-sum', payload: { items: [1, 2, 3, 4, 5], batchSize: 2 } },
      SYSTEM_ACTOR,
    );
    const { run } = await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
    const [task] = await t.db.task.findMany({ where: { runId: run.id } });
    const done = await waitFor(async () => {
      const x = await t.db.task.findUniqueOrThrow({ where: { id: task!.id } });
      return x.status === 'success' ? x : null;
    }, 15_000, 'batch-sum to succeed');
    expect(done.output).toEqual({ sum: 15, count: 5, batches: 3 });
  });
});
