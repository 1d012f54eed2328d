/**
 * Hooks around every HTTP request of this process, before Next.js sees it: the one place that
 * wraps `http.Server.prototype.emit('request')`, which is how the console reaches requests Next
 * never hands to its own code (lib/infra/http-guard.ts answers some itself, and
 * lib/infra/outage-status.ts runs each one with a note and rewrites a noted 500). Installed from
 * instrumentation.ts.
 */
import http from 'node:http';

/**
 * A hook: handles the request itself and returns true, or calls `next()` (the later hooks, then
 * the server's own listeners) and returns what it returned.
 */
export type RequestHook = (req: http.IncomingMessage, res: http.ServerResponse, next: () => boolean) => boolean;

type Emit = (event: string | symbol, ...rest: unknown[]) => boolean;

// On globalThis: instrumentation.ts and the route bundles each get their own copy of this module.
const holder = globalThis as unknown as { tickflowRequestHooks?: RequestHook[] };

/**
 * Adds `hook` after those added before it (the first added runs first, outermost). The first call
 * wraps `http.Server.prototype.emit` for every server of the process; later ones only append.
 */
export function addRequestHook(hook: RequestHook): void {
  if (!holder.tickflowRequestHooks) {
    const hooks: RequestHook[] = [];
    holder.tickflowRequestHooks = hooks;
    const emit = http.Server.prototype.emit as Emit;
    http.Server.prototype.emit = function hookedEmit(this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
      if (event !== 'request') return emit.call(this, event, ...args);
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      const step = (i: number): boolean => (i < hooks.length ? hooks[i]!(req, res, () => step(i + 1)) : emit.call(this, event, ...args));
      return step(0);
    } as typeof http.Server.prototype.emit;
  }
  holder.tickflowRequestHooks.push(hook);
}
