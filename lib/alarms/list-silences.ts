import type { Db } from '../db.ts';
import { isUuid } from '../api/ids.ts';
import { toSilenceView, type SilenceView } from './silences.ts';

/**
 * Silences newest first (at most 200): only those in force at `now` (default), or with
 * `includeEnded` also the ones that ran out or were ended early (who ended them). Any role.
 * Index: alarm_silences_active_idx (until) WHERE ended_at IS NULL for the active list.
 */
export async function listSilences(db: Db, q: { includeEnded?: boolean } = {}, now: Date = new Date()): Promise<{ items: SilenceView[] }> {
  const rows = await db.alarmSilence.findMany({
    where: q.includeEnded ? {} : { endedAt: null, until: { gt: now } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 200,
  });
  const ids = [...new Set(rows.map((r) => r.jobId).filter((x): x is string => !!x && isUuid(x)))];
  const jobs = ids.length ? await db.job.findMany({ where: { id: { in: ids } }, select: { id: true, key: true } }) : [];
  const keys = new Map(jobs.map((j) => [j.id, j.key]));
  return { items: rows.map((r) => toSilenceView(r, (r.jobId && keys.get(r.jobId)) ?? null, now)) };
}
