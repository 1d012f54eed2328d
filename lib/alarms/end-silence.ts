import type { Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { isUuid } from '../api/ids.ts';
import { DomainError } from '../errors.ts';
import { toSilenceView, type SilenceView } from './silences.ts';

/**
 * Unsilence: ends a silence before its `until` (records `ended_at` = now, `ended_by` = actor
 * name). Alarms already marked `silenced` stay so (they were not sent); alarms falling due from
 * now on are delivered again. Ending a silence that already ended or ran out answers it unchanged.
 * Operator or admin.
 * @throws DomainError('not_found') for an unknown id; ('forbidden') for viewers.
 */
export async function endSilence(db: Db, id: string, actor: Actor, now: Date = new Date()): Promise<SilenceView> {
  requireCan(actor, 'alarms.write');
  const found = isUuid(id) ? await db.alarmSilence.findUnique({ where: { id } }) : null;
  if (!found) throw new DomainError('not_found', `Silence ${id} not found`);
  // compare-and-set: of two concurrent unsilences, the first one's name is kept
  await db.alarmSilence.updateMany({ where: { id, endedAt: null, until: { gt: now } }, data: { endedAt: now, endedBy: actor.name } });
  const row = (await db.alarmSilence.findUnique({ where: { id } }))!;
  const job = row.jobId && isUuid(row.jobId) ? await db.job.findUnique({ where: { id: row.jobId }, select: { key: true } }) : null;
  return toSilenceView(row, job?.key ?? null, now);
}
