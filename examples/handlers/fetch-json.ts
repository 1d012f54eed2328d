/**
 * Example handler: calls an HTTP API and returns what it answered.
 * The URL comes from the payload, which any operator may write, so the request goes through
 * `outboundFetch` (the guard `http` uses: no loopback, private, link-local or metadata
 * address unless TICKFLOW_OUTBOUND_ALLOW lists it), never plain `fetch`.
 * The attempt's AbortSignal goes to it, so the task timeout and "Cancel run" stop
 * the request at once. Walkthrough: README "Write your own handler", docs/handlers.md.
 */
import { defineHandler, outboundFetch, z } from 'tickflow/handlers';

/** Largest response body kept in the output (characters). */
const BODY_MAX_CHARS = 16_384;

export default defineHandler({
  name: 'examples.fetch-json',
  description: 'GETs a URL and returns its status and JSON (or text) body',
  input: z.object({
    url: z.url({ protocol: /^https?$/ }).describe('http(s) URL to GET'),
    expectStatus: z.number().int().min(100).max(599).default(200).describe('status that counts as success'),
    headers: z.record(z.string(), z.string()).optional().describe('request headers'),
  }),
  timeoutSeconds: 30,
  retry: { maxRetries: 2 },
  async run(ctx) {
    const { url, expectStatus, headers } = ctx.payload;
    ctx.log.info(`GET ${url}`, { attempt: ctx.attempt });
    const started = Date.now();
    const res = await outboundFetch(url, { headers, signal: ctx.signal });
    const text = await res.text();
    ctx.log.info(`${res.status} ${res.statusText} in ${Date.now() - started} ms, ${text.length} characters`);
    let body: unknown = text.length > BODY_MAX_CHARS ? `${text.slice(0, BODY_MAX_CHARS)}…` : text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text.length <= BODY_MAX_CHARS) {
      try {
        body = JSON.parse(text);
      } catch {
        ctx.log.warn('the body says JSON but does not parse; kept as text');
      }
    }
    if (res.status !== expectStatus) {
      ctx.log.error(`expected status ${expectStatus}`);
      throw new Error(`GET ${url} answered ${res.status}, expected ${expectStatus}`);
    }
    return { status: res.status, body };
  },
});
