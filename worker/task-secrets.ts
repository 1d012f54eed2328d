/**
 * The secrets a worker holds, and their use by one attempt (docs/security.md "Worker secrets";
 * references: lib/secrets/secret-references.ts). A worker holds what its operator gave it at start:
 * each `TICKFLOW_SECRET_<NAME>` variable, and each file of `TICKFLOW_SECRETS_DIR` (the folder a
 * container runtime mounts secrets in, e.g. /run/secrets: the file name is the secret's name, its
 * content the value, one final newline dropped). Read once at start: a changed value needs a restart.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { maskedTexts, resolveSecretReferences, secretNamesIn, SECRET_NAME } from '../lib/secrets/secret-references.ts';

const PREFIX = 'TICKFLOW_SECRET_';
/** A secret file larger than this is refused at start: secrets are keys and passwords, not data. */
const MAX_SECRET_BYTES = 64 * 1024;

/**
 * The worker's secrets by name.
 * @throws Error naming the variable or file whose name is not a secret name (SECRET_NAME), a file
 *   over 64 KiB, or a TICKFLOW_SECRETS_DIR that cannot be read
 */
export function workerSecretsFromEnv(env: NodeJS.ProcessEnv = process.env): ReadonlyMap<string, string> {
  const secrets = new Map<string, string>();
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith(PREFIX) || value === undefined) continue;
    const name = key.slice(PREFIX.length);
    if (!SECRET_NAME.test(name)) throw new Error(`${key}: "${name}" is not a secret name (letters, digits and _, not starting with a digit)`);
    secrets.set(name, value);
  }
  const dir = env.TICKFLOW_SECRETS_DIR?.trim();
  if (dir) {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (e) {
      throw new Error(`TICKFLOW_SECRETS_DIR: cannot read ${dir}: ${(e as Error).message}`);
    }
    for (const file of entries.sort()) {
      const full = path.join(dir, file);
      // dot files and folders are the mount's own bookkeeping (Kubernetes' ..data links), not secrets
      if (file.startsWith('.') || !statSync(full).isFile()) continue;
      if (!SECRET_NAME.test(file)) throw new Error(`TICKFLOW_SECRETS_DIR: the file name "${file}" is not a secret name (letters, digits and _, not starting with a digit)`);
      if (statSync(full).size > MAX_SECRET_BYTES) throw new Error(`TICKFLOW_SECRETS_DIR: ${file} is larger than ${MAX_SECRET_BYTES} bytes`);
      if (secrets.has(file)) throw new Error(`TICKFLOW_SECRETS_DIR: ${file} is also set as ${PREFIX}${file}; keep one`);
      secrets.set(file, readFileSync(full, 'utf8').replace(/\r?\n$/, ''));
    }
  }
  return secrets;
}

/** One attempt's settings with its references resolved, and what to mask in what it leaves. */
export type AttemptSecrets = { config: unknown; payload: unknown; masked: readonly string[] };

/**
 * Resolves the references of one attempt's config and payload against the worker's secrets.
 * @throws MissingSecretError (lib/secrets/secret-references.ts) naming the secrets this worker lacks
 */
export function resolveAttemptSecrets(config: unknown, payload: unknown, secrets: ReadonlyMap<string, string>): AttemptSecrets {
  const names = secretNamesIn(config, payload);
  if (names.length === 0) return { config, payload, masked: [] };
  return {
    config: resolveSecretReferences(config, secrets),
    payload: resolveSecretReferences(payload, secrets),
    masked: maskedTexts(names.map((n) => secrets.get(n)).filter((v): v is string => v !== undefined)),
  };
}
