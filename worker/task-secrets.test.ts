import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveAttemptSecrets, workerSecretsFromEnv } from './task-secrets.ts';

const env = (vars: Record<string, string>) => vars as NodeJS.ProcessEnv;
const dirs: string[] = [];
function secretsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'tickflow-secrets-'));
  dirs.push(dir);
  for (const [name, value] of Object.entries(files)) writeFileSync(path.join(dir, name), value);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the secrets a worker holds', () => {
  it('reads TICKFLOW_SECRET_<NAME> variables and the files of TICKFLOW_SECRETS_DIR', () => {
    const dir = secretsDir({ DB_PASSWORD: 'from-file\n', multi_line: 'a\nb\n\n', '.hidden': 'x' });
    mkdirSync(path.join(dir, '..data')); // a mount's own folder
    const secrets = workerSecretsFromEnv(env({ TICKFLOW_SECRET_API_TOKEN: 'tok', TICKFLOW_SECRETS_DIR: dir, TICKFLOW_SECRETLY: 'no', PATH: '/bin' }));
    expect(Object.fromEntries(secrets)).toEqual({ API_TOKEN: 'tok', DB_PASSWORD: 'from-file', multi_line: 'a\nb\n' });
    expect(workerSecretsFromEnv(env({})).size).toBe(0);
  });

  it('refuses at start what it cannot hold, naming the variable or file', () => {
    expect(() => workerSecretsFromEnv(env({ 'TICKFLOW_SECRET_BAD-NAME': 'x' }))).toThrow(/TICKFLOW_SECRET_BAD-NAME: "BAD-NAME" is not a secret name/);
    expect(() => workerSecretsFromEnv(env({ TICKFLOW_SECRET_: 'x' }))).toThrow(/is not a secret name/);
    expect(() => workerSecretsFromEnv(env({ TICKFLOW_SECRETS_DIR: secretsDir({ 'api-key': 'x' }) }))).toThrow(/the file name "api-key" is not a secret name/);
    expect(() => workerSecretsFromEnv(env({ TICKFLOW_SECRETS_DIR: '/nonexistent/secrets' }))).toThrow(/TICKFLOW_SECRETS_DIR: cannot read \/nonexistent\/secrets/);
    expect(() => workerSecretsFromEnv(env({ TICKFLOW_SECRETS_DIR: secretsDir({ BIG: 'x'.repeat(64 * 1024 + 1) }) }))).toThrow(/BIG is larger than 65536 bytes/);
    expect(() => workerSecretsFromEnv(env({ TICKFLOW_SECRET_TWICE: 'a', TICKFLOW_SECRETS_DIR: secretsDir({ TWICE: 'b' }) }))).toThrow(/TWICE is also set as TICKFLOW_SECRET_TWICE/);
    if (process.getuid?.() !== 0) {
      const dir = secretsDir({ OK: 'x' });
      chmodSync(dir, 0o000);
      expect(() => workerSecretsFromEnv(env({ TICKFLOW_SECRETS_DIR: dir }))).toThrow(/cannot read/);
      chmodSync(dir, 0o700);
    }
  });

  it('resolves one attempt\'s config and payload, and says what to mask', () => {
    const secrets = new Map([['TOKEN', 'tok-123456'], ['PIN', '123']]);
    const r = resolveAttemptSecrets({ headers: { Authorization: 'Bearer ${{ secrets.TOKEN }}' } }, { pin: '${{ secrets.PIN }}' }, secrets);
    expect(r).toEqual({ config: { headers: { Authorization: 'Bearer tok-123456' } }, payload: { pin: '123' }, masked: ['tok-123456'] });
    const config = { a: 1 };
    expect(resolveAttemptSecrets(config, {}, secrets)).toEqual({ config, payload: {}, masked: [] });
    expect(() => resolveAttemptSecrets({ a: '${{ secrets.GONE }}' }, {}, secrets)).toThrow(/secret GONE not set on this worker/);
  });
});
