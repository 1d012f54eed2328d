/**
 * The guard for every call Tickflow makes to an address a user chose: the `http`
 * executor, webhook alarms, and any executor that dials out (call
 * resolveOutboundAddress before connecting). docs/security.md "Outbound calls".
 *
 * By default only public unicast addresses are reachable: loopback, private
 * (RFC 1918), carrier-grade NAT (also Alibaba's metadata 100.100.100.200),
 * link-local (cloud metadata 169.254.169.254), unique-local IPv6, multicast,
 * broadcast, unspecified, reserved and documentation ranges, and IPv6 forms that
 * embed an IPv4 address (6to4, Teredo, NAT64, IPv4-compatible ::a.b.c.d) are refused — classified with
 * ipaddr.js `range()`, anything but `unicast` is refused. The check runs on the
 * addresses a host name RESOLVES to (every one of them), on every redirect hop,
 * and the connection is then pinned to the checked address (an undici Agent whose
 * `connect.lookup` answers only that address), so a DNS answer that changes
 * between check and connect (DNS rebinding) cannot reach anything else.
 *
 * TICKFLOW_OUTBOUND_ALLOW (comma-separated) opens exceptions: CIDRs or addresses
 * (`10.0.0.0/8`, `::1`) allow those addresses; host names (`intranet.example`)
 * allow that name whatever it resolves to; `host:port` allows one port of a host
 * (`127.0.0.1:3000`, `localhost:3000`, `[::1]:8080`); `host:port/path` allows only http(s)
 * requests to that one URL path of the port, with any query (`127.0.0.1:3000/api/v1/health`),
 * never a connection an executor dials itself (which has no path).
 */
import dns from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import type { Agent, RequestInit as UndiciRequestInit, Response as UndiciResponse } from 'undici';
import { inRanges, parseAddress, parseCidr, type Address, type Cidr } from './cidr.ts';
import { log } from '../log.ts';
import { ConfigError } from '../infra/env-int.ts';
import { isDnsName } from './outbound-url.ts';

/** Most redirects one outbound request follows (each hop is checked again). */
export const MAX_OUTBOUND_REDIRECTS = 5;

/**
 * A refused outbound call. The message names the host as written and, for an address literal, its
 * range; for a host name it says only that the name does not lead to an address Tickflow may call
 * (refusedHostMessage): it becomes a task's or an alarm's error, which every role reads.
 */
export class OutboundRefusedError extends Error {
  readonly code = 'outbound_refused';
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

export type OutboundAllowList = {
  cidrs: Cidr[];
  hosts: Set<string>;
  hostPorts: Set<string>;
  /** `host:port` → the URL paths (each without a trailing slash) allowed there, each alone */
  hostPortPaths: Map<string, string[]>;
};

function normHost(h: string): string {
  return h.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** TICKFLOW_OUTBOUND_ALLOW parsed (read on every call, so a test may set it for its own servers). */
export function outboundAllowList(env: NodeJS.ProcessEnv = process.env): OutboundAllowList {
  const out: OutboundAllowList = { cidrs: [], hosts: new Set(), hostPorts: new Set(), hostPortPaths: new Map() };
  for (const raw of (env.TICKFLOW_OUTBOUND_ALLOW ?? '').split(',')) {
    const entry = raw.trim();
    if (!entry) continue;
    const cidr = parseCidr(entry);
    if (cidr) {
      out.cidrs.push(cidr);
      continue;
    }
    const m = /^(\[[^\]]+\]|[^:/]+):(\d{1,5})(\/.*)?$/.exec(entry);
    if (!m) {
      out.hosts.add(normHost(entry));
      continue;
    }
    const hostPort = `${normHost(m[1]!)}:${Number(m[2])}`;
    const path = m[3] === undefined ? undefined : normalisedPath(m[3]);
    if (path === undefined || path === '') out.hostPorts.add(hostPort);
    else out.hostPortPaths.set(hostPort, [...(out.hostPortPaths.get(hostPort) ?? []), path]);
  }
  return out;
}

/**
 * Why one TICKFLOW_OUTBOUND_ALLOW entry is not one of the forms outboundAllowList reads (a CIDR or
 * address, a host name, `host:port`, `host:port/path`), or null when it is. outboundAllowList reads a
 * malformed entry as a host name no request ever names, so a typo (`10.0.0.0/33`, `http://intranet`,
 * `intranet:99999`) would open nothing without a word: checkOutboundAllowSetting refuses it at start.
 */
export function allowEntryProblem(entry: string): string | null {
  if (parseCidr(entry)) return null;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) return 'is a URL: write the host, host:port or host:port/path';
  if (entry.includes('/') && !/^(\[[^\]]+\]|[^:/]+):/.test(entry)) return 'is not a CIDR (address/prefix length) nor host:port/path';
  const m = /^(\[[^\]]+\]|[^:/]+)(?::([^/]*))?(\/.*)?$/.exec(entry);
  if (!m) return 'is not a CIDR, an address, a host name, host:port or host:port/path';
  const [, host, port] = m;
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) return 'has a port that is not a number from 1 to 65535';
  if (host!.startsWith('[') ? !parseAddress(host) : !(parseAddress(host) || isDnsName(host!))) return 'has a host that is neither an address nor a DNS name';
  return null;
}

