import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

// The settings npm start reads are checked before anything is created (scripts/start.ts; README "Configuration").
describe('npm start settings', () => {
  it('npm start with a bad TICKFLOW_ADMIN_PASSWORD stops naming it before it creates a database', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tickflow-start-env-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, TICKFLOW_SUPERVISOR: '1', TICKFLOW_DATA_DIR: dataDir, TICKFLOW_PG_PORT: '54631', TICKFLOW_ADMIN_PASSWORD: 'short' };
      delete env.DATABASE_URL;
      // the supervisor half of scripts/start.ts (TICKFLOW_SUPERVISOR=1: no launcher in front of it)
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
      expect(run.stderr).toMatch(/TICKFLOW_ADMIN_PASSWORD: /);
      expect(run.status).toBe(1);
      expect(existsSync(path.join(dataDir, 'pgdata'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 40_000);
  it('npm start with a malformed alarm setting stops naming it, for the console and the worker alike (lib/alarms/config.ts alarmSettings)', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tickflow-start-env-'));
    try {
      const env: NodeJS.ProcessEnv = { ...process.env, TICKFLOW_SUPERVISOR: '1', TICKFLOW_DATA_DIR: dataDir, TICKFLOW_PG_PORT: '54614', TICKFLOW_ALARM_RUN_LAG_SECONDS: '45s' };
      delete env.DATABASE_URL;
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' });
      expect(run.stderr).toMatch(/TICKFLOW_ALARM_RUN_LAG_SECONDS must be an integer between 0 and 3600, got "45s"/);
      expect(run.status).toBe(1);
      expect(existsSync(path.join(dataDir, 'pgdata'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 40_000);
});
