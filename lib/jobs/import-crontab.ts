import { inTransaction, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { DomainError, isDomainError } from '../errors.ts';
import { ImportCrontabInput, MAX_CRONTAB_ENTRIES } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { parseCrontab, type CrontabJob } from '../crontab/parse-crontab.ts';
import { insertNewJobs, prepareNewJob, type NewJob } from './create-job.ts';
import { assertMayChangeCommand, isSystemKey, RESERVED_KEYS } from './handler-permissions.ts';
import type { JobSnapshot, JobView } from './job-view.ts';

/** A crontab line that did not become a job, and why. */
export type ImportSkip = { line: number; text: string; reason: string };
/** Something to check about an entry that did become a job: a command that looks like it starts with a user column. */
export type ImportWarning = { line: number; key: string; message: string };
/** The zone an imported job is scheduled in, and why (docs/scheduling.md "Crontab import"). */
export type ImportZone = { line: number; key: string; timezone: string; reason: string };
/**
 * A job a dry run would create: its configuration as a version snapshot holds it (key, name, schedule, steps…,
 * status `paused`) and its zone, with no id, version, times or counters, since nothing was stored: an id there
 * would name a job that does not exist.
 */
export type ImportPreviewJob = JobSnapshot & { timezone: string };

type ImportCrontabOutcome = {
  /** unconvertible lines and entries the database refused (e.g. a key in use), by line */
  skipped: ImportSkip[];
  /** per created job (same order as `created`): its schedule's zone and where it came from */
  zones: ImportZone[];
  /** created jobs to look at before resuming them, by line (crontabWarningOf) */
  warnings: ImportWarning[];
};
export type ImportCrontabResult = ImportCrontabOutcome &
  (
    | { dryRun: false; /** the jobs created (paused), as GET /jobs/:id answers them */ created: JobView[] }
    | { dryRun: true; /** the jobs that would be created, without ids (ImportPreviewJob) */ created: ImportPreviewJob[] }
  );

/** A job view without what only a stored job has (id, version, times, counters): what a dry run answers. */
function previewOf(job: JobView): ImportPreviewJob {
  const { key, name, description, status, schedule, startAt, endAt, staggerSeconds, payload, policy, routing, alarms, steps, edges, timezone } = job;
  return { key, name, description, status, schedule, startAt, endAt, staggerSeconds, payload, policy, routing, alarms, steps, edges, timezone };
}

/**
 * Which zone a crontab entry is scheduled in and why, as Vixie cron / cronie
 * would run it: a `CRON_TZ=` line before it sets the zone; otherwise the zone
 * of the daemon that ran the file, i.e. the import's `timezone`. A `TZ=` line
 * only reaches the command's environment.
 */
export function crontabZoneOf(entry: CrontabJob, importZone: string): { timezone: string; reason: string } {
  const tzNote =
    entry.env.TZ !== undefined
      ? `; TZ=${entry.env.TZ} (line ${entry.envTzLine}) only sets the command's environment, as in cron`
      : '';
  if (entry.timezone) return { timezone: entry.timezone, reason: `CRON_TZ=${entry.timezone} on line ${entry.timezoneLine}${tzNote}` };
  return { timezone: importZone, reason: `the import's time zone (cron schedules in its daemon's zone; no CRON_TZ line before it)${tzNote}` };
}

/** What to check about an entry before resuming its job, or null: a first word that looks like a user column. */
export function crontabWarningOf(entry: CrontabJob): string | null {
  if (!entry.userColumnLike) return null;
  return `the command starts with "${entry.userColumnLike}", like the user column of a system crontab (/etc/crontab, /etc/cron.d): if it is one, import with System format (system: true), else it runs "${entry.userColumnLike}" as a program`;
}

export const IMPORT_PAUSE_REASON = 'imported from crontab: review, then resume';

/** The create-job input for one crontab entry: a one-step `shell` job (argv, env, stdin). */
export function crontabJobInput(entry: CrontabJob, opts: { source: string; timezone: string }) {
  const config: Record<string, unknown> = { command: entry.command, env: entry.env };
  if (entry.input !== undefined) config.input = entry.input;
  return {
    key: entry.key,
    name: entry.name,
    description:
      `Imported from ${opts.source} line ${entry.line}` +
      (entry.user ? ` (ran as user ${entry.user}; Tickflow runs it as the worker's user)` : '') +
      '.',
    schedule: { kind: 'cron' as const, cron: entry.cron, timezone: crontabZoneOf(entry, opts.timezone).timezone },
    steps: [{ key: 'main', handler: 'shell', config }],
    policy: { misfirePolicy: 'skip' as const, blockStrategy: 'discard_later' as const },
  };
}

function reasonOf(e: DomainError, key: string): string {
  if (e.code === 'conflict' && e.fields?.key) return `job key ${key} is already used by another job (use another key prefix, or delete that job)`;
  const fields = e.fields ? Object.entries(e.fields).filter(([k]) => !e.message.includes(k)) : [];
  return fields.length ? `${e.message} (${fields.map(([k, v]) => `${k}: ${v}`).join('; ')})` : e.message;
}

/**
 * Imports a crontab / cron.d text (lib/crontab/parse-crontab.ts) as PAUSED
 * one-step `shell` jobs (create + pause versions, so an operator reviews them
 * before they fire), all in ONE transaction: createJob's checks for each entry
 * (prepareNewJob), then every job stored and paused at once, as createJob and
 * pauseJob store them, in a few set-based statements whatever the number of
 * entries (insertNewJobs), so MAX_CRONTAB_ENTRIES fit well within the
 * transaction timeout. Lines that cannot be converted (@reboot, bad schedules,
 * missing commands) and entries refused (a job key already in use, a check
 * createJob makes) are reported in `skipped` by line, never thrown; the others
 * are created.
 * `dryRun`: everything is done and then rolled back, so the preview is exactly
 * what an import would do (collisions included), and nothing is written; its
 * `created` are the jobs' configurations without ids (ImportPreviewJob).
 * Both doors call this: the console's /jobs/import and POST /api/v1/jobs/import,
 * and `npm run import-crontab`.
 * The entries run `shell`, so the caller needs the role lib/jobs/handler-permissions.ts names for it.
 * @throws DomainError validation (text, timezone, keyPrefix), forbidden (the role; a `keyPrefix` in the system
 *   jobs' reserved `system.` namespace, at `keyPrefix`, whoever imports: the CLI acts as the system).
 */
export async function importCrontab(db: Db, rawInput: unknown, actor: Actor, now = new Date()): Promise<ImportCrontabResult> {
  requireCan(actor, 'jobs.write');
  const input = parseOrThrow(ImportCrontabInput, rawInput);
  // every imported entry becomes a `shell` job: refused as a whole, before any work, when the actor may not create one
  assertMayChangeCommand(actor, null, { steps: [{ handler: 'shell' }] }, { fieldOf: () => 'text', what: 'import crontab entries as' });
  // the keys are `<prefix>.…` (parse-crontab.ts): a prefix in the system jobs' reserved namespace is refused whole
  const prefix = input.keyPrefix?.replace(/\.+$/, '');
  if (prefix && isSystemKey(`${prefix}.`)) {
    const message = `Keys starting with ${RESERVED_KEYS} are reserved for Tickflow's system jobs; choose another key prefix`;
    throw new DomainError('forbidden', message, { keyPrefix: message }, { needs: 'system' });
  }
  const dryRun = input.dryRun === true;
  const { jobs, errors } = parseCrontab(input.text, { system: input.system, keyPrefix: input.keyPrefix });
  if (jobs.length > MAX_CRONTAB_ENTRIES) {
    throw new DomainError('validation', `At most ${MAX_CRONTAB_ENTRIES} entries per import (this file has ${jobs.length})`, {
      text: `Too many entries (${jobs.length}); split the file`,
    });
  }
  const lines = input.text.split(/\r?\n/);
  const skipped: ImportSkip[] = errors.map((e) => ({ line: e.line, text: e.text, reason: e.reason }));
  const source = input.source || 'a crontab upload';

  // Every check that needs no database first (createJob's own: prepareNewJob), entry by entry.
  const candidates: { entry: CrontabJob; job: NewJob }[] = [];
  for (const entry of jobs) {
    try {
      candidates.push({ entry, job: prepareNewJob(crontabJobInput(entry, { source, timezone: input.timezone }), actor, now) });
    } catch (e) {
      if (!isDomainError(e)) throw e;
      skipped.push({ line: entry.line, text: lines[entry.line - 1] ?? '', reason: reasonOf(e, entry.key) });
    }
  }

  // Then all of them at once, created and paused: a few statements whatever their number (insertNewJobs).
  const { created, refused } = await inTransaction(db, async (tx) => {
    if (dryRun) await tx.$executeRawUnsafe('SAVEPOINT crontab_import_dry_run');
    const out = await insertNewJobs(tx, candidates.map((c) => c.job), actor, now, { pause: { reason: IMPORT_PAUSE_REASON } });
    if (dryRun) await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT crontab_import_dry_run');
    return out;
  });
  for (const { index, error } of refused) {
    const { entry } = candidates[index]!;
    skipped.push({ line: entry.line, text: lines[entry.line - 1] ?? '', reason: reasonOf(error, entry.key) });
  }
  const entryOf = new Map(candidates.map((c) => [c.job.row.id, c.entry]));
  const zones: ImportZone[] = [];
  const warnings: ImportWarning[] = [];
  for (const job of created) {
    const entry = entryOf.get(job.id)!;
    zones.push({ line: entry.line, key: job.key, ...crontabZoneOf(entry, input.timezone) });
    const warning = crontabWarningOf(entry);
    if (warning) warnings.push({ line: entry.line, key: job.key, message: warning });
  }
  skipped.sort((a, b) => a.line - b.line);
  return dryRun ? { dryRun, created: created.map(previewOf), skipped, zones, warnings } : { dryRun, created, skipped, zones, warnings };
}