/**
 * Checks TICKFLOW_OUTBOUND_ALLOW entry by entry (allowEntryProblem); called where a process starts
 * (worker/config.ts loadWorkerConfig, scripts/start.ts), as the rest of the configuration is.
 * @throws ConfigError naming the variable, the entry and what is wrong with it
 */
export function checkOutboundAllowSetting(env: Record<string, string | undefined> = process.env): void {
  for (const raw of (env.TICKFLOW_OUTBOUND_ALLOW ?? '').split(',')) {
    const entry = raw.trim();
    const problem = entry ? allowEntryProblem(entry) : null;
    if (problem) throw new ConfigError(`TICKFLOW_OUTBOUND_ALLOW: entry ${JSON.stringify(entry)} ${problem}`);
  }
}

/** How refusals name ipaddr.js's ranges (its names are identifiers: `linkLocal`, `ipv4Compatible`), with their article. */
const RANGE_PHRASES: Record<string, string> = {
  loopback: 'a loopback',
  private: 'a private',
  linkLocal: 'a link-local',
  uniqueLocal: 'a unique-local',
  unspecified: 'an unspecified',
  multicast: 'a multicast',
  broadcast: 'a broadcast',
  reserved: 'a reserved',
  carrierGradeNat: 'a carrier-grade NAT',
  ipv4Mapped: 'an IPv4-mapped',
  ipv4Compatible: 'an IPv4-compatible',
  rfc6145: 'an RFC 6145 (IPv4-translated)',
  rfc6052: 'an RFC 6052 (NAT64)',
  '6to4': 'a 6to4',
  teredo: 'a Teredo',
  benchmarking: 'a benchmarking',
};

/** "a link-local", "an IPv4-compatible": the phrase a refusal uses for an address range. */
function rangePhrase(range: string): string {
  return RANGE_PHRASES[range] ?? `a special-purpose (${range})`;
}

/**
 * The ipaddr.js range of an address: `unicast` for a public one, else the special range's name;
 * `ipv4Compatible` for the deprecated IPv4-compatible IPv6 addresses (`::a.b.c.d`, RFC 4291
 * §2.5.5.1) other than `::` and `::1`.
 */
export function addressRange(addr: Address): string {
  const range = addr.range();
  // ipaddr.js calls ::/96 unicast, but ::127.0.0.1 (::7f00:1) carries an IPv4 address a stack
  // or tunnel may deliver to, and no public service has such an address: refused whatever it carries.
  if (range === 'unicast' && addr.kind() === 'ipv6' && addr.toByteArray().slice(0, 12).every((b) => b === 0)) return 'ipv4Compatible';
  return range;
}

/**
 * A path as the URL parser leaves it (dot segments resolved, escapes kept), without a trailing slash.
 * Parsed as the path of a URL, never as a reference against one: `//x/api/v1/health` resolved as a
 * reference is the network path of host `x` (path `/api/v1/health`), and so passed for the allowed
 * path while the request went to `//x/api/v1/health`, which a server that merges slashes (nginx,
 * Apache) routes as `/x/api/v1/health`.
 */
function normalisedPath(path: string): string {
  return new URL(`http://x${path.startsWith('/') ? '' : '/'}${path}`).pathname.replace(/\/+$/, '');
}

/**
 * Whether the allow list lets `host:port` through: a host name or `host:port` entry, or, for an
 * http(s) request to URL path `path`, a `host:port/path` entry naming that path (a trailing slash
 * aside). One path, not a prefix: what lies below a route is another route, perhaps a page that
 * answers server actions.
 */
function allowedByList(host: string, port: number, allow: OutboundAllowList, path?: string): boolean {
  const h = normHost(host);
  const hostPort = `${h}:${port}`;
  if (allow.hosts.has(h) || allow.hostPorts.has(hostPort)) return true;
  if (path === undefined) return false;
  const requested = normalisedPath(path);
  return (allow.hostPortPaths.get(hostPort) ?? []).includes(requested);
}

