/**
 * `npm run import-crontab -- FILE`: crontab entries become paused one-step
 * `shell` jobs (through lib/jobs createJob + pauseJob); unconvertible lines are
 * printed and make the exit code 1.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/db.ts';
import { ROOT } from './worker-fixtures.ts';
import { SAMPLE_CRONTAB_LINES } from './crontab-fixture.ts';

const run = promisify(execFile);
const t = useTestDatabase();
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tickflow-crontab-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});

it('imports entries as paused shell jobs and reports the lines it could not convert', async () => {
  const file = path.join(dir, 'crontab');
  writeFileSync(
    file,
    // the sample up to its CRON_TZ line: every entry here is read in the import's zone
    SAMPLE_CRONTAB_LINES.slice(0, SAMPLE_CRONTAB_LINES.indexOf('CRON_TZ=Asia/Shanghai')).join('\n'),
  );
  const res = await run(process.execPath, ['--import', 'tsx', 'scripts/import-crontab.ts', file, '--timezone', 'Europe/Berlin'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'silent' },
  }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  expect(res.code).toBe(1);
  expect(res.stdout).toMatch(/2 entries to import, 2 line\(s\) not convertible/);
  expect(res.stdout).toMatch(/line 6: @reboot is not supported/);
  expect(res.stdout).toMatch(/line 7: invalid schedule/);
  expect(res.stdout).toMatch(/2 job\(s\) created \(paused\)/);

  const jobs = await t.db.job.findMany({ include: { steps: true }, orderBy: { key: 'asc' } });
  expect(jobs.map((j) => j.key)).toEqual(['crontab.l4.backup.sh', 'crontab.l5.date']);
  const [backup, hourly] = jobs;
  expect(backup).toMatchObject({ status: 'paused', scheduleKind: 'cron', cronExpression: '30 2 * * *', timezone: 'Europe/Berlin' });
  expect(backup!.steps).toHaveLength(1);
  expect(backup!.steps[0]).toMatchObject({
    key: 'main',
    handler: 'shell',
    config: { command: ['/bin/sh', '-c', '/usr/local/bin/backup.sh "$BACKUP_DIR"'], env: { BACKUP_DIR: '/var/backups' } },
  });
  expect(hourly).toMatchObject({ status: 'paused', cronExpression: '0 * * * *' });
  expect(hourly!.steps[0]!.config).toMatchObject({ command: ['/bin/sh', '-c', 'date +%s'], input: 'ignored stdin' });
  // A paused job is not due: the tick leaves it alone.
  expect(jobs.every((j) => j.status === 'paused')).toBe(true);
}, 60_000);

it('refuses a file that is not UTF-8 (exit 2, nothing imported) instead of importing its commands with U+FFFD', async () => {
  const file = path.join(dir, 'latin1');
  // "0 2 * * * echo caf\xe9": Latin-1, as an old crontab may be saved
  writeFileSync(file, Buffer.concat([Buffer.from('0 2 * * * echo caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
  const before = await t.db.job.count();
  const res = await run(process.execPath, ['--import', 'tsx', 'scripts/import-crontab.ts', file, '--timezone', 'UTC'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'silent' },
  }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  expect(res.code).toBe(2);
  expect(res.stderr).toContain(`${file} is not valid UTF-8`);
  expect(await t.db.job.count()).toBe(before);
}, 60_000);
