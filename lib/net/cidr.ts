/**
 * IP address lists (CIDRs and plain addresses) with ipaddr.js, shared by the
 * trusted-proxy check (lib/auth/client-address.ts) and the outbound guard
 * (lib/net/outbound.ts). IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are treated
 * as the IPv4 address they carry; IPv4-compatible ones (::a.b.c.d, deprecated) stay IPv6.
 */
import ipaddr from 'ipaddr.js';

export type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Cidr = [Address, number];

/** Parses an address (IPv4, IPv6, IPv4-mapped IPv6 -> IPv4), or null. Brackets and a zone id are dropped. */
export function parseAddress(text: string | null | undefined): Address | null {
  if (!text) return null;
  const t = text.trim().replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!ipaddr.isValid(t)) return null;
  try {
    return ipaddr.process(t.includes(':') ? dottedTailToHex(t) : t);
  } catch {
    return null;
  }
}

/**
 * `::1.2.3.4` -> `::102:304`. ipaddr.js reads an IPv6 address ending in a dotted IPv4 address whose
 * other groups are all zero as IPv4-mapped (`::ffff:1.2.3.4`), which it is not: `::127.0.0.1` is the
 * IPv4-compatible `::7f00:1` (what a URL parser makes of it), not 127.0.0.1.
 */
function dottedTailToHex(t: string): string {
  return t.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a: string, b: string, c: string, d: string) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
}

/**
 * Parses one CIDR (`10.0.0.0/8`, `fd00::/8`) or a plain address (a /32 or /128).
 * @returns null when `text` is neither
 */
export function parseCidr(text: string): Cidr | null {
  const t = text.trim();
  if (t.includes('/')) {
    if (!ipaddr.isValidCIDR(t)) return null;
    const [addr, bits] = ipaddr.parseCIDR(t);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) return [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96];
    return [addr, bits];
  }
  const a = parseAddress(t);
  return a ? [a, a.kind() === 'ipv4' ? 32 : 128] : null;
}

/** true when `addr` lies in any of `ranges` (kinds must match). */
export function inRanges(addr: Address, ranges: readonly Cidr[]): boolean {
  return ranges.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
}