const ALLOW_HINT = 'calls to loopback, private, link-local, metadata and other special addresses need TICKFLOW_OUTBOUND_ALLOW';

/**
 * The refusal of a host name (not an address literal), one text whatever the reason: it does not
 * resolve, or one of its addresses is special (loopback, private, link-local…). Naming the address
 * or the range, or telling an unknown name from an internal one, would let whoever may edit a job
 * or an alarm map the internal network and its DNS names through a task's or an alarm's error,
 * which every role reads (docs/security.md "Outbound calls"). The worker's log has the reason.
 */
export function refusedHostMessage(host: string): string {
  return `outbound call refused: ${host} does not resolve to an address Tickflow may call (it may not resolve, or resolve to a special address: ${ALLOW_HINT})`;
}

/**
 * Resolves `host` and checks every address it resolves to; returns the one to connect to.
 * For any executor that opens its own connections (gRPC…): connect to the returned
 * address (keep `host` for TLS server name checks), never resolve `host` again.
 * @param host a host name or IP literal (IPv6 with or without brackets)
 * @param port the TCP port (1..65535), used for `host:port` allow-list entries
 * @param path the URL path of an http(s) request (outboundFetch), for `host:port/path` entries;
 *   absent for a connection an executor dials itself, which such entries never admit
 * @throws OutboundRefusedError when the host does not resolve, or resolves to a refused range (for a
 *   host name without saying which: refusedHostMessage)
 */
export async function resolveOutboundAddress(
  host: string,
  port: number,
  env: NodeJS.ProcessEnv = process.env,
  path?: string,
): Promise<{ address: string; family: 4 | 6 }> {
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) throw new OutboundRefusedError(`outbound call refused: invalid host or port ${JSON.stringify(host)}:${port}`);
  const allow = outboundAllowList(env);
  const listed = allowedByList(host, port, allow, path);
  const literal = parseAddress(host);
  let addresses: LookupAddress[];
  // a host name's refusals, whatever the reason, read alike (refusedHostMessage); the reason goes to the log
  const refuseName = (why: Record<string, unknown>) => {
    log('outbound').warn({ host, port, ...why }, 'outbound call refused');
    return new OutboundRefusedError(refusedHostMessage(host));
  };
  if (literal) addresses = [{ address: literal.toString(), family: literal.kind() === 'ipv4' ? 4 : 6 }];
  else {
    try {
      addresses = await dns.lookup(normHost(host), { all: true, verbatim: true });
    } catch (e) {
      throw refuseName({ error: (e as Error).message });
    }
    if (addresses.length === 0) throw refuseName({ error: 'no address' });
  }
  const checked: { address: string; family: 4 | 6 }[] = [];
  for (const a of addresses) {
    const addr = parseAddress(a.address);
    if (!addr) throw literal ? new OutboundRefusedError(`outbound call refused: ${host} is not a readable address`) : refuseName({ address: a.address, error: 'unreadable address' });
    const range = addressRange(addr);
    const ok = listed || range === 'unicast' || inRanges(addr, allow.cidrs);
    if (!ok) {
      if (!literal) throw refuseName({ address: addr.toString(), range });
      throw new OutboundRefusedError(`outbound call refused: ${host} is ${rangePhrase(range)} address; ${ALLOW_HINT}`);
    }
    checked.push({ address: addr.toString(), family: addr.kind() === 'ipv4' ? 4 : 6 });
  }
  return checked[0]!;
}

/**
 * undici, imported at the first outbound call: a worker whose tasks make none (and whose
 * alarms send no webhook) does not keep it in memory (docs/operations.md "Worker memory").
 */
function loadUndici(): Promise<typeof import('undici')> {
  return import('undici');
}

/** An undici Agent that connects every request to `pinned`, whatever the URL's host resolves to now. */
function pinnedAgent(AgentClass: typeof Agent, pinned: { address: string; family: 4 | 6 }): Agent {
  return new AgentClass({
    connect: {
      lookup: ((_host: string, options: { all?: boolean }, cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
        if (options?.all) cb(null, [{ address: pinned.address, family: pinned.family }]);
        else cb(null, pinned.address, pinned.family);
      }) as never,
    },
  });
}

export type OutboundInit = {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** redirects to follow, each checked again (default MAX_OUTBOUND_REDIRECTS; 0: a 3xx is returned as is) */
  maxRedirects?: number;
};

