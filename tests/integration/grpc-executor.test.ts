/**
 * The `grpc` executor (worker/handlers/grpc.ts) against a real gRPC server started here
 * (@grpc/grpc-js on 127.0.0.1, service from tests/fixtures/grpc/demo.proto): unary and
 * server-streaming calls, metadata, the well-known Timestamp import, deadline,
 * cancellation, non-OK status, and bad input (proto, service, method, payload, address),
 * each failing the attempt with the field or status named; one run through a real worker.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triggerRun } from '../../lib/engine/index.ts';
import { createWorker } from '../../worker/create-worker.ts';
import { GRPC_MAX_KEPT_MESSAGES, grpcHandler } from '../../worker/handlers/grpc.ts';
import { HandlerError, type HandlerContext, type JsonObject } from '../../worker/handlers/types.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob, ROOT, testWorkerConfig, useWorkers, waitForFinalTask } from './worker-fixtures.ts';

const PROTO_FILE = path.join(ROOT, 'tests/fixtures/grpc/demo.proto');
const PROTO = readFileSync(PROTO_FILE, 'utf8');

let server: grpc.Server;
let address = '';
let savedAllow: string | undefined;
const cancelledCalls: string[] = [];
/** the metadata keys each SayHello call arrived with */
const seenMetadataKeys: string[][] = [];

