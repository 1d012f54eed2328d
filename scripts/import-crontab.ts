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
 * --timezone: the zone of the cron daemon that ran the file (default: this
 *   host's zone); entries after a CRON_TZ= line use that zone instead, and TZ=
 *   only goes to the commands' environment (docs/scheduling.md "Crontab import").
 * --system: /etc/crontab and /etc/cron.d format (a user column); automatic for
 *   paths under /etc/cron.d and /etc/crontab. The user is recorded in the job
 *   description; Tickflow runs the command as the worker's user.
 * Database: DATABASE_URL, else the embedded database of the running `npm start`
 * whose data directory this command is given: `database-url` in TICKFLOW_DATA_DIR
 * (default .tickflow). With neither, it says where it looked and what to set.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SYSTEM_ACTOR } from '../lib/auth/actor.ts';
import { getDb } from '../lib/db.ts';
import { isDomainError } from '../lib/errors.ts';
import { transactionTimeoutMessage } from '../lib/infra/transaction-timeout.ts';
import { importCrontab } from '../lib/jobs/import-crontab.ts';
import { locateDatabaseUrl, noDatabaseMessage, staleDatabaseUrlMessage } from '../lib/infra/database-url.ts';
import { isDatabaseUnavailable } from '../lib/infra/database-unavailable.ts';
import { isValidTimeZone } from '../lib/schedule/index.ts';
import { decodeUtf8 } from '../lib/api/json-guard.ts';

// getDb() reads DATABASE_URL; fall back to the running embedded database (its file in TICKFLOW_DATA_DIR).
const located = locateDatabaseUrl();
if (located) process.env.DATABASE_URL = located.url;

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

/** Thin door over lib/jobs importCrontab (the same function as the console upload and POST /api/v1/jobs/import). */
async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const hostZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const timezone = args.timezone ?? hostZone;
  if (!isValidTimeZone(timezone)) usage(`unknown time zone ${timezone}`);
  const abs = path.resolve(args.file);
  const system = args.system ?? (abs === '/etc/crontab' || abs.startsWith('/etc/cron.d/'));
  // not readFile(abs, 'utf8'): it would put U+FFFD in place of bytes that are not UTF-8 and import the commands changed
  const text = decodeUtf8(await readFile(abs));
  if (text === null) usage(`${abs} is not valid UTF-8 (save it as UTF-8)`);
  if (!located) {
    console.error(`import-crontab: ${noDatabaseMessage('npm run import-crontab -- FILE')}`);
    process.exit(2);
  }
  const db = getDb();
  let result;
  try {
    result = await importCrontab(db, { text, timezone, system, keyPrefix: args.keyPrefix, dryRun: args.dryRun, source: abs }, SYSTEM_ACTOR);
  } catch (err) {
    if (isDomainError(err)) usage(`${err.message}${err.fields ? ` ${JSON.stringify(err.fields)}` : ''}`);
    // the doors' answer to a transaction that ran out of time (lib/infra/transaction-timeout.ts), not a stack
    // a database-url file left by an `npm start` that stopped (or one with another data directory): say so, not ECONNREFUSED
    if (located.from !== 'env' && isDatabaseUnavailable(err)) {
      console.error(`import-crontab: ${staleDatabaseUrlMessage(located.from, located.url)}`);
      process.exit(1);
    }
    const timedOut = transactionTimeoutMessage(err);
    if (timedOut) {
      console.error(`import-crontab: ${timedOut}`);
      process.exit(1);
    }
    throw err;
  } finally {
    await db.$disconnect();
  }
  const { created, skipped } = result;

  console.log(`${abs}: ${created.length} entr${created.length === 1 ? 'y' : 'ies'} to import, ${skipped.length} line(s) not convertible; timezone ${timezone}`);
  created.forEach((job, i) => {
    const s = job.schedule as { cron?: string; timezone?: string };
    console.log(`  ${args.dryRun ? '~' : '+'} ${job.key}  [${s.cron ?? ''}${s.timezone ? ` ${s.timezone}` : ''}]  ${job.name}  (paused)`);
    const zone = result.zones[i];
    if (zone) console.log(`      zone ${zone.timezone}: ${zone.reason}`);
    for (const w of result.warnings.filter((x) => x.key === job.key)) console.log(`      check: ${w.message}`);
  });
  if (skipped.length) {
    console.log('Not imported:');
    for (const p of skipped) console.log(`  line ${p.line}: ${p.reason}\n      ${p.text.trim()}`);
  }
  if (args.dryRun) console.log('Dry run: nothing was written.');
  else console.log(`${created.length} job(s) created (paused). Shell jobs need workers started with TICKFLOW_ALLOW_SHELL=1.`);
  process.exit(skipped.length ? 1 : 0);
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  main().catch((err) => {
    console.error(`import-crontab: ${(err as Error).message}`);
    process.exit(1);
  });
}
