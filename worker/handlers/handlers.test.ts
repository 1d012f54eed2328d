import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHandlerRegistry, HandlerError, unwrapResult, type HandlerContext, loggerTaskLog } from './index';

const silent = pino({ level: 'silent' });

function ctx(over: Partial<HandlerContext> = {}): HandlerContext {
  return {
    payload: {},
    config: {},
    attempt: 1,
    taskId: 't1',
    runId: 'r1',
    signal: new AbortController().signal,
    log: silent,
    taskLog: loggerTaskLog(silent),
    progress: () => undefined,
    timeoutMs: 10_000,
    ...over,
  };
}

const registry = createHandlerRegistry({ allowShell: true, shellKillGraceMs: 300 });
const h = (name: string) => registry.get(name)!;

describe('builtin handlers', () => {
  it('advertises the built-ins and executors', () => {
    expect(registry.names()).toEqual(
      expect.arrayContaining(['builtin.noop', 'builtin.echo', 'builtin.sleep', 'builtin.fail', 'builtin.flaky', 'builtin.ignore-abort', 'http', 'shell', 'sql']),
    );
  });

  it('noop and echo', async () => {
    expect(await h('builtin.noop')(ctx())).toBeNull();
    expect(await h('builtin.echo')(ctx({ payload: { a: 1, b: [2] } }))).toEqual({ a: 1, b: [2] });
  });

  it('fail throws its message', async () => {
    await expect(h('builtin.fail')(ctx({ payload: { message: 'boom' } }))).rejects.toThrow('boom');
  });

  it('flaky fails while attempt <= failTimes', async () => {
    await expect(h('builtin.flaky')(ctx({ attempt: 1, payload: { failTimes: 2 } }))).rejects.toBeInstanceOf(HandlerError);
    await expect(h('builtin.flaky')(ctx({ attempt: 2, payload: { failTimes: 2 } }))).rejects.toBeInstanceOf(HandlerError);
    expect(await h('builtin.flaky')(ctx({ attempt: 3, payload: { failTimes: 2 } }))).toEqual({ attempt: 3, failTimes: 2 });
  });

  it('sleep honours the AbortSignal; ignore-abort does not', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const ac = new AbortController();
      let slept = false;
      const p = h('builtin.sleep')(ctx({ payload: { ms: 5000 }, signal: ac.signal })).then(() => (slept = true));
      await vi.advanceTimersByTimeAsync(30);
      ac.abort(new Error('stop'));
      await expect(p).rejects.toThrow('stop'); // at the abort, 4,970 ms before its timer
      expect(slept).toBe(false);
      expect(vi.getTimerCount()).toBe(0); // and its timer is cleared

      const ac2 = new AbortController();
      let result: unknown;
      const q = h('builtin.ignore-abort')(ctx({ payload: { ms: 200 }, signal: ac2.signal })).then((r) => (result = r));
      ac2.abort(new Error('ignored'));
      await vi.advanceTimersByTimeAsync(199);
      expect(result).toBeUndefined(); // still sleeping after the abort
      await vi.advanceTimersByTimeAsync(1);
      await q;
      expect(result).toEqual({ sleptMs: 200, ignoredAbort: true });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('shell executor', () => {
  it('runs argv without a shell, captures output and exit code', async () => {
    const r = unwrapResult(await h('shell')(ctx({ config: { command: ['/bin/echo', 'hello $HOME', 'x'] } })));
    expect(r.exitCode).toBe(0);
    expect(r.output).toMatchObject({ exitCode: 0, stdout: 'hello $HOME x\n', stderr: '' });
  });

  it('passes env, cwd and stdin', async () => {
    const r = unwrapResult(
      await h('shell')(ctx({ config: { command: ['/bin/sh', '-c', 'echo "$FOO $(pwd)"; cat'], env: { FOO: 'bar' }, cwd: '/tmp', input: 'in!' } })),
    );
    expect((r.output as { stdout: string }).stdout).toBe('bar /tmp\nin!');
  });

  it('non-zero exit fails with the exit code and output', async () => {
    const err: any = await h('shell')(ctx({ config: { command: ['/bin/sh', '-c', 'echo oops >&2; exit 3'] } })).catch((e: any) => e);
    expect(err).toBeInstanceOf(HandlerError);
    expect(err.detail.exitCode).toBe(3);
    expect(err.detail.output.stderr).toBe('oops\n');
  });

  it('caps captured output', async () => {
    const r = unwrapResult(await h('shell')(ctx({ config: { command: ['/bin/sh', '-c', 'head -c 200000 /dev/zero | tr "\\0" a'] } })));
    const out = r.output as { stdout: string; stdoutTruncated?: boolean };
    expect(out.stdout.length).toBe(64 * 1024);
    expect(out.stdoutTruncated).toBe(true);
  });

  it('a program that ignores SIGTERM is SIGKILLed after the grace', async () => {
    const ac = new AbortController();
    const p = h('shell')(ctx({ signal: ac.signal, config: { command: ['/bin/sh', '-c', "trap '' TERM; sleep 30; echo survived"] } })).catch(
      (e: any) => e,
    );
    setTimeout(() => ac.abort(new Error('timeout')), 200);
    const err: any = await p;
    expect(err).toBeInstanceOf(HandlerError);
    expect(err.detail.output.signal).toBe('SIGKILL'); // killed, not ended: its `sleep 30` never finished
    expect(err.detail.output.stdout).toBe('');
  });

  it('ends when the program exits, even if processes it left behind hold its output', async () => {
    // `setsid` leaves the group (not killed, by design: docs/engine.md); a plain `&` stays in it and is killed
    const tag = `h5-${process.pid}-${Date.now()}`;
    const started = Date.now();
    const r = unwrapResult(
      await h('shell')(ctx({ config: { command: ['/bin/sh', '-c', `setsid sh -c 'sleep 30; : ${tag}-a' & sh -c 'sleep 30; : ${tag}-b' & echo hi`] } })),
    );
    expect(Date.now() - started).toBeLessThan(4000);
    expect(r.exitCode).toBe(0);
    expect((r.output as { stdout: string }).stdout).toBe('hi\n');
    const { execFileSync } = await import('node:child_process');
    const left = () => {
      try {
        return execFileSync('pgrep', ['-f', tag]).toString().trim().split('\n').filter(Boolean);
      } catch {
        return []; // pgrep: nothing matched
      }
    };
    await vi.waitFor(() => expect(left().length).toBe(1)); // the setsid one only: its group's member was killed
    for (const pid of left()) process.kill(-Number(pid), 'SIGKILL'); // setsid: it leads its own group
  }, 8000);

  it('after the program exits, output its leftovers still write is waited for while it flows', async () => {
    const r = unwrapResult(
      await h('shell')(ctx({ config: { command: ['/bin/sh', '-c', '(for i in 1 2 3 4; do sleep 0.3; echo "late $i"; done) & echo first'] } })),
    );
    expect((r.output as { stdout: string }).stdout).toBe('first\nlate 1\nlate 2\nlate 3\nlate 4\n');
  }, 8000);

  it('a program killed by any signal gets 128 + its number as exit code', async () => {
    const err: any = await h('shell')(ctx({ config: { command: ['/bin/sh', '-c', 'kill -USR1 $$'] } })).catch((e: any) => e);
    expect(err.detail.output).toMatchObject({ signal: 'SIGUSR1', exitCode: 138 });
    expect(err.detail.exitCode).toBe(138);
  });

  it('arguments over the system limit fail the attempt naming E2BIG', async () => {
    const err: any = await h('shell')(ctx({ config: { command: ['/bin/echo', 'x'.repeat(3_000_000)] } })).catch((e: any) => e);
    expect(err).toBeInstanceOf(HandlerError);
    expect(err.message).toMatch(/^shell: cannot start \/bin\/echo: .*\(E2BIG\)/);
  });

  it('is refused without allowShell, with a clear message', async () => {
    const locked = createHandlerRegistry({ allowShell: false });
    await expect(locked.get('shell')!(ctx({ config: { command: ['/bin/true'] } }))).rejects.toThrow(/TICKFLOW_ALLOW_SHELL=1/);
  });

  it('rejects a command string (no shell parsing)', async () => {
    await expect(h('shell')(ctx({ config: { command: 'echo hi' } }))).rejects.toThrow(/array of strings/);
  });
});

describe('http executor', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const url = new URL(req.url!, 'http://x');
        if (url.pathname === '/json') {
          res.setHeader('content-type', 'application/json');
          res.setHeader('x-request-id', 'abc');
          res.setHeader('set-cookie', 'secret=1');
          res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null, ct: req.headers['content-type'] ?? null }));
        } else if (url.pathname === '/status') {
          res.statusCode = Number(url.searchParams.get('code'));
          res.end('nope');
        } else if (url.pathname === '/slow') {
          setTimeout(() => res.end('late'), 5000).unref();
        } else if (url.pathname === '/big') {
          res.end('x'.repeat(200_000));
        } else if (url.pathname === '/huge-header') {
          res.setHeader('x-huge', 'a'.repeat(100_000));
          res.end('never read');
        } else res.end('plain');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // this test's own server is on loopback: allow exactly it (lib/net/outbound.ts)
    process.env.TICKFLOW_OUTBOUND_ALLOW = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    delete process.env.TICKFLOW_OUTBOUND_ALLOW;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('sends method, headers and a JSON body; returns status, kept headers and parsed body', async () => {
    const out = (await h('http')(
      ctx({ config: { url: `${base}/json`, method: 'post', headers: { authorization: 'Bearer t' } }, payload: { body: { a: 1 } } }),
    )) as { status: number; headers: Record<string, string>; body: Record<string, unknown> };
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ method: 'POST', body: '{"a":1}', auth: 'Bearer t', ct: 'application/json' });
    expect(out.headers['x-request-id']).toBe('abc');
    expect(out.headers).not.toHaveProperty('set-cookie');
  });

  it('non-2xx fails with the response attached; expectStatus overrides', async () => {
    const err: any = await h('http')(ctx({ config: { url: `${base}/status?code=503` } })).catch((e: any) => e);
    expect(err).toBeInstanceOf(HandlerError);
    expect(err.message).toMatch(/503/);
    expect(err.detail.output).toMatchObject({ status: 503, body: 'nope' });
    const ok = (await h('http')(ctx({ config: { url: `${base}/status?code=404`, expectStatus: 404 } }))) as { status: number };
    expect(ok.status).toBe(404);
  });

  it('caps the body', async () => {
    const out = (await h('http')(ctx({ config: { url: `${base}/big` } }))) as { body: string; bodyTruncated?: boolean };
    expect(out.body.length).toBe(64 * 1024);
    expect(out.bodyTruncated).toBe(true);
  });

  it('aborts on the signal (timeout)', async () => {
    const err: any = await h('http')(ctx({ config: { url: `${base}/slow` }, signal: AbortSignal.timeout(200) })).catch((e: any) => e);
    expect(String(err?.name)).toMatch(/TimeoutError|AbortError/); // /slow answers after 5 s: an error means the signal ended the call
  });

  it('a failed request says why, not only undici\'s `fetch failed`', async () => {
    const err: any = await h('http')(ctx({ config: { url: `${base}/huge-header?token=secret` } })).catch((e: any) => e);
    expect(err).toBeInstanceOf(HandlerError);
    expect(err.message).toMatch(/^http: GET http:\/\/127\.0\.0\.1:\d+\/huge-header failed: fetch failed: caused by: .*Headers Overflow/);
    expect(err.message).not.toContain('secret');
  });

  it('rejects non-http urls', async () => {
    await expect(h('http')(ctx({ config: { url: 'file:///etc/passwd' } }))).rejects.toThrow(/payload\.url: must be an absolute http:\/\/ or https:\/\/ URL/);
  });
});
