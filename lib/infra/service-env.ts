/**
 * What `npm start`'s supervisor (scripts/start.ts) hands each process it starts
 * (docs/security.md "Shell sandbox"): each gets only the secrets it uses.
 * - the console: everything but the first-admin bootstrap values (the supervisor
 *   created the admin already) and the workers' secrets for task settings;
 * - the worker: also without TICKFLOW_API_TOKEN (it never calls the API) — it keeps
 *   DATABASE_URL, SMTP and webhook settings, which it needs, and its shell tasks
 *   get none of them (worker/handlers/shell-sandbox.ts).
 */
const BOOTSTRAP_ONLY = ['TICKFLOW_ADMIN_PASSWORD', 'TICKFLOW_ADMIN_EMAIL'];
const CONSOLE_ONLY = ['TICKFLOW_API_TOKEN', 'TICKFLOW_TRUSTED_PROXIES', 'TICKFLOW_SECURE_COOKIES'];

function without(env: NodeJS.ProcessEnv, names: readonly string[]): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const n of names) delete out[n];
  return out;
}

/** The workers' secrets for task settings (worker/task-secrets.ts): only a worker reads them. */
function workerSecretNames(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env).filter((k) => k.startsWith('TICKFLOW_SECRET_') || k === 'TICKFLOW_SECRETS_DIR');
}

/** The console process's environment. */
export function consoleEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return without(env, [...BOOTSTRAP_ONLY, ...workerSecretNames(env)]);
}

/** The worker process's environment. */
export function workerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return without(env, [...BOOTSTRAP_ONLY, ...CONSOLE_ONLY]);
}
