/**
 * The HTTP status of a console page that met a database outage while rendering.
 *
 * proxy.ts answers 503 before rendering while the database probe (lib/infra/database-probe.ts) says the
 * database is away. A page whose probe passed and whose queries then failed (the database went away in
 * between, or a query timed out) throws during rendering, and Next.js answers any error thrown before the
 * response starts streaming with a 500: it lets a page choose only 404, 401, 403 or a redirect, because a
 * status can no longer change once streaming began (docs/operations.md "Database restarts and failover").
 * The console's pages do not stream (no loading.tsx or Suspense around their data), so the status is still
 * unwritten when the error is caught: this module runs each request with a note (AsyncLocalStorage) that
 * console code sets when it meets the outage (noteRequestMetOutage, app/_lib/page-error.ts), and a 500
 * of a request so noted goes out as 503 with Retry-After. Any other status — a 200 already streaming, a
 * redirect — is left as Next.js wrote it.
 * Installed by instrumentation.ts in the console process, like lib/infra/http-guard.ts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import { DATABASE_RETRY_AFTER_SECONDS } from './database-unavailable.ts';

interface RequestNote {
  metOutage: boolean;
}

// On globalThis: instrumentation.ts and the route bundles each get their own copy of this module.
const holder = globalThis as unknown as { tickflowRequestNotes?: AsyncLocalStorage<RequestNote> };
const notes = (holder.tickflowRequestNotes ??= new AsyncLocalStorage<RequestNote>());

/** Records that the request being served met a database outage: its 500, if it ends in one, is sent as a 503. No-op outside a request. */
export function noteRequestMetOutage(): void {
  const note = notes.getStore();
  if (note) note.metOutage = true;
}

/**
 * The status and extra headers a response goes out with: a 500 of a request that met the outage becomes
 * a 503 with Retry-After and no caching; anything else is unchanged (null).
 */
export function outageStatus(status: number, metOutage: boolean): { status: number; headers: Record<string, string> } | null {
  if (!metOutage || status !== 500) return null;
  return { status: 503, headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS), 'cache-control': 'no-store' } };
}

let installed = false;

/** Makes every http.Server of this process serve each request with a note, and turn a noted 500 into a 503. Idempotent. */
export function installOutageStatus(): void {
  if (installed) return;
  installed = true;
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function notedEmit(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'request') return (emit as (event: string | symbol, ...rest: unknown[]) => boolean).call(this, event, ...args);
    const res = args[1] as http.ServerResponse;
    const note: RequestNote = { metOutage: false };
    const writeHead = res.writeHead;
    // Node writes the status line through writeHead, explicitly or on the first write (implicit headers).
    res.writeHead = function outageWriteHead(this: http.ServerResponse, ...headArgs: unknown[]) {
      const changed = outageStatus(typeof headArgs[0] === 'number' ? headArgs[0] : this.statusCode, note.metOutage);
      if (changed) {
        headArgs[0] = changed.status;
        // a reason phrase given for the 500 would now be wrong
        if (typeof headArgs[1] === 'string') headArgs.splice(1, 1);
        const given = headArgs[1];
        if (given && typeof given === 'object' && !Array.isArray(given)) Object.assign(given, changed.headers);
        else for (const [name, value] of Object.entries(changed.headers)) this.setHeader(name, value);
      }
      return (writeHead as (...a: unknown[]) => http.ServerResponse).apply(this, headArgs);
    } as typeof res.writeHead;
    return notes.run(note, () => (emit as (event: string | symbol, ...rest: unknown[]) => boolean).call(this, event, ...args));
  } as typeof emit;
}
