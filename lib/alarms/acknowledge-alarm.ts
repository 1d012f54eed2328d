import type { Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { isUuid } from '../api/ids.ts';
import { parseOrThrow } from '../api/validation.ts';
import { DomainError } from '../errors.ts';
import { getAlarm, type AlarmView } from './list-alarms.ts';
import { AcknowledgeAlarmInput } from './silences.ts';

/**
 * Acknowledges an alarm: records who (actor name), when (`now`) and an optional note, so the
 * team sees someone is on it. Changes nothing about its delivery. Operator or admin.
 * @param input AcknowledgeAlarmInput `{ note? }` (unknown: parsed here).
 * @throws DomainError('not_found') for an unknown id; ('conflict') when it was already
 *   acknowledged (the message names who and when); ('validation', field note); ('forbidden') for viewers.
 */
export async function acknowledgeAlarm(db: Db, id: string, input: unknown, actor: Actor, now: Date = new Date()): Promise<AlarmView> {
  requireCan(actor, 'alarms.write');
  const { note } = parseOrThrow(AcknowledgeAlarmInput, input ?? {});
  if (!isUuid(id)) throw new DomainError('not_found', `Alarm ${id} not found`);
  // compare-and-set on acknowledged_at IS NULL: of two concurrent acknowledgements one wins
  const n = await db.alarm.updateMany({ where: { id, acknowledgedAt: null }, data: { acknowledgedAt: now, acknowledgedBy: actor.name, ackNote: note || null } });
  const alarm = await getAlarm(db, id);
  if (!alarm) throw new DomainError('not_found', `Alarm ${id} not found`);
  if (n.count === 0) {
    throw new DomainError('conflict', `Alarm already acknowledged by ${alarm.acknowledgedBy} at ${alarm.acknowledgedAt}`, undefined, {
      acknowledgedBy: alarm.acknowledgedBy,
      acknowledgedAt: alarm.acknowledgedAt,
    });
  }
  return alarm;
}
