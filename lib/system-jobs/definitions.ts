import type { Db } from '../db.ts';
import { SYSTEM_ACTOR } from '../auth/actor.ts';

/** Handler (and job key) names of the system jobs; worker/handlers/system-handlers.ts implements them. */
export const SYSTEM_HANDLERS = {
  retention: 'system.retention',
  idempotencyCleanup: 'system.idempotency-cleanup',
  recycleBinPurge: 'system.recycle-bin-purge',
  statsCheck: 'system.stats-check',
} as const;

/** settings row remembering which system jobs were seeded, so one deleted (by the system; users cannot, lib/jobs/handler-permissions.ts deleteRefusal) is not re-created on the next start. */
export const SYSTEM_JOBS_SETTING = 'system_jobs.seeded';

const common = {
  // a failing system job is an operational problem: log alarm (add webhook/email in the console)
  alarms: { onFailure: true, onTimeout: true, onDeadLetter: true, channels: [{ type: 'log' as const, target: '' }] },
  policy: { maxRetries: 1, blockStrategy: 'discard_later' as const, misfirePolicy: 'fire_once' as const },
};

/**
 * The system jobs, in the CreateJobInput (REST) shape: visible in the console, pausable and
 * editable like any job, run by the normal engine on any worker (handlers `system.*`).
 * Schedules are cron in UTC:
 * - system.retention            hourly at :17 — creates the history tables' weekly partitions ahead, drops whole weeks older
 *                                 than TICKFLOW_RETENTION_DAYS (30) days, deletes what is left of them in batches,
 *                                 and worker_nodes offline or stopped for TICKFLOW_NODE_RETENTION_DAYS (7) days;
 * - system.idempotency-cleanup  hourly at :23 — idempotency keys older than 24 h;
 * - system.recycle-bin-purge    daily 03:30 — jobs deleted more than TICKFLOW_RECYCLE_BIN_DAYS (30) days ago;
 * - system.stats-check          daily 00:45 — recompute the last 2 days of handler_stats_daily, alarm on drift.
 * Payload fields override the env defaults (e.g. `{ "olderThanDays": 14 }`).
 */
export function systemJobInputs(): Record<string, unknown>[] {
  return [
    {
      key: SYSTEM_HANDLERS.retention,
      name: 'System: run-log retention',
      description: 'Creates the run history\'s weekly partitions two weeks ahead; drops finished runs, their tasks and task logs older than TICKFLOW_RETENTION_DAYS (default 30) days a whole week at a time, and deletes the rest in batches. Daily stats are kept.',
      schedule: { kind: 'cron', cron: '17 * * * *', timezone: 'UTC' },
      handler: SYSTEM_HANDLERS.retention,
      payload: {},
      ...common,
      policy: { ...common.policy, timeoutSeconds: 3600 },
    },
    {
      key: SYSTEM_HANDLERS.idempotencyCleanup,
      name: 'System: idempotency-key cleanup',
      description: 'Deletes REST Idempotency-Key records older than 24 hours and expired console sessions.',
      schedule: { kind: 'cron', cron: '23 * * * *', timezone: 'UTC' },
      handler: SYSTEM_HANDLERS.idempotencyCleanup,
      payload: {},
      ...common,
      policy: { ...common.policy, timeoutSeconds: 600 },
    },
    {
      key: SYSTEM_HANDLERS.recycleBinPurge,
      name: 'System: recycle-bin purge',
      description: 'Purges jobs that have been in the recycle bin longer than TICKFLOW_RECYCLE_BIN_DAYS (default 30) days.',
      schedule: { kind: 'cron', cron: '30 3 * * *', timezone: 'UTC' },
      handler: SYSTEM_HANDLERS.recycleBinPurge,
      payload: {},
      ...common,
      policy: { ...common.policy, timeoutSeconds: 600 },
    },
    {
      key: SYSTEM_HANDLERS.statsCheck,
      name: 'System: stats sanity check',
      description: 'Recomputes the last 2 days of daily handler stats from task logs and raises an alarm if the aggregate table drifted.',
      schedule: { kind: 'cron', cron: '45 0 * * *', timezone: 'UTC' },
      handler: SYSTEM_HANDLERS.statsCheck,
      payload: {},
      ...common,
      policy: { ...common.policy, timeoutSeconds: 900 },
    },
  ];
}

/**
 * Seeds the system jobs once: creates each one whose key was never seeded on this database
 * (remembered in settings `system_jobs.seeded`) and that no live job already uses. Idempotent;
 * safe on every start. Returns the keys created now.
 */
export async function ensureSystemJobs(db: Db, now: Date = new Date()): Promise<string[]> {
  const setting = await db.setting.findUnique({ where: { key: SYSTEM_JOBS_SETTING } });
  const seeded = new Set(Array.isArray(setting?.value) ? (setting.value as string[]) : []);
  // Imported here: workers import this file for SYSTEM_HANDLERS only, and job creation brings the
  // API's schemas and the DAG layout, which a worker would otherwise build and keep for nothing.
  const { createJob } = await import('../jobs/create-job.ts');
  const created: string[] = [];
  for (const input of systemJobInputs()) {
    const key = String(input.key);
    if (seeded.has(key)) continue;
    const live = await db.job.findFirst({ where: { key, deletedAt: null }, select: { id: true } });
    if (!live) {
      await createJob(db, input, SYSTEM_ACTOR, now);
      created.push(key);
    }
    seeded.add(key);
  }
  await db.setting.upsert({
    where: { key: SYSTEM_JOBS_SETTING },
    create: { key: SYSTEM_JOBS_SETTING, value: [...seeded] },
    update: { value: [...seeded] },
  });
  return created;
}
