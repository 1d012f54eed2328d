/**
 * `npm run import-crontab -- FILE [--timezone Zone] [--system] [--key-prefix P] [--dry-run]`
 *
 * Converts a crontab into Tickflow jobs: one one-step `shell` job per entry
 * (argv `[SHELL, '-c', command]`, the file's environment lines as env, text
 * after `%` as stdin), created PAUSED so an operator reviews them before they
 * fire (and enables TICKFLOW_ALLOW_SHELL on the workers meant to run them).
 * Lines that cannot be converted (@reboot, bad schedules...) are printed with
 * their line number and reason; the exit code is 1 when there were any.
 *
 * --timezone: zone the schedules are evaluated in (default: CRON_TZ in the
 *   file, else this host's zone, which is what cron itself used).
 * --system: /etc/crontab and /etc/cron.d format (a user column); automatic for
 *   paths under /etc/cron.d and /etc/crontab. The user is recorded in the job
 *   description; Tickflow runs the command as the worker's user.
 * Needs DATABASE_URL.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SYSTEM_ACTOR } from '../lib/auth/actor.ts';
import { parseCrontab, type CrontabJob } from '../lib/crontab/parse-crontab.ts';
import { getDb, inTransaction } from '../lib/db.ts';
import { isDomainError } from '../lib/errors.ts';
import { createJob } from '../lib/jobs/create-job.ts';
import { pauseJob } from '../lib/jobs/pause-job.ts';
import { isValidTimeZone } from '../lib/schedule/index.ts';

interface Args {
  file: string;
  timezone?: string;
  system?: boolean;
  keyPrefix?: string;
  dryRun: boolean;
}

function usage(message?: string): never {
  if (message) console.error(`import-crontab: ${message}`);
  console.error('usage: npm run import-crontab -- FILE [--timezone Zone] [--system] [--key-prefix P] [--dry-run]');
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  const out: Partial<Args> & { dryRun: boolean } = { dryRun: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? usage(`${a} needs a value`);
    if (a === '--timezone' || a === '--tz') out.timezone = value();
    else if (a.startsWith('--timezone=')) out.timezone = a.slice('--timezone='.length);
    else if (a === '--system') out.system = true;
    else if (a === '--key-prefix') out.keyPrefix = value();
    else if (a === '--dry-run') out.dryRun = true;
    else if (a === '--help' || a === '-h') usage();
    else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else if (!out.file) out.file = a;
    else usage(`unexpected argument ${a}`);
  }
  if (!out.file) usage('a crontab FILE is required');
  return out as Args;
}

/** The create-job input for one crontab entry (exported for tests). */
export function jobInputFor(entry: CrontabJob, opts: { file: string; timezone: string }) {
  const config: Record<string, unknown> = { command: entry.command, env: entry.env };
  if (entry.input !== undefined) config.input = entry.input;
  return {
    key: entry.key,
    name: entry.name,
    description:
      `Imported from ${opts.file} line ${entry.line}` +
      (entry.user ? ` (ran as user ${entry.user}; Tickflow runs it as the worker's user)` : '') +
      '.',
    schedule: { kind: 'cron' as const, cron: entry.cron, timezone: entry.timezone ?? opts.timezone },
    steps: [{ key: 'main', handler: 'shell', config }],
    policy: { misfirePolicy: 'skip' as const, blockStrategy: 'discard_later' as const },
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const hostZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const timezone = args.timezone ?? hostZone;
  if (!isValidTimeZone(timezone)) usage(`unknown time zone ${timezone}`);
  const abs = path.resolve(args.file);
  const system = args.system ?? (abs === '/etc/crontab' || abs.startsWith('/etc/cron.d/'));
  const text = await readFile(abs, 'utf8');
  const { jobs, errors } = parseCrontab(text, { system, keyPrefix: args.keyPrefix });

  console.log(`${abs}: ${jobs.length} entr${jobs.length === 1 ? 'y' : 'ies'} to import, ${errors.length} line(s) not convertible; timezone ${timezone}`);
  let created = 0;
  const failed: { line: number; reason: string }[] = [];
  if (!args.dryRun && jobs.length > 0) {
    const db = getDb();
    for (const entry of jobs) {
      const input = jobInputFor(entry, { file: abs, timezone });
      try {
        const view = await inTransaction(db, async (tx) => {
          const job = await createJob(tx, input, SYSTEM_ACTOR);
          return pauseJob(tx, job.id, SYSTEM_ACTOR, { reason: 'imported from crontab: review, then resume' });
        });
        created++;
        console.log(`  + ${view.key}  [${entry.cron}${entry.timezone ? ` ${entry.timezone}` : ''}]  ${entry.name}  (paused)`);
      } catch (err) {
        const reason = isDomainError(err)
          ? `${err.message}${err.fields ? ` ${JSON.stringify(err.fields)}` : ''}`
          : (err as Error).message;
        failed.push({ line: entry.line, reason });
      }
    }
    await db.$disconnect();
  } else {
    for (const entry of jobs) console.log(`  ~ ${entry.key}  [${entry.cron}]  ${JSON.stringify(entry.command)}`);
  }

  const problems = [
    ...errors.map((e) => ({ line: e.line, reason: e.reason, text: e.text })),
    ...failed.map((f) => ({ ...f, text: text.split(/\r?\n/)[f.line - 1] ?? '' })),
  ].sort((a, b) => a.line - b.line);
  if (problems.length) {
    console.log('Not imported:');
    for (const p of problems) console.log(`  line ${p.line}: ${p.reason}\n      ${p.text.trim()}`);
  }
  if (!args.dryRun) console.log(`${created} job(s) created (paused). Shell jobs need workers started with TICKFLOW_ALLOW_SHELL=1.`);
  process.exit(problems.length ? 1 : 0);
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  main().catch((err) => {
    console.error(`import-crontab: ${(err as Error).message}`);
    process.exit(1);
  });
}
