import type { Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { isUuid } from '../api/ids.ts';
import { parseOrThrow } from '../api/validation.ts';
import { DomainError } from '../errors.ts';
import { CreateSilenceInput, MAX_SILENCE_MINUTES, toSilenceView, type SilenceView } from './silences.ts';

/**
 * Silences alarms of one job, one alarm type, or one job's alarms of one type (an alarm rule)
 * from `now` for `durationMinutes` or until `until` (lib/alarms/silences.ts). The worker's alarm
 * dispatcher marks a covered alarm `silenced` instead of delivering it (dispatch-alarms.ts).
 * Records who silenced it (`created_by` = actor name). Operator or admin.
 *
 * @param input CreateSilenceInput (unknown: parsed here; field errors name the field).
 * @param now injected clock: the silence starts now; `until` must lie after it, at most 30 days ahead.
 * @throws DomainError('validation') for bad input or an `until` not in (now, now + 30 d];
 *   ('not_found', field jobId) for a job that does not exist; ('forbidden') for viewers.
 */
export async function createSilence(db: Db, input: unknown, actor: Actor, now: Date = new Date()): Promise<SilenceView> {
  requireCan(actor, 'alarms.write');
  const v = parseOrThrow(CreateSilenceInput, input);
  const until = v.until ?? new Date(now.getTime() + v.durationMinutes! * 60_000);
  if (until.getTime() <= now.getTime()) throw new DomainError('validation', 'The silence must end in the future', { until: 'Must be in the future' });
  if (until.getTime() > now.getTime() + MAX_SILENCE_MINUTES * 60_000) throw new DomainError('validation', 'A silence lasts at most 30 days', { until: 'At most 30 days ahead' });
  let jobKey: string | null = null;
  if (v.jobId !== undefined) {
    const job = isUuid(v.jobId) ? await db.job.findUnique({ where: { id: v.jobId }, select: { key: true } }) : null;
    if (!job) throw new DomainError('not_found', `Job ${v.jobId} not found`, { jobId: 'No such job' });
    jobKey = job.key;
  }
  const row = await db.alarmSilence.create({
    data: { jobId: v.jobId ?? null, type: v.type ?? null, until, note: v.note || null, createdBy: actor.name, createdAt: now },
  });
  return toSilenceView(row, jobKey, now);
}
