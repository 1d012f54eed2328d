import { inTransaction, type Db } from '../db.ts';
import { requireCan, SYSTEM_ACTOR, type Actor } from '../auth/actor.ts';
import { log } from '../log.ts';
import { loadGraph, lockJob } from './store.ts';
import { assertMayDeleteJob } from './handler-permissions.ts';
import { stepView } from './job-view.ts';

/**
 * Deletes a job for good: the job row, its steps, edges and versions (FK
 * cascade). Runs, tasks and task logs stay (they reference the job by string
 * id and key). Only from the recycle bin.
 * @throws DomainError('not_found') unknown; ('conflict') when the job is not deleted; ('forbidden')
 *   for a user purging a system job (handler-permissions.ts assertMayDeleteJob).
 */
export async function purgeJob(db: Db, id: string, actor: Actor): Promise<{ id: string; key: string }> {
  requireCan(actor, 'jobs.write');
  return inTransaction(db, async (tx) => {
    const job = await lockJob(tx, id, 'only');
    assertMayDeleteJob(actor, { steps: (await loadGraph(tx, job)).steps.map(stepView), jobPayload: job.payload }, 'purge');
    await tx.job.delete({ where: { id: job.id } });
    log('jobs').info({ jobId: job.id, key: job.key, actor: actor.name }, 'job purged');
    return { id: job.id, key: job.key };
  });
}

/**
 * System job: purges jobs deleted more than `olderThanDays` days before `now`
 * (env TICKFLOW_RECYCLE_BIN_DAYS, default 30). Returns the purged ids.
 */
export async function purgeExpiredJobs(
  db: Db,
  olderThanDays = Number(process.env.TICKFLOW_RECYCLE_BIN_DAYS ?? 30),
  now = new Date(),
  limit = 500,
): Promise<string[]> {
  const cutoff = new Date(now.getTime() - olderThanDays * 86_400_000);
  const rows = await db.job.findMany({ where: { deletedAt: { lt: cutoff } }, select: { id: true }, take: limit });
  const purged: string[] = [];
  for (const r of rows) {
    try {
      await purgeJob(db, r.id, SYSTEM_ACTOR);
      purged.push(r.id);
    } catch {
      /* restored or purged meanwhile */
    }
  }
  return purged;
}
