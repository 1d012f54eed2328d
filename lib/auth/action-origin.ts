/**
 * The CSRF check of server actions, done by proxy.ts before Next sees the request so that a
 * refusal is a 403 (Next's own check, node_modules/next/dist/server/app-render/action-handler.js,
 * answers a cross-origin action with a 500 "Invalid Server Actions request"). The same rule as
 * Next's (no `serverActions.allowedOrigins` is configured): the host of the `Origin` header
 * (`null` stays `null`) must equal the first `x-forwarded-host` value (trimmed), else the `Host`
 * header. A request without `Origin` is left to Next (it lets it through, as browsers old enough
 * not to send it do). It applies to every request Next may run as an action (mayBeServerAction), with
 * or without the `Next-Action` header: Next answers a foreign form post without it with a 500 too.
 */

/**
 * Whether Next may take this request for a server action, by its own rule
 * (node_modules/next/dist/server/lib/server-action-request-meta.js, `isPossibleServerAction`): a POST
 * with the `Next-Action` header (the browser's fetch of an action after hydration), or a POST of
 * `multipart/form-data` without it (a form posted before hydration, whose action id is a form field:
 * the sign-in and sign-out forms work that way). A URL-encoded POST is never run as an action
 * (Next renders the page for it). Both kinds get the same Origin check (crossOriginActionRefusal).
 * @param method the request's method; @param headers its headers (`next-action`, `content-type`)
 */
export function mayBeServerAction(method: string, headers: Headers): boolean {
  if (method !== 'POST') return false;
  return headers.has('next-action') || (headers.get('content-type') ?? '').startsWith('multipart/form-data');
}

/**
 * Why a server action request must be refused, or null when its origin matches its host.
 * @param headers the request's headers (`origin`, `x-forwarded-host`, `host`)
 */
export function crossOriginActionRefusal(headers: Headers): string | null {
  const origin = headers.get('origin');
  if (origin === null) return null;
  let originHost: string | null;
  if (origin === 'null') originHost = 'null';
  else {
    try {
      originHost = new URL(origin).host;
    } catch {
      originHost = null;
    }
  }
  const forwarded = headers.get('x-forwarded-host')?.split(',')[0]?.trim();
  const host = forwarded || headers.get('host');
  if (!host) return 'The request names no host (Host or X-Forwarded-Host) to compare its Origin with';
  if (originHost === null) return 'The Origin header is not a URL';
  if (originHost !== host) return `Origin ${originHost.slice(0, 200)} does not match the host ${host.slice(0, 200)}: server actions are same-origin only`;
  return null;
}
