/**
 * The client address a console request comes from, for the login rate limit
 * (docs/security.md "Login"). The peer address of the TCP connection is the
 * truth; `X-Forwarded-For` is believed only when that peer is one of
 * TICKFLOW_TRUSTED_PROXIES (CIDRs or addresses, comma-separated), and then read
 * from the right, skipping trusted hops, to the first address a trusted proxy saw
 * (the usual rule; a client can prepend anything it likes to the left).
 *
 * Next.js does not hand the peer address to route handlers or server actions, so
 * the console process is started with scripts/peer-address.mjs, which stamps it
 * into PEER_ADDRESS_HEADER (overwriting anything the client sent). Without that
 * hook the header is ignored and every client counts as one, `unknown`.
 */
import { inRanges, parseAddress, parseCidr, type Cidr } from '../net/cidr.ts';

export const PEER_ADDRESS_HEADER = 'x-tickflow-peer-address';
export const UNKNOWN_CLIENT = 'unknown';

/** TICKFLOW_TRUSTED_PROXIES parsed; an entry that is not a CIDR or address is an error (a typo must not widen trust). */
export function trustedProxies(env: NodeJS.ProcessEnv = process.env): Cidr[] {
  const raw = env.TICKFLOW_TRUSTED_PROXIES ?? '';
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const c = parseCidr(s);
      if (!c) throw new Error(`TICKFLOW_TRUSTED_PROXIES: "${s}" is not an IP address or CIDR`);
      return c;
    });
}

/** true when the console process runs with the peer-address hook (scripts/peer-address.mjs). */
export function peerHookInstalled(): boolean {
  return (globalThis as { __tickflowPeerAddressHook?: boolean }).__tickflowPeerAddressHook === true;
}

/**
 * The client address of a request.
 * @param peer the TCP peer address (PEER_ADDRESS_HEADER), null when unknown
 * @param forwardedFor the raw X-Forwarded-For header, if any
 * @param trusted trusted proxy ranges (trustedProxies())
 * @returns a normalised address, or UNKNOWN_CLIENT when the peer is unknown
 */
export function clientAddress(peer: string | null | undefined, forwardedFor: string | null | undefined, trusted: readonly Cidr[] = trustedProxies()): string {
  const p = parseAddress(peer);
  if (!p) return UNKNOWN_CLIENT;
  if (!forwardedFor || !inRanges(p, trusted)) return p.toString();
  const hops = forwardedFor.split(',').map((s) => s.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const a = parseAddress(hops[i]);
    if (!a) return p.toString(); // garbage in the chain: fall back to what we know
    if (!inRanges(a, trusted)) return a.toString();
  }
  return p.toString();
}

/** clientAddress for a request's headers (the peer header counts only with the hook installed). */
export function clientAddressOf(headers: Headers, trusted?: readonly Cidr[]): string {
  const peer = peerHookInstalled() ? headers.get(PEER_ADDRESS_HEADER) : null;
  return clientAddress(peer, headers.get('x-forwarded-for'), trusted);
}

/**
 * true when the request came through one of TICKFLOW_TRUSTED_PROXIES (the peer hook must be
 * installed to know the peer): only then are `X-Forwarded-Host` / `X-Forwarded-Proto` the
 * address the browser used, not something any client can write (docs/security.md "Behind a proxy").
 */
export function fromTrustedProxy(headers: Headers, trusted: readonly Cidr[] = trustedProxies()): boolean {
  if (!peerHookInstalled()) return false;
  const p = parseAddress(headers.get(PEER_ADDRESS_HEADER));
  return p !== null && inRanges(p, trusted);
}
