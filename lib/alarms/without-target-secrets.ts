/**
 * The shortest part of a webhook URL treated as secret on its own. Shorter path segments and query
 * values (`v1`, `api`, `id`) would be a token no receiver issues, and hiding them would also blank
 * out ordinary words of the receiver's answer.
 */
export const MIN_SECRET_PART_LENGTH = 4;

/** `s` percent-decoded, or `s` itself when it is not valid percent-encoding. */
function decoded(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/**
 * The parts of a webhook URL that may carry its credential: the path, the query and the fragment
 * whole, every path segment, every query parameter (`key=value`) and value, and the user
 * information; each as written, percent-decoded and percent-encoded, longest first. Slack, Teams
 * and Discord put a webhook's token in its path; other receivers in a query parameter.
 */
function secretParts(u: URL): string[] {
  const parts = new Set<string>();
  const add = (s: string) => {
    for (const form of [s, decoded(s), encodeURIComponent(decoded(s))]) if (form.length >= MIN_SECRET_PART_LENGTH) parts.add(form);
  };
  add(`${u.pathname}${u.search}`);
  add(u.pathname);
  add(u.pathname.replace(/\/{2,}/g, '/')); // a receiver's router may normalise repeated slashes
  add(u.search.slice(1));
  add(u.hash.slice(1));
  add(u.username);
  add(u.password);
  for (const segment of u.pathname.split('/')) add(segment);
  for (const pair of u.search.slice(1).split('&')) {
    add(pair);
    add(pair.slice(pair.indexOf('=') + 1));
  }
  return [...parts].sort((a, b) => b.length - a.length);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `text` (a receiver's answer or an error message) with every part of the webhook `target` that may
 * carry its credential replaced by `…`: its path, query and fragment, each path segment and query
 * value of at least MIN_SECRET_PART_LENGTH characters, as written, decoded or encoded, in any
 * letter case. The alarms list shows a webhook only as its origin (redact-target.ts) and every role
 * may read alarms (docs/security.md "Secrets in views"): a delivery error must not give back what
 * that hides, even when the receiver quotes its path normalised or only the token.
 * @param target the webhook URL (a target that does not parse leaves `text` as it is)
 */
export function withoutTargetSecrets(text: string, target: string): string {
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return text;
  }
  const parts = secretParts(u);
  if (parts.length === 0) return text;
  return text.replace(new RegExp(parts.map(escapeRegExp).join('|'), 'gi'), '…');
}