beforeAll(async () => {
  const def = protoLoader.loadSync(PROTO_FILE, { keepCase: false, longs: String, enums: String, defaults: true });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { demo: { v1: { Greeter: grpc.ServiceClientConstructor } } };
  server = new grpc.Server();
  server.addService(pkg.demo.v1.Greeter.service, {
    SayHello(call: grpc.ServerUnaryCall<Record<string, unknown>, unknown>, cb: grpc.sendUnaryData<unknown>) {
      const req = call.request as { name: string; times: number; mood: string; sentAt: unknown; sleepMs: number };
      seenMetadataKeys.push(Object.keys(call.metadata.getMap()));
      if (req.name === 'missing') return cb({ code: grpc.status.NOT_FOUND, details: `no user ${req.name}` });
      const reply = () => cb(null, {
        message: Array.from({ length: Math.max(1, req.times) }, () => `hello ${req.name}`).join(' '),
        team: String(call.metadata.get('x-team')[0] ?? ''),
        sentAt: req.sentAt,
        mood: req.mood,
      });
      if (!req.sleepMs) return reply();
      const t = setTimeout(reply, req.sleepMs);
      call.on('cancelled', () => {
        clearTimeout(t);
        cancelledCalls.push(req.name);
      });
    },
    Count(call: grpc.ServerWritableStream<{ n: number; failAfter: number }, unknown>) {
      const { n, failAfter } = call.request;
      for (let i = 1; i <= n; i++) {
        if (failAfter && i > failAfter) {
          call.emit('error', { code: grpc.status.RESOURCE_EXHAUSTED, details: `stopped after ${failAfter}` });
          return;
        }
        call.write({ i });
      }
      call.end();
    },
    Upload(_call: unknown, cb: grpc.sendUnaryData<unknown>) {
      cb(null, {});
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  address = `127.0.0.1:${port}`;
  // this file's servers are on loopback, which the outbound policy refuses unless listed (lib/net/outbound.ts)
  savedAllow = process.env.TICKFLOW_OUTBOUND_ALLOW;
  process.env.TICKFLOW_OUTBOUND_ALLOW = '127.0.0.1';
});

afterAll(async () => {
  if (savedAllow === undefined) delete process.env.TICKFLOW_OUTBOUND_ALLOW;
  else process.env.TICKFLOW_OUTBOUND_ALLOW = savedAllow;
  await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
});

type Line = { level: string; text: string; fields?: JsonObject };

function ctxFor(config: JsonObject, payload: JsonObject, opts: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  const lines: Line[] = [];
  const at = (level: string) => (text: string, fields?: JsonObject) => lines.push({ level, text, fields });
  const ctx: HandlerContext = {
    payload,
    config,
    attempt: 1,
    taskId: 't1',
    runId: 'r1',
    signal: opts.signal ?? new AbortController().signal,
    log: pino({ level: 'silent' }),
    taskLog: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    progress: () => undefined,
    timeoutMs: opts.timeoutMs ?? 10_000,
  };
  return { ctx, lines };
}

const cfg = (over: JsonObject = {}): JsonObject => ({ address, service: 'demo.v1.Greeter', method: 'SayHello', proto: PROTO, ...over });

async function failure(p: Promise<unknown>): Promise<HandlerError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(HandlerError);
    return e as HandlerError;
  }
  throw new Error('expected the call to fail');
}

describe('grpc executor', () => {
  it('makes a unary call: payload = request JSON, output = response JSON, metadata sent, well-known Timestamp works', async () => {
    const { ctx } = ctxFor(cfg({ metadata: { 'x-team': 'payments' } }), { name: 'ada', times: 2, mood: 'HAPPY', sentAt: { seconds: '1767225600', nanos: 5 } });
    const out = await grpcHandler(ctx);
    expect(out).toEqual({ message: 'hello ada hello ada', team: 'payments', sentAt: { seconds: '1767225600', nanos: 5 }, mood: 'HAPPY' });
  });

  it('a call to an address let through by TICKFLOW_OUTBOUND_ALLOW carries no proxy metadata (x-forwarded-for and the like)', async () => {
    // as for http (lib/net/outbound.ts withoutProxyHeaders): a service on loopback or a private network may believe them
    seenMetadataKeys.length = 0;
    const { ctx } = ctxFor(cfg({ metadata: { 'x-team': 'payments', 'x-forwarded-for': '198.51.100.1', 'X-Real-IP': '198.51.100.2', forwarded: 'for=198.51.100.3' } }), { name: 'proxy' });
    expect(await grpcHandler(ctx)).toMatchObject({ team: 'payments' });
    expect(seenMetadataKeys).toHaveLength(1);
    expect(seenMetadataKeys[0]).toContain('x-team');
    for (const k of ['x-forwarded-for', 'x-real-ip', 'forwarded']) expect(seenMetadataKeys[0]).not.toContain(k);
  });

  it('collects a server stream into the output and logs each message as a line', async () => {
    const { ctx, lines } = ctxFor(cfg({ method: 'Count' }), { n: 3 });
    const out = await grpcHandler(ctx);
    expect(out).toEqual({ messages: [{ i: 1 }, { i: 2 }, { i: 3 }], count: 3 });
    expect(lines.map((l) => [l.level, l.text])).toEqual([
      ['info', '{"i":1}'],
      ['info', '{"i":2}'],
      ['info', '{"i":3}'],
    ]);
  });

  it('keeps at most GRPC_MAX_KEPT_MESSAGES streamed messages, counting and logging the rest', async () => {
    const { ctx, lines } = ctxFor(cfg({ method: 'Count' }), { n: GRPC_MAX_KEPT_MESSAGES + 25 });
    const out = (await grpcHandler(ctx)) as { messages: { i: number }[]; count: number; droppedMessages: number };
    expect(out.count).toBe(GRPC_MAX_KEPT_MESSAGES + 25);
    expect(out.messages).toHaveLength(GRPC_MAX_KEPT_MESSAGES);
    expect(out.messages.at(-1)).toEqual({ i: GRPC_MAX_KEPT_MESSAGES });
    expect(out.droppedMessages).toBe(25);
    expect(lines).toHaveLength(GRPC_MAX_KEPT_MESSAGES + 25);
  });

  it('fails with the status code name and details on a non-OK status (unary and mid-stream)', async () => {
    const e1 = await failure(grpcHandler(ctxFor(cfg(), { name: 'missing' }).ctx));
    expect(e1.message).toBe('grpc: demo.v1.Greeter/SayHello failed with status NOT_FOUND: no user missing');
    const { ctx, lines } = ctxFor(cfg({ method: 'Count' }), { n: 5, failAfter: 2 });
    const e2 = await failure(grpcHandler(ctx));
    expect(e2.message).toMatch(/status RESOURCE_EXHAUSTED: stopped after 2/);
    expect(lines).toHaveLength(2);
  });

  it('uses the task timeout as the deadline', async () => {
    const e = await failure(grpcHandler(ctxFor(cfg(), { name: 'slow', sleepMs: 5000 }, { timeoutMs: 300 }).ctx));
    expect(e.message).toMatch(/status DEADLINE_EXCEEDED/);
  });

  it('cancels the call when the attempt is aborted', async () => {
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(new Error('cancelled by operator')), 200);
    await expect(grpcHandler(ctxFor(cfg(), { name: 'to-cancel', sleepMs: 5000 }, { signal: ac.signal }).ctx)).rejects.toThrow('cancelled by operator');
    expect(Date.now() - started).toBeLessThan(3000);
    await expect.poll(() => cancelledCalls).toContain('to-cancel');
  });

  it('bad input fails naming the field or the status, never throwing anything else', async () => {
    const cases: [JsonObject, JsonObject, RegExp][] = [
      [cfg({ proto: 'syntax = "proto3"; message X { strin a = 1 }' }), {}, /^grpc: config\.proto: does not parse: .*/],
      [cfg({ proto: 'syntax = "proto3"; import "other/thing.proto"; message X {}' }), {}, /^grpc: config\.proto: import "other\/thing\.proto" is not available/],
      // An absolute import must not read a file of the worker's machine (its text would land in the error).
      [cfg({ proto: 'syntax = "proto3"; import "/etc/hostname"; message X {}' }), {}, /^grpc: config\.proto: import "\/etc\/hostname" is not available \(only the well-known/],
      [cfg({ proto: 'syntax = "proto3"; message X { Missing m = 1; }' }), {}, /^grpc: config\.proto: does not parse: .*Missing/],
      [cfg({ service: 'demo.v1.Nope' }), {}, /config\.service: unknown service "demo\.v1\.Nope" \(the proto defines: demo\.v1\.Greeter\)/],
      [cfg({ method: 'Wave' }), {}, /config\.method: unknown method "Wave" of demo\.v1\.Greeter \(methods: SayHello, Count, Upload\)/],
      [cfg({ method: 'Upload' }), {}, /config\.method: demo\.v1\.Greeter\/Upload is client-streaming/],
      [cfg({ address: 'no port here' }), {}, /config\.address: must be host:port/],
      [cfg({ adress: 'typo' }), {}, /^grpc: config\.adress: unknown field/],
      [cfg({ metadata: { 'bad key!': 'x' } }), { name: 'a' }, /config\.metadata\.bad key!/],
      [cfg({ address: 42 }), {}, /^grpc: config\.address: /],
      [cfg({ proto: undefined }), {}, /^grpc: config\.proto: /],
      [cfg(), { name: 'a', nmae: 'b' }, /payload\.nmae: unknown field of demo\.v1\.HelloRequest/],
      [cfg(), { name: 'a', sent_at: { seconds: 1 } }, /payload\.sent_at: unknown field; write it as "sentAt"/],
      [cfg(), { name: 5 }, /payload\.name: must be a string/],
      [cfg(), { times: 'three' }, /payload\.times: must be an integer between -2147483648 and 2147483647/],
      [cfg(), { times: 2 ** 40 }, /payload\.times: must be an integer/],
      [cfg(), { mood: 'ECSTATIC' }, /payload\.mood: must be one of MOOD_UNSPECIFIED, HAPPY, GRUMPY/],
      [cfg(), { tags: 'one' }, /payload\.tags: must be a JSON array/],
      [cfg(), { tags: ['ok', 3] }, /payload\.tags\.1: must be a string/],
      [cfg(), { sentAt: { seconds: 'soon' } }, /payload\.sentAt\.seconds: must be an integer/],
    ];
    for (const [config, payload, expected] of cases) {
      const e = await failure(grpcHandler(ctxFor(config, payload).ctx));
      expect(e.message, JSON.stringify({ config: { ...config, proto: undefined }, payload })).toMatch(expected);
      expect(e.detail.retryable, e.message).toBe(false);
    }
  });

  it('a loopback, private or metadata address is refused like http (outbound policy) and nothing is dialled', async () => {
    const allow = process.env.TICKFLOW_OUTBOUND_ALLOW;
    delete process.env.TICKFLOW_OUTBOUND_ALLOW;
    try {
      for (const target of [address, '169.254.169.254:80', '[::1]:50051', '10.1.2.3:443']) {
        const e = await failure(grpcHandler(ctxFor(cfg({ address: target }), { name: 'ssrf' }).ctx));
        expect(e.message).toMatch(/^grpc: config\.address: outbound call refused/);
        expect(e.detail.code).toBe('outbound_refused');
      }
    } finally {
      process.env.TICKFLOW_OUTBOUND_ALLOW = allow;
    }
  });

  it('an unreachable address fails with UNAVAILABLE (retryable)', async () => {
    const probe = new grpc.Server();
    const port = await new Promise<number>((resolve, reject) =>
      probe.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    await new Promise<void>((resolve) => probe.tryShutdown(() => resolve()));
    const e = await failure(grpcHandler(ctxFor(cfg({ address: `127.0.0.1:${port}` }), { name: 'a' }, { timeoutMs: 5000 }).ctx));
    expect(e.message).toMatch(/failed with status UNAVAILABLE/);
    expect(e.detail.retryable).toBeUndefined();
  });
});

describe('grpc executor over TLS', () => {
  // A self-signed test certificate for grpc.tickflow.test (tests/fixtures/grpc/test-server.{crt,key}, test use only).
  const cert = readFileSync(path.join(ROOT, 'tests/fixtures/grpc/test-server.crt'));
  const key = readFileSync(path.join(ROOT, 'tests/fixtures/grpc/test-server.key'));
  let tlsServer: grpc.Server;
  let tlsAddress = '';
  beforeAll(async () => {
    const def = protoLoader.loadSync(PROTO_FILE, { keepCase: false, longs: String, enums: String, defaults: true });
    const pkg = grpc.loadPackageDefinition(def) as unknown as { demo: { v1: { Greeter: grpc.ServiceClientConstructor } } };
    tlsServer = new grpc.Server();
    tlsServer.addService(pkg.demo.v1.Greeter.service, {
      SayHello(call: grpc.ServerUnaryCall<{ name: string }, unknown>, cb: grpc.sendUnaryData<unknown>) {
        cb(null, { message: `hello ${call.request.name} over tls` });
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      tlsServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createSsl(null, [{ cert_chain: cert, private_key: key }]), (err, p) => (err ? reject(err) : resolve(p))),
    );
    tlsAddress = `127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => tlsServer.tryShutdown(() => resolve()));
  });

  it('calls a TLS server trusting tlsCa and checking tlsServerName', async () => {
    const config = cfg({ address: tlsAddress, tls: true, tlsCa: cert.toString(), tlsServerName: 'grpc.tickflow.test' });
    await expect(grpcHandler(ctxFor(config, { name: 'ada' }).ctx)).resolves.toMatchObject({ message: 'hello ada over tls' });
  });

  it('refuses a certificate for another name, an untrusted certificate, and plaintext to a TLS server', async () => {
    const wrongName = await failure(grpcHandler(ctxFor(cfg({ address: tlsAddress, tls: true, tlsCa: cert.toString(), tlsServerName: 'other.test' }), { name: 'a' }, { timeoutMs: 5000 }).ctx));
    expect(wrongName.message).toMatch(/status UNAVAILABLE/);
    const untrusted = await failure(grpcHandler(ctxFor(cfg({ address: tlsAddress, tls: true, tlsServerName: 'grpc.tickflow.test' }), { name: 'a' }, { timeoutMs: 5000 }).ctx));
    expect(untrusted.message).toMatch(/status UNAVAILABLE/);
    const plain = await failure(grpcHandler(ctxFor(cfg({ address: tlsAddress }), { name: 'a' }, { timeoutMs: 5000 }).ctx));
    expect(plain.message).toMatch(/status (UNAVAILABLE|INTERNAL)/);
    const caWithoutTls = await failure(grpcHandler(ctxFor(cfg({ address: tlsAddress, tlsCa: cert.toString() }), { name: 'a' }).ctx));
    expect(caWithoutTls.message).toBe('grpc: config.tls: tlsCa / tlsServerName need "tls": true');
  });
});

describe('grpc executor in a worker', () => {
  const t = useTestDatabase();
  const workers = useWorkers();

  it('runs a grpc step: success stores the response; a non-OK status fails the attempt with its name', async () => {
    const worker = createWorker({ config: testWorkerConfig(t.url), db: t.db });
    workers.push(worker);
    await worker.start();
    const run = async (payload: JsonObject) => {
      const jobId = await insertJob(t.db, { scheduleKind: 'manual', maxRetries: 0, steps: [{ handler: 'grpc', config: cfg(), payload }] });
      const { run: r } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
      const [task] = await t.db.task.findMany({ where: { runId: r.id } });
      return waitForFinalTask(t.db, task!.id);
    };
    const ok = await run({ name: 'worker' });
    expect(ok.status).toBe('success');
    expect(ok.output).toMatchObject({ message: 'hello worker' });
    const bad = await run({ name: 'missing' });
    expect(bad.status).toBe('dead');
    expect(bad.error).toBe('grpc: demo.v1.Greeter/SayHello failed with status NOT_FOUND: no user missing');
  });
});
