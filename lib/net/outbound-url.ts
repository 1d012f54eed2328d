/**
 * The one rule for a URL Tickflow will call on a user's behalf: a webhook alarm's target
 * (lib/api/schemas.ts AlarmChannelInput) and an `http` step's `url` (lib/handlers/builtin-schemas.ts
 * HttpSettings). docs/security.md "Outbound calls".
 *
 * The WHATWG URL parser the delivery uses repairs much of what it is given: `http:///x` becomes
 * `http://x/`, `http:x` too, tabs and newlines vanish, `0x7f.1` becomes `127.0.0.1`, `ex%41mple.com`
 * becomes `example.com` and `аpple.com` (a Cyrillic а) becomes `xn--pple-43d.com`. A URL is
 * accepted only when it is written as it will be called, so what a reader of the job or alarm sees
 * is where the request goes: the scheme, `//`, and a host spelled as the parser reads it.
 */
import { hasUrlCredentials } from './url-credentials.ts';

/** One label of a DNS host name (letters, digits, `-`, `_` as some internal names have it), 1..63 characters. */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i;

/** Whether `host` (lower or upper case, an optional final dot) is a DNS name: labels of LABEL, at most 253 characters. */
export function isDnsName(host: string): boolean {
  const plain = host.replace(/\.$/, '');
  return plain.length > 0 && plain.length <= 253 && plain.split('.').every((l) => LABEL.test(l));
}

/** The authority part of `raw` (between `scheme://` and the first `/`, `?` or `#`), or null when `raw` does not start with `http(s)://`. */
function authorityOf(raw: string): string | null {
  const m = /^https?:\/\/([^/?#]*)/i.exec(raw);
  return m ? m[1]! : null;
}

/** `host` (as written, without brackets) as a host the parser keeps unchanged: dotted IPv4, bracketed IPv6, or DNS labels. */
function hostProblem(written: string, parsed: string): string | null {
  // non-ASCII or percent-escapes in a host are rewritten by the parser (IDN to xn--, %41 to A)
  if (/[^\x21-\x7e]/.test(written)) return 'has a host name with non-ASCII characters: write an internationalised name in its ASCII (xn--) form';
  if (written.includes('%')) return 'has a percent-escape in its host name';
  if (written.startsWith('[')) return null; // an IPv6 literal: the parser has checked it, and it names one address
  const plain = written.toLowerCase().replace(/\.$/, '');
  // `0x7f.1`, `2130706433`, `127.1`: a spelling of an IPv4 address other than the dotted one it stands for
  if (plain !== parsed.replace(/\.$/, '')) return `has a host written as ${JSON.stringify(written)}, which is called as ${parsed}: write ${parsed}`;
  if (!isDnsName(plain)) return 'has a host name that is not a valid DNS name (labels of letters, digits and -, 1 to 63 characters each)';
  return null;
}

/**
 * Why `raw` may not be called (a phrase that follows the field's name: "has no host", "must not
 * carry a user name or password"), or null when it may: an absolute `http://` or `https://` URL,
 * with no white space, control character or backslash, no user information (`user:pass@`, even
 * empty), a host written as the URL parser reads it (no IDN in Unicode, no percent-escape, no
 * shortened or numeric IPv4 form), and a port, when given, in 1..65535.
 * Pure; no DNS: whether the host's address may be reached is lib/net/outbound.ts's check at call time.
 */
export function outboundUrlProblem(raw: string): string | null {
  if (/[\s\p{Cc}]/u.test(raw)) return 'must not contain spaces, line breaks or control characters';
  if (raw.includes('\\')) return 'must not contain a backslash (write /)';
  const authority = authorityOf(raw);
  if (authority === null) return 'must be an absolute http:// or https:// URL';
  if (authority.includes('@') || hasUrlCredentials(raw)) return 'must not carry a user name or password (user:password@host)';
  const hostPort = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(authority)!;
  const [, host, port] = hostPort;
  if (host === '') return 'has no host (write http://host/…)';
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) return 'has a port that is not a number from 1 to 65535';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a valid URL';
  }
  return hostProblem(host!, url.hostname);
}
