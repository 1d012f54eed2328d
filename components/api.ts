/**
 * Read-only JSON GET against the console's own REST door (/api/v1, authenticated by the
 * session cookie). Used by TanStack Query for live data. Throws an Error carrying the
 * API's message (and `status`) on a non-2xx answer.
 */
export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' }, cache: 'no-store', signal });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const err = (body as { error?: { message?: string } } | null)?.error;
    const e = new Error(err?.message ?? `Request failed (${res.status})`) as Error & { status?: number };
    e.status = res.status;
    throw e;
  }
  return body as T;
}
