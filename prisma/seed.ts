/**
 * First-start bootstrap (issue 2 §3, §6): makes sure an admin can sign in and,
 * on a database that never had a job, seeds demo jobs that do real work and
 * succeed. Called by scripts/start.ts after migrations; safe to call on every
 * start (it only acts on an empty database / missing admin).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SYSTEM_ACTOR } from '../lib/auth/actor.ts';
import { ensureAdminUser } from '../lib/auth/bootstrap.ts';
import { createPrismaClient, type Db } from '../lib/db.ts';
import { createJob } from '../lib/jobs/create-job.ts';

export interface BootstrapResult {
  messages: string[];
  seeded: string[];
}

/** The demo jobs: keys and inputs in the REST shape of DESIGN.md §5. */
export function demoJobs(consoleUrl: string): Record<string, unknown>[] {
  return [
    {
      key: 'demo.health-check',
      name: 'Console health check',
      description: 'Calls the console\'s own /api/v1/health every minute with the http executor.',
      schedule: { kind: 'cron', cron: '* * * * *', timezone: 'UTC' },
      handler: 'http',
      payload: { method: 'GET', url: `${consoleUrl}/api/v1/health` },
      policy: { timeoutSeconds: 10, maxRetries: 2, misfirePolicy: 'fire_once', blockStrategy: 'discard_later' },
    },
    {
      key: 'demo.echo-every-minute',
      name: 'Echo every minute (Shanghai time)',
      description: 'A builtin.echo step on a cron evaluated in Asia/Shanghai.',
      schedule: { kind: 'cron', cron: '* * * * *', timezone: 'Asia/Shanghai' },
      handler: 'builtin.echo',
      payload: { greeting: 'hello from Tickflow' },
      policy: { timeoutSeconds: 30, misfirePolicy: 'skip' },
    },
    {
      key: 'demo.manual-report',
      name: 'Manual report',
      description: 'Only runs when someone presses Run now (try a payload override).',
      schedule: { kind: 'manual' },
      handler: 'builtin.echo',
      payload: { report: 'daily-sales', format: 'csv' },
    },
  ];
}

async function seedDemoJobs(db: Db, consoleUrl: string): Promise<string[]> {
  const seeded: string[] = [];
  for (const input of demoJobs(consoleUrl)) {
    const job = await createJob(db, input, SYSTEM_ACTOR);
    seeded.push(job.key);
  }
  return seeded;
}

/**
 * Ensures an admin and seeds demo data on a database that never had a job.
 * @param databaseUrl the migrated database
 * @param opts.consoleUrl base URL the demo http job calls
 * @param opts.seed false to skip demo jobs (TICKFLOW_SEED=0 does the same)
 */
export async function bootstrap(databaseUrl: string, opts: { consoleUrl: string; seed?: boolean }): Promise<BootstrapResult> {
  const db = createPrismaClient(databaseUrl, 2);
  const messages: string[] = [];
  let seeded: string[] = [];
  try {
    const admin = await ensureAdminUser(db);
    if (admin?.password) {
      const dir = path.resolve(process.env.TICKFLOW_DATA_DIR ?? '.tickflow');
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, 'initial-admin-password.txt');
      await writeFile(file, `${admin.email}\n${admin.password}\n`, { mode: 0o600 });
      messages.push(`created admin ${admin.email} with password ${admin.password} (also saved in ${file}; change it under Settings → Users)`);
    } else if (admin) {
      messages.push(`created admin ${admin.email} (password from TICKFLOW_ADMIN_PASSWORD)`);
    }
    const wantSeed = (opts.seed ?? true) && process.env.TICKFLOW_SEED !== '0';
    // Seed once per database: a marker row keeps purged demo jobs from coming back.
    const marker = await db.setting.findUnique({ where: { key: 'demo_seeded_at' } });
    if (wantSeed && !marker && (await db.job.count()) === 0) {
      await db.$transaction(async (tx) => {
        seeded = await seedDemoJobs(tx, opts.consoleUrl);
        await tx.setting.create({ data: { key: 'demo_seeded_at', value: new Date().toISOString() } });
      });
      messages.push(`seeded demo jobs: ${seeded.join(', ')}`);
    }
    return { messages, seeded };
  } finally {
    await db.$disconnect();
  }
}
