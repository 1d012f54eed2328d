/**
 * The answer of a console page that met a database outage while rendering.
 *
 * proxy.ts answers 503 before rendering while the database probe (lib/infra/database-probe.ts) says the
 * database is away. A page whose probe passed and whose queries then failed (the database went away in
 * between, or a query timed out) throws during rendering, and Next.js answers any error thrown before the
 * response starts streaming with a 500: it lets a page choose only 404, 401, 403 or a redirect, because a
 * status can no longer change once streaming began (docs/operations.md "Database restarts and failover").
 * The console's pages do not stream (no loading.tsx or Suspense around their data), so nothing is written
 * yet when the error is caught: this module runs each request with a note (AsyncLocalStorage) that console
 * code sets when it meets the outage (noteRequestMetOutage, app/_lib/page-error.ts), and a 500 of a request
 * so noted goes out as proxy.ts's 503 page instead — the same status, Retry-After and text
 * (databaseUnavailablePage), readable without JavaScript and reloading itself. Any other status (a 200
 * already streaming, a redirect), and a server action's answer, is left as Next.js wrote it.
 * Installed by instrumentation.ts in the console process, like lib/infra/http-guard.ts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailablePage } from './database-unavailable.ts';
import { addRequestHook } from './request-hooks.ts';

interface RequestNote {
  metOutage: boolean;
}

// On globalThis: instrumentation.ts and the route bundles each get their own copy of this module.
const holder = globalThis as unknown as { tickflowRequestNotes?: AsyncLocalStorage<RequestNote> };
const notes = (holder.tickflowRequestNotes ??= new AsyncLocalStorage<RequestNote>());

/** Records that the request being served met a database outage: its 500, if it ends in one, is sent as the 503 page. No-op outside a request. */
export function noteRequestMetOutage(): void {
  const note = notes.getStore();
  if (note) note.metOutage = true;
}

/**
 * The status and headers a response goes out with instead: a 500 of a request that met the outage becomes
 * the 503 page's; anything else is unchanged (null).
 */
export function outageStatus(status: number, metOutage: boolean): { status: number; headers: Record<string, string> } | null {
  if (!metOutage || status !== 500) return null;
  return { status: 503, headers: { 'content-type': 'text/html; charset=utf-8', 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS), 'cache-control': 'no-store' } };
}

type Callback = (error?: Error | null) => void;

/** Sends `res`'s noted 500 as the 503 page: its status line and headers, and the page in place of every body byte given. */
function replaceNoted500(res: http.ServerResponse, note: RequestNote): void {
  const { writeHead, write, end } = res;
  let replaced = false;
  // Node writes the status line through writeHead, explicitly or on the first write (implicit headers).
  res.writeHead = function outageWriteHead(this: http.ServerResponse, ...args: unknown[]) {
    const changed = outageStatus(typeof args[0] === 'number' ? args[0] : this.statusCode, note.metOutage);
    if (changed) {
      replaced = true;
      args[0] = changed.status;
      if (typeof args[1] === 'string') args.splice(1, 1); // a reason phrase given for the 500
      const given = args[1];
      if (given && typeof given === 'object' && !Array.isArray(given)) {
        for (const name of Object.keys(given)) if (/^(content-length|content-encoding|etag)$/i.test(name)) delete (given as Record<string, unknown>)[name];
        Object.assign(given, changed.headers);
      }
      // Next's page body, and a compression of it, give way to the page
      for (const name of ['content-length', 'content-encoding', 'etag']) this.removeHeader(name);
      for (const [name, value] of Object.entries(changed.headers)) this.setHeader(name, value);
    }
    return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, args);
  } as typeof res.writeHead;
  // The decision is taken before the first byte: write() would otherwise send its chunk after the status line.
  const decideFirst = () => {
    if (!res.headersSent && outageStatus(res.statusCode, note.metOutage)) res.writeHead(res.statusCode);
  };
  res.write = function outageWrite(this: http.ServerResponse, ...args: unknown[]) {
    decideFirst();
    if (!replaced) return (write as (...a: unknown[]) => boolean).apply(this, args);
    const callback = args.find((a): a is Callback => typeof a === 'function');
    if (callback) process.nextTick(callback);
    return true;
  } as typeof res.write;
  res.end = function outageEnd(this: http.ServerResponse, ...args: unknown[]) {
    decideFirst();
    if (!replaced) return (end as (...a: unknown[]) => http.ServerResponse).apply(this, args);
    const callback = args.find((a): a is Callback => typeof a === 'function');
    return end.call(this, this.req?.method === 'HEAD' ? undefined : databaseUnavailablePage(), 'utf8', callback);
  } as typeof res.end;
}

let installed = false;

/** Makes every http.Server of this process serve each request with a note, and send a noted 500 as the 503 page (lib/infra/request-hooks.ts). Idempotent. */
export function installOutageStatus(): void {
  if (installed) return;
  installed = true;
  addRequestHook((req, res, next) => {
    const note: RequestNote = { metOutage: false };
    // A server action's answer is the framework's data, which its caller reads (an error with its digest, for the
    // error boundary): the HTML page in its place would be an unreadable answer there.
    if (!req.headers['next-action']) replaceNoted500(res, note);
    return notes.run(note, next);
  });
}
