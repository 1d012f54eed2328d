import type { Db } from '../db.ts';

/**
 * Of `jobIds`, the ones no job row holds any more: jobs purged from the recycle bin, whose runs,
 * tasks and alarms are kept and name them by id and key (purge-job.ts). A job in the recycle bin
 * still has its row and its page, so it is not among them. Lists use it to name such a job as
 * text instead of linking to a page that would answer "not found". One read by primary key.
 * @param jobIds job ids (UUIDs), repeats allowed
 */
export async function purgedJobIds(db: Db, jobIds: Iterable<string>): Promise<Set<string>> {
  const ids = [...new Set(jobIds)];
  if (ids.length === 0) return new Set();
  return purgedAmong(ids, await db.job.findMany({ where: { id: { in: ids } }, select: { id: true } }));
}

/** The rule of purgedJobIds for a caller that has read the job rows of `jobIds` itself (`present`: those found). */
export function purgedAmong(jobIds: Iterable<string>, present: Iterable<{ id: string }>): Set<string> {
  const kept = new Set([...present].map((j) => j.id));
  return new Set([...jobIds].filter((id) => !kept.has(id)));
}
