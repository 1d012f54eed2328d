import http from 'node:http';
import type { AddressInfo } from 'node:net';
import dns from 'node:dns';
import dnsPromises from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { allowEntryProblem, checkOutboundAllowSetting, MAX_OUTBOUND_REDIRECTS, outboundAllowList, outboundFetch, OutboundRefusedError, refusedHostMessage, resolveOutboundAddress } from './outbound.ts';
import { parseAddress } from './cidr.ts';

type Server = { port: number; hits: string[]; close(): Promise<void> };
async function server(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Server> {
  const hits: string[] = [];
  const s = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return { port: (s.address() as AddressInfo).port, hits, close: () => new Promise((r) => s.close(() => r())) };
}

const NONE = {} as unknown as NodeJS.ProcessEnv;

describe('outbound guard', () => {
  let target: Server;
  beforeAll(async () => {
    target = await server((_req, res) => res.end('secret'));
  });
  afterAll(async () => {
    await target.close();
  });

  it.each([
    ['127.0.0.1', 'a loopback'],
    ['::1', 'a loopback'],
    ['[::1]', 'a loopback'],
    ['::ffff:127.0.0.1', 'a loopback'],
    ['10.0.0.1', 'a private'],
    ['192.168.1.10', 'a private'],
    ['172.16.5.4', 'a private'],
    ['169.254.169.254', 'a link-local'],
    ['100.100.100.200', 'a carrier-grade NAT'],
    ['fd00:ec2::254', 'a unique-local'],
    ['fe80::1', 'a link-local'],
    ['0.0.0.0', 'an unspecified'],
    ['224.0.0.1', 'a multicast'],
    ['64:ff9b::7f00:1', 'an RFC 6052 \\(NAT64\\)'],
    ['2002:7f00:1::', 'a 6to4'],
    ['2002:808:808::1', 'a 6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo'],
    ['::ffff:0:7f00:1', 'an RFC 6145 \\(IPv4-translated\\)'],
    // IPv4-compatible (::/96, deprecated): ipaddr.js calls these unicast
    ['::127.0.0.1', 'an IPv4-compatible'],
    ['[::7f00:1]', 'an IPv4-compatible'],
    ['::a9fe:a9fe', 'an IPv4-compatible'],
    ['::10.0.0.1', 'an IPv4-compatible'],
    ['::8.8.8.8', 'an IPv4-compatible'],
    ['::2', 'an IPv4-compatible'],
  ])('refuses %s (%s) by default', async (host, range) => {
    await expect(resolveOutboundAddress(host, 80, NONE)).rejects.toThrow(new RegExp(`is ${range} address`));
  });

  it('reads ::a.b.c.d as the IPv4-compatible IPv6 address it is, ::ffff:a.b.c.d as the IPv4 address', () => {
    expect(parseAddress('::127.0.0.1')?.toString()).toBe('::7f00:1');
    expect(parseAddress('[::8.8.8.8]')?.toString()).toBe('::808:808');
    expect(parseAddress('::ffff:127.0.0.1')?.toString()).toBe('127.0.0.1');
    expect(parseAddress('::FFFF:7f00:1')?.toString()).toBe('127.0.0.1');
    expect(parseAddress('64:ff9b::127.0.0.1')?.toString()).toBe('64:ff9b::7f00:1');
    expect(parseAddress('::1.2.3')).toBeNull();
  });

  it('refuses a host name that resolves to loopback (checked after DNS)', async () => {
    await expect(resolveOutboundAddress('localhost', 80, NONE)).rejects.toThrow(refusedHostMessage('localhost'));
  });

  it("a host name's refusal names neither the address nor the range, nor tells an unknown name from an internal one", async () => {
    // what an operator probing the internal network through a step's URL or a webhook would read
    const answers: Record<string, () => Promise<unknown>> = {
      'db.internal.example': async () => [{ address: '10.1.2.3', family: 4 }],
      'meta.internal.example': async () => [{ address: '169.254.169.254', family: 4 }],
      'v6.internal.example': async () => [{ address: 'fd00:ec2::254', family: 6 }],
      'nothing.internal.example': async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nothing.internal.example'), { code: 'ENOTFOUND' });
      },
    };
    const p = vi.spyOn(dnsPromises, 'lookup').mockImplementation(((host: string) => answers[host]!()) as never);
    try {
      for (const host of Object.keys(answers)) {
        const err = await resolveOutboundAddress(host, 443, NONE).then(() => null, (e: unknown) => e as Error);
        expect(err, host).toBeInstanceOf(OutboundRefusedError);
        expect(err!.message).toBe(refusedHostMessage(host));
        expect(err!.message).not.toMatch(/10\.1\.2\.3|169\.254|fd00|is a |ENOTFOUND/);
      }
    } finally {
      p.mockRestore();
    }
  });

  it('an address literal is named with its range: the caller wrote it', async () => {
    await expect(resolveOutboundAddress('10.1.2.3', 80, NONE)).rejects.toThrow(/^outbound call refused: 10\.1\.2\.3 is a private address/);
  });

  it('lets public addresses through and resolves them', async () => {
    expect(await resolveOutboundAddress('8.8.8.8', 53, NONE)).toEqual({ address: '8.8.8.8', family: 4 });
    expect(await resolveOutboundAddress('[2606:4700:4700::1111]', 443, NONE)).toEqual({ address: '2606:4700:4700::1111', family: 6 });
  });

  it('TICKFLOW_OUTBOUND_ALLOW: CIDRs, host names and host:port entries', async () => {
    const env = { TICKFLOW_OUTBOUND_ALLOW: '10.0.0.0/8, intranet.example, 127.0.0.1:8080, [::1]:9090' } as unknown as NodeJS.ProcessEnv;
    const allow = outboundAllowList(env);
    expect(allow.cidrs).toHaveLength(1);
    expect([...allow.hosts]).toEqual(['intranet.example']);
    expect([...allow.hostPorts].sort()).toEqual(['127.0.0.1:8080', '::1:9090']);
    expect((await resolveOutboundAddress('10.2.3.4', 80, env)).address).toBe('10.2.3.4');
    expect((await resolveOutboundAddress('127.0.0.1', 8080, env)).address).toBe('127.0.0.1');
    await expect(resolveOutboundAddress('127.0.0.1', 8081, env)).rejects.toThrow(OutboundRefusedError);
    expect((await resolveOutboundAddress('::1', 9090, env)).address).toBe('::1');
  });

  it('a host:port/path entry admits requests to that one path, nothing else of the port', async () => {
    const console_ = await server((_req, res) => res.end('ok'));
    try {
      const env = { TICKFLOW_OUTBOUND_ALLOW: `127.0.0.1:${console_.port}/api/v1/health/` } as unknown as NodeJS.ProcessEnv;
      expect(outboundAllowList(env).hostPorts.size).toBe(0);
      expect(outboundAllowList(env).hostPortPaths.get(`127.0.0.1:${console_.port}`)).toEqual(['/api/v1/health']);
      for (const path of ['/api/v1/health', '/api/v1/health/', '/api/v1/health?probe=1', '/api/v1/x/../health']) {
        const res = await outboundFetch(`http://127.0.0.1:${console_.port}${path}`, {}, env);
        expect(await res.text()).toBe('ok');
      }
      const admitted = console_.hits.length;
      // a sibling prefix, a route below it, another route, dot segments and their escapes (which the URL parser resolves) stay refused
      // and so do paths that end in it behind a repeated slash, which a server merging slashes routes as /x/api/v1/health
      for (const path of ['/api/v1/healthz', '/api/v1/health/deep', '/login', '/', '/api/v1/health/../../../login', '/api/v1/health/%2e%2e/%2E%2E/jobs', '/API/v1/health', '//x/api/v1/health', '/\\x/api/v1/health', `//127.0.0.1:${console_.port}/api/v1/health`, '//api/v1/health', '/api//v1/health']) {
        await expect(outboundFetch(`http://127.0.0.1:${console_.port}${path}`, {}, env)).rejects.toThrow(/outbound call refused/);
      }
      // a connection an executor dials itself has no path: such an entry never admits it
      await expect(resolveOutboundAddress('127.0.0.1', console_.port, env)).rejects.toThrow(OutboundRefusedError);
      expect(console_.hits.length).toBe(admitted);
    } finally {
      await console_.close();
    }
  });

  it('a redirect from an admitted path to another path of the same port is refused', async () => {
    const hop = await server((req, res) => {
      if (req.url === '/ok') res.writeHead(302, { location: '/login' }).end();
      else res.end('reached');
    });
    try {
      const env = { TICKFLOW_OUTBOUND_ALLOW: `127.0.0.1:${hop.port}/ok` } as unknown as NodeJS.ProcessEnv;
      await expect(outboundFetch(`http://127.0.0.1:${hop.port}/ok`, {}, env)).rejects.toThrow(/outbound call refused/);
      expect(hop.hits).toEqual(['/ok']);
    } finally {
      await hop.close();
    }
  });

  it('outboundFetch never connects to a refused address, however the URL spells it', async () => {
    for (const url of [`http://127.0.0.1:${target.port}/a`, `http://2130706433:${target.port}/b`, `http://0x7f.1:${target.port}/c`, `http://localhost:${target.port}/d`, `http://[::127.0.0.1]:${target.port}/e`, `http://[::ffff:127.0.0.1]:${target.port}/f`]) {
      await expect(outboundFetch(url, {}, NONE)).rejects.toThrow(/outbound call refused/);
    }
    expect(target.hits).toEqual([]);
  });

  it('checks every redirect hop, and caps redirects', async () => {
    const hop = await server((req, res) => {
      if (req.url === '/to-target') res.writeHead(302, { location: `http://127.0.0.1:${target.port}/stolen` }).end();
      else if (req.url?.startsWith('/loop')) res.writeHead(307, { location: `/loop${Number(req.url.slice(5) || 0) + 1}` }).end();
      else res.end('ok');
    });
    try {
      const env = { TICKFLOW_OUTBOUND_ALLOW: `127.0.0.1:${hop.port}` } as unknown as NodeJS.ProcessEnv;
      expect(await (await outboundFetch(`http://127.0.0.1:${hop.port}/plain`, {}, env)).text()).toBe('ok');
      await expect(outboundFetch(`http://127.0.0.1:${hop.port}/to-target`, {}, env)).rejects.toThrow(/outbound call refused: 127\.0\.0\.1 is a loopback address/);
      expect(target.hits).toEqual([]);
      hop.hits.length = 0;
      await expect(outboundFetch(`http://127.0.0.1:${hop.port}/loop0`, {}, env)).rejects.toThrow(`more than ${MAX_OUTBOUND_REDIRECTS} redirects`);
      expect(hop.hits).toHaveLength(MAX_OUTBOUND_REDIRECTS + 1);
      // maxRedirects 0: the 3xx comes back as is
      expect((await outboundFetch(`http://127.0.0.1:${hop.port}/to-target`, { maxRedirects: 0 }, env)).status).toBe(302);
    } finally {
      await hop.close();
    }
  });

  it('a redirect to another origin carries none of the step\'s headers but the few that hold no credential', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const other = await server((req, res) => {
      seen.push(req.headers);
      res.end('ok');
    });
    const hop = await server((req, res) => {
      if (req.url === '/same') res.writeHead(302, { location: '/there' }).end();
      else if (req.url === '/there') {
        seen.push(req.headers);
        res.end('ok');
      } else res.writeHead(302, { location: `http://127.0.0.1:${other.port}/elsewhere` }).end();
    });
    try {
      const env = { TICKFLOW_OUTBOUND_ALLOW: `127.0.0.1:${hop.port},127.0.0.1:${other.port}` } as unknown as NodeJS.ProcessEnv;
      const headers = { 'X-Api-Key': 'k-123456', 'PRIVATE-TOKEN': 't-123456', authorization: 'Bearer b-123456', accept: 'application/json', 'user-agent': 'tickflow-test' };
      expect((await outboundFetch(`http://127.0.0.1:${hop.port}/away`, { headers }, env)).status).toBe(200);
      expect(seen[0]).toMatchObject({ accept: 'application/json', 'user-agent': 'tickflow-test' });
      for (const h of ['x-api-key', 'private-token', 'authorization']) expect(seen[0]![h]).toBeUndefined();
      // on the same origin the request is the step's own, whole
      expect((await outboundFetch(`http://127.0.0.1:${hop.port}/same`, { headers }, env)).status).toBe(200);
      expect(seen[1]).toMatchObject({ 'x-api-key': 'k-123456', 'private-token': 't-123456', authorization: 'Bearer b-123456' });
    } finally {
      await hop.close();
      await other.close();
    }
  });

  it('a call let through to a special address by TICKFLOW_OUTBOUND_ALLOW carries no proxy headers (a loopback service may believe them from its proxy)', async () => {
    // The reported escalation: npm start lets the worker call its own console on loopback (the demo health
    // check); behind a reverse proxy on the same host (TICKFLOW_TRUSTED_PROXIES=127.0.0.1) an operator's
    // http step could send any X-Forwarded-For and reset the login rate limit with every request.
    const seen: http.IncomingHttpHeaders[] = [];
    const svc = await server((req, res) => {
      seen.push(req.headers);
      res.end('ok');
    });
    try {
      const env = { TICKFLOW_OUTBOUND_ALLOW: `127.0.0.1:${svc.port}` } as unknown as NodeJS.ProcessEnv;
      const headers = {
        'X-Forwarded-For': '198.51.100.1',
        forwarded: 'for=198.51.100.2',
        'x-forwarded-host': 'console.example',
        'X-Forwarded-Proto': 'https',
        'X-Real-IP': '198.51.100.3',
        'True-Client-IP': '198.51.100.4',
        'x-tickflow-peer-address': '198.51.100.5',
        'x-custom': 'kept',
        authorization: 'Bearer kept',
      };
      expect((await outboundFetch(`http://127.0.0.1:${svc.port}/api/v1/health`, { headers }, env)).status).toBe(200);
      const got = seen[0]!;
      for (const h of ['x-forwarded-for', 'forwarded', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip', 'true-client-ip', 'x-tickflow-peer-address']) expect(got[h]).toBeUndefined();
      expect(got['x-custom']).toBe('kept');
      expect(got.authorization).toBe('Bearer kept');
    } finally {
      await svc.close();
    }
  });

  it('pins the connection to the checked address (a DNS answer that changes after the check reaches nothing else)', async () => {
    // two servers on one port: the checked address (127.0.0.1, allowed) and where a rebinding answer points (127.0.0.3)
    const good = await server((_req, res) => res.end('checked'));
    const evil = http.createServer((_req, res) => res.end('rebound'));
    let evilHits = 0;
    evil.on('request', () => evilHits++);
    await new Promise<void>((r) => evil.listen(good.port, '127.0.0.3', r));
    let lookups = 0;
    const answer = () => (lookups++ === 0 ? '127.0.0.1' : '127.0.0.3');
    const p = vi.spyOn(dnsPromises, 'lookup').mockImplementation((async () => [{ address: answer(), family: 4 }]) as never);
    const c = vi.spyOn(dns, 'lookup').mockImplementation(((_h: string, o: unknown, cb: (e: null, a: unknown, f?: number) => void) => {
      const a = answer();
      if (typeof o === 'object' && o && (o as { all?: boolean }).all) cb(null, [{ address: a, family: 4 }]);
      else cb(null, a, 4);
    }) as never);
    try {
      const env = { TICKFLOW_OUTBOUND_ALLOW: '127.0.0.1/32' } as unknown as NodeJS.ProcessEnv;
      const res = await outboundFetch(`http://rebind.example:${good.port}/`, {}, env);
      expect(await res.text()).toBe('checked');
      expect(evilHits).toBe(0);
      expect(lookups).toBe(1);
    } finally {
      p.mockRestore();
      c.mockRestore();
      await new Promise((r) => evil.close(r));
      await good.close();
    }
  });
});

describe('TICKFLOW_OUTBOUND_ALLOW check at start', () => {
  it('accepts every form outboundAllowList reads', () => {
    for (const e of ['10.0.0.0/8', '::1', 'fd00::/8', '127.0.0.1', 'intranet.example', 'my_service', '127.0.0.1:3000', 'localhost:3000', '[::1]:8080', '127.0.0.1:3000/api/v1/health', '[::1]:3300/api/v1/health'])
      expect(allowEntryProblem(e), e).toBeNull();
    expect(() => checkOutboundAllowSetting({ TICKFLOW_OUTBOUND_ALLOW: ' 10.0.0.0/8 , intranet.example,,127.0.0.1:3000/api/v1/health ' })).not.toThrow();
    expect(() => checkOutboundAllowSetting({})).not.toThrow();
  });

  it('refuses an entry that would open nothing, naming the variable and the entry', () => {
    const cases: [string, RegExp][] = [
      ['10.0.0.0/33', /not a CIDR/],
      ['http://intranet.example', /is a URL/],
      ['intranet.example:99999', /port/],
      ['intranet.example:0', /port/],
      ['intranet.example:', /port/],
      ['*.example.com', /neither an address nor a DNS name/],
      ['user@intranet.example', /neither an address nor a DNS name/],
      ['[zz]:80', /neither an address nor a DNS name/],
    ];
    for (const [entry, why] of cases) {
      expect(allowEntryProblem(entry), entry).toMatch(why);
      expect(() => checkOutboundAllowSetting({ TICKFLOW_OUTBOUND_ALLOW: `10.0.0.0/8,${entry}` }), entry).toThrow(`TICKFLOW_OUTBOUND_ALLOW: entry ${JSON.stringify(entry)}`);
    }
  });
});
