import { describe, expect, it } from 'vitest';
import { consoleEnv, workerEnv } from './service-env.ts';

describe('what npm start hands its children', () => {
  const env = { PATH: '/bin', DATABASE_URL: 'postgres://x', TICKFLOW_API_TOKEN: 't', TICKFLOW_ADMIN_PASSWORD: 'p', TICKFLOW_ADMIN_EMAIL: 'e', TICKFLOW_SMTP_URL: 'smtp://s' } as unknown as NodeJS.ProcessEnv;
  it('the console keeps the API token but not the first-admin password', () => {
    expect(consoleEnv(env)).toEqual({ PATH: '/bin', DATABASE_URL: 'postgres://x', TICKFLOW_API_TOKEN: 't', TICKFLOW_SMTP_URL: 'smtp://s' });
  });
  it('the worker gets neither', () => {
    expect(workerEnv(env)).toEqual({ PATH: '/bin', DATABASE_URL: 'postgres://x', TICKFLOW_SMTP_URL: 'smtp://s' });
  });
  it('only the worker gets the secrets for task settings', () => {
    const withSecrets = { ...env, TICKFLOW_SECRET_API_TOKEN: 's3cr3t', TICKFLOW_SECRETS_DIR: '/run/secrets' } as unknown as NodeJS.ProcessEnv;
    expect(consoleEnv(withSecrets)).toEqual(consoleEnv(env));
    expect(workerEnv(withSecrets)).toMatchObject({ TICKFLOW_SECRET_API_TOKEN: 's3cr3t', TICKFLOW_SECRETS_DIR: '/run/secrets' });
  });
});
