/**
 * `http` executor: one HTTP request per attempt.
 *
 * Settings (config overlaid by payload), parsed by lib/handlers/builtin-schemas.ts HttpSettings
 * (the schema a save checks too; a bad one fails the attempt naming `payload.<field>`, no retries):
 * `method` (GET), `url` (required, http/https), `headers` (names and values fetch accepts),
 * `body` (string sent as is; anything else JSON-encoded with a JSON content type),
 * `expectStatus` (status 100..599 or a list; default any 2xx).
 * No timeout or size cap is read from the payload: the task timeout aborts the
 * request and the body cap is HTTP_BODY_CAP_BYTES.
 * The request is aborted by the attempt's AbortSignal (timeout/cancel).
 * Output `{ status, headers (subset), body (size-capped text or parsed JSON) }`;
 * an unexpected status fails the attempt with that output attached.
 * Every hop goes through lib/net/outbound.ts (no loopback, private, link-local or
 * metadata address unless TICKFLOW_OUTBOUND_ALLOW lists it; at most
 * MAX_OUTBOUND_REDIRECTS redirects, each checked); a refusal fails the attempt
 * with code `outbound_refused`.
 */
import { outboundFetch, OutboundRefusedError } from '../../lib/net/outbound.ts';
import { readCapped } from '../../lib/net/read-capped.ts';
import { redactUrlsIn } from '../../lib/net/redact-urls.ts';
import { describeError } from '../output.ts';
import { HttpSettings } from '../../lib/handlers/builtin-schemas.ts';
import { builtinSettings, capText, HandlerError, settings, type Handler } from './types.ts';

export const HTTP_BODY_CAP_BYTES = 64 * 1024;
const KEPT_HEADERS = ['content-type', 'content-length', 'location', 'etag', 'last-modified', 'retry-after', 'x-request-id'];

export const http: Handler = async (ctx) => {
  const s = builtinSettings('http', HttpSettings, settings(ctx));
  const parsed = new URL(s.url);
  const method = (s.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.headers ?? {})) headers[k] = String(v);
  let body: string | undefined;
  if (s.body !== undefined && s.body !== null && method !== 'GET' && method !== 'HEAD') {
    if (typeof s.body === 'string') {
      body = s.body;
    } else {
      body = JSON.stringify(s.body);
      if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
  }

  // Logged without credentials, query string or headers: any of them may carry a secret.
  const shown = `${parsed.origin}${parsed.pathname}${parsed.search ? '?…' : ''}`;
  ctx.taskLog.info(`${method} ${shown}`, { method, url: shown, ...(body !== undefined ? { requestBytes: Buffer.byteLength(body, 'utf8') } : {}) });
  const started = Date.now();
  let res: Awaited<ReturnType<typeof outboundFetch>>;
  try {
    res = await outboundFetch(parsed, { method, headers, body, signal: ctx.signal });
  } catch (err) {
    if (ctx.signal.aborted) throw ctx.signal.reason ?? err;
    if (err instanceof OutboundRefusedError) throw new HandlerError(`http: ${method} ${parsed.origin}${parsed.pathname}: ${err.message}`, { code: err.code });
    // undici says only `fetch failed`: why (ECONNREFUSED, a reset, headers too large) is in its cause, so the
    // causes are read too; the library's text may quote the URL whole (credentials, query): stored, it would
    // be readable by every role
    throw new HandlerError(`http: ${method} ${parsed.origin}${parsed.pathname} failed: ${redactUrlsIn(describeError(err))}`, { code: 'network' });
  }

  const text = await readCapped(res, HTTP_BODY_CAP_BYTES, ctx.signal);
  let responseBody: unknown = text.text;
  if ((res.headers.get('content-type') ?? '').includes('json') && !text.truncated) {
    try {
      responseBody = JSON.parse(text.text);
    } catch {
      /* keep text */
    }
  }
  const keptHeaders: Record<string, string> = {};
  for (const h of KEPT_HEADERS) {
    const v = res.headers.get(h);
    if (v !== null) keptHeaders[h] = v;
  }
  const output = { status: res.status, headers: keptHeaders, body: responseBody, ...(text.truncated ? { bodyTruncated: true } : {}) };

  const expected = expectedStatuses(s.expectStatus);
  const ok = expected ? expected.includes(res.status) : res.status >= 200 && res.status < 300;
  const summary = `${res.status}${res.statusText ? ` ${res.statusText}` : ''} in ${Date.now() - started} ms, ${Buffer.byteLength(text.text, 'utf8')}${text.truncated ? '+' : ''} bytes${keptHeaders['content-type'] ? ` (${keptHeaders['content-type']})` : ''}`;
  if (ok) ctx.taskLog.info(summary, { status: res.status });
  else ctx.taskLog.error(summary, { status: res.status });
  if (!ok) {
    throw new HandlerError(`http: ${method} ${parsed.origin}${parsed.pathname} answered ${res.status}`, { output, code: 'status' });
  }
  return output;
};

/** `expectStatus` as parsed by HttpSettings: absent -> null (any 2xx), else the list of statuses. */
function expectedStatuses(v: HttpSettings['expectStatus']): number[] | null {
  if (v === undefined || v === null) return null;
  return (Array.isArray(v) ? v : [v]).map(Number);
}
