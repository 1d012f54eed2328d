import { expect } from '@playwright/test';
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

/** Creates a manual `shell` job running `/bin/sh -c script` (60 s timeout); the worker allows shell in e2e (e2e/global-setup.ts). */
export async function shellJob(key: string, name: string, script: string): Promise<{ id: string }> {
  return api<{ id: string }>('POST', '/jobs', { key, name, schedule: { kind: 'manual' }, handler: 'shell', payload: { command: ['/bin/sh', '-c', script] }, policy: { timeoutSeconds: 60 } });
}

/** Triggers a job without a payload and answers its run's id. */
export async function triggerJob(jobId: string): Promise<string> {
  return (await api<{ id: string }>('POST', `/jobs/${jobId}/trigger`, {})).id;
}

/** Waits until the run's status is `status` (polling the API; `timeoutMs` default 30 s). */
export async function runReaches(runId: string, status: string, timeoutMs = 30_000): Promise<void> {
  await expect.poll(async () => (await api<{ status: string }>('GET', `/runs/${runId}`)).status, { timeout: timeoutMs }).toBe(status);
}
