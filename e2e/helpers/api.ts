import { E2E_API_TOKEN, E2E_BASE_URL } from './env.ts';

/** Calls the REST API as the e2e admin token; throws on a non-2xx answer with its body. */
export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${E2E_BASE_URL}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${E2E_API_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} -> ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}
