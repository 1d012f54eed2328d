/**
 * Error text from network libraries often quotes the URL it was given (undici: "Request cannot be
 * constructed from a URL that includes credentials: http://user:pw@host/p?token=…"), and such text
 * ends up in task errors, task log lines and alarm delivery errors that every role reads and the
 * log search finds (docs/security.md "Secrets in views"). These helpers cut the parts of a URL that
 * may carry a secret before the text is stored.
 */

/** Anything that looks like an absolute URL with a scheme, up to whitespace or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>`]+/gi;

/**
 * `url` without the parts that may carry a secret: no user name or password, the query and the
 * fragment as `?…` / `#…`; with `keepPath` false (a webhook, whose path is often its token) the
 * path is `/…` too. Text that does not parse as a URL is `…`.
 */
export function redactUrl(url: string | URL, opts: { keepPath?: boolean } = {}): string {
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return '…';
  }
  const path = opts.keepPath === false ? (u.pathname === '/' ? '' : '/…') : u.pathname === '/' && !u.search && !u.hash ? '' : u.pathname;
  return `${u.origin === 'null' ? `${u.protocol}//…` : u.origin}${path}${u.search ? '?…' : ''}${u.hash ? '#…' : ''}`;
}

/**
 * `text` with every URL in it redacted (redactUrl, same options): for error messages that quote
 * the URL a request was made to.
 */
export function redactUrlsIn(text: string, opts: { keepPath?: boolean } = {}): string {
  return text.replace(URL_IN_TEXT, (m) => redactUrl(m, opts));
}
