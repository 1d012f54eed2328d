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

it('finds the embedded database of a `npm start` through TICKFLOW_DATA_DIR, and says what to set when it finds none or it does not answer', async () => {
  const file = path.join(dir, 'one-line');
  writeFileSync(file, '0 2 * * * /bin/true\n');
  const { DATABASE_URL: _unset, ...env } = process.env;
  const importWith = (extra: Record<string, string>) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/import-crontab.ts', file, '--timezone', 'UTC', '--dry-run'], {
      cwd: ROOT,
      env: { ...env, LOG_LEVEL: 'silent', ...extra },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
  // `npm start` ran with TICKFLOW_DATA_DIR=<other>, this shell did not: no database found, and the message says why
  const empty = mkdtempSync(path.join(tmpdir(), 'tickflow-data-'));
  const running = mkdtempSync(path.join(tmpdir(), 'tickflow-data-'));
  try {
    const lost = await importWith({ TICKFLOW_DATA_DIR: empty });
    expect(lost.code).toBe(2);
    expect(lost.stderr).toContain(`DATABASE_URL is not set, and ${path.join(empty, 'database-url')} does not exist`);
    expect(lost.stderr).toContain('If `npm start` runs with TICKFLOW_DATA_DIR set, give this command the same value');
    expect(lost.stderr).not.toContain('start Tickflow with `npm start`, which provides one');
    // the same TICKFLOW_DATA_DIR as the running `npm start` (which wrote its database-url there): found
    writeFileSync(path.join(running, 'database-url'), `${t.url}\n`);
    const found = await importWith({ TICKFLOW_DATA_DIR: running });
    expect([found.code, found.stderr]).toEqual([0, '']);
    expect(found.stdout).toContain('Dry run: nothing was written.');
    // a file left by an `npm start` that stopped: said so, not a stack with ECONNREFUSED
    writeFileSync(path.join(running, 'database-url'), 'postgresql://tickflow:secret@127.0.0.1:9/tickflow\n');
    const stale = await importWith({ TICKFLOW_DATA_DIR: running });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(`the embedded database named in ${path.join(running, 'database-url')} does not answer on 127.0.0.1:9`);
    expect(stale.stderr).not.toContain('secret');
  } finally {
    rmSync(empty, { recursive: true, force: true });
    rmSync(running, { recursive: true, force: true });
  }
}, 120_000);