const REDIRECT = new Set([301, 302, 303, 307, 308]);

/**
 * The headers a request keeps when a redirect leaves its origin: none of them carries a credential.
 * Every other one is dropped, not only Authorization and Cookie: an API key travels in a header of any
 * name (`X-Api-Key`, `PRIVATE-TOKEN`, a worker secret a step put there: docs/security.md "Worker
 * secrets"), and the server that answers with the redirect, not the step, chooses where it goes.
 */
const CROSS_ORIGIN_HEADERS = /^(accept|accept-language|accept-encoding|content-type|content-language|user-agent|cache-control|pragma)$/i;

/**
 * Headers by which a proxy tells a service who the client is (and Tickflow's own peer-address
 * header, scripts/peer-address.mjs). A service on loopback or a private network often believes
 * them from its neighbours: the console does from TICKFLOW_TRUSTED_PROXIES (lib/auth/client-address.ts),
 * and `npm start` lets the worker call that console on loopback. So a call admitted to a special
 * address only by TICKFLOW_OUTBOUND_ALLOW never carries them: a step cannot pose as the proxy
 * (e.g. a new X-Forwarded-For per request to escape the login rate limit). Public addresses get
 * what the step set.
 */
const PROXY_HEADER = /^(forwarded|x-forwarded-[a-z0-9-]+|x-real-ip|x-client-ip|true-client-ip|cf-connecting-ip|x-cluster-client-ip|fastly-client-ip|x-original-forwarded-for|x-tickflow-peer-address)$/i;

/**
 * `headers` without the proxy ones (PROXY_HEADER) when `address` (an address resolveOutboundAddress
 * returned) is special, i.e. reached only through TICKFLOW_OUTBOUND_ALLOW; as given otherwise.
 * outboundFetch applies it to every hop; an executor that dials itself applies it to what it sends
 * along (the gRPC executor's metadata).
 */
export function withoutProxyHeaders<V>(address: string, headers: Record<string, V>): Record<string, V> {
  const addr = parseAddress(address);
  if (addr && addressRange(addr) === 'unicast') return headers;
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !PROXY_HEADER.test(k.trim())));
}

/**
 * fetch() through the guard: http(s) only, every hop's host resolved and checked
 * (resolveOutboundAddress) and the connection pinned to the checked address;
 * redirects followed by hand up to `maxRedirects` (303, and 301/302 after a
 * POST, become a GET without body, as browsers do; a redirect that leaves the origin keeps only
 * the headers CROSS_ORIGIN_HEADERS lists). A hop to a special address let through
 * by TICKFLOW_OUTBOUND_ALLOW is sent without proxy headers (PROXY_HEADER).
 * @throws OutboundRefusedError (refused address, scheme, too many redirects); network errors as thrown by undici
 */
export async function outboundFetch(url: string | URL, init: OutboundInit = {}, env: NodeJS.ProcessEnv = process.env): Promise<UndiciResponse> {
  let current = new URL(String(url));
  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body;
  let headers = { ...(init.headers ?? {}) };
  const max = init.maxRedirects ?? MAX_OUTBOUND_REDIRECTS;
  const { Agent: AgentClass, fetch: undiciFetch } = await loadUndici();
  for (let hop = 0; ; hop++) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:') throw new OutboundRefusedError(`outbound call refused: only http and https, got ${current.protocol}`);
    const port = Number(current.port || (current.protocol === 'https:' ? 443 : 80));
    const pinned = await resolveOutboundAddress(current.hostname, port, env, current.pathname);
    const agent = pinnedAgent(AgentClass, pinned);
    let res: UndiciResponse;
    try {
      res = await undiciFetch(current, { method, headers: withoutProxyHeaders(pinned.address, headers), body, signal: init.signal, redirect: 'manual', dispatcher: agent } as UndiciRequestInit);
    } catch (e) {
      void agent.close().catch(() => undefined);
      throw e;
    }
    // close() waits for this request's body to be read (or cancelled), then frees the socket
    void agent.close().catch(() => undefined);
    const location = res.headers.get('location');
    if (!REDIRECT.has(res.status) || !location || max === 0) return res;
    await res.body?.cancel().catch(() => undefined);
    if (hop + 1 > max) throw new OutboundRefusedError(`outbound call refused: more than ${max} redirects (last to ${new URL(location, current).origin})`);
    const next = new URL(location, current);
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = method === 'HEAD' ? 'HEAD' : 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-/i.test(k)));
    }
    if (next.origin !== current.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => CROSS_ORIGIN_HEADERS.test(k.trim())));
    current = next;
  }
}
