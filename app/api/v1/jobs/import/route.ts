import { respond, rest } from '@/app/_lib/rest';
import { importCrontab } from '@/lib/jobs/import-crontab';

export const dynamic = 'force-dynamic';

/**
 * POST /api/v1/jobs/import { text, timezone, system?, keyPrefix?, dryRun? } (text <= 256 KB)
 * -> 201 { created: job[], skipped: [{ line, text, reason }], zones: [{ line, key, timezone, reason }], dryRun }
 * (200 for a dry run, and when no job was created: RFC 9110 §15.3.2); `zones` says which zone each job is scheduled in and why (CRON_TZ= or the import zone).
 * Every entry becomes a PAUSED one-step `shell` job, all in one transaction; lines that
 * cannot be converted and keys already in use are reported in `skipped`, never a 500.
 */
export const POST = rest({ operation: 'jobs.import' }, async ({ db, body, actor, now }) => {
  const r = await importCrontab(db, body, actor, now);
  return respond(r.dryRun || r.created.length === 0 ? 200 : 201, r);
});
