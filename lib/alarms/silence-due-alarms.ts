import type { Db } from '../db.ts';

/**
 * Marks due pending alarms that an active silence covers as `silenced` (recorded, never
 * delivered), naming the silence; the dispatcher runs it right before it claims, so a silenced
 * alarm is never handed to a channel. A silence covers an alarm when it was created at or
 * before `now`, runs past `now`, was not ended early, and its job_id / type (each optional)
 * match the alarm's. Test alarms (`content.test`) are never silenced: they exist to check a receiver.
 * Locks: the matching alarm rows, SKIP LOCKED (a row another dispatcher holds is left to it).
 * Index: alarms_pending_idx (next_attempt_at) WHERE status = 'pending'; the silence lookup uses
 * alarm_silences_active_idx (until) WHERE ended_at IS NULL.
 *
 * @param now injected clock (due-ness and whether a silence is in force).
 * @returns how many alarms were silenced.
 */
export async function silenceDueAlarms(db: Db, now: Date): Promise<number> {
  const covers = `s.ended_at IS NULL AND s.until > $1::timestamptz AND s.created_at <= $1::timestamptz
                  AND (s.job_id IS NULL OR s.job_id = a.job_id) AND (s.type IS NULL OR s.type = a.type)`;
  return db.$executeRawUnsafe(
    `WITH hit AS (
       SELECT a.id FROM alarms a
        WHERE a.status = 'pending' AND a.next_attempt_at <= $1::timestamptz
          AND coalesce(a.content->>'test', '') <> 'true'
          AND EXISTS (SELECT 1 FROM alarm_silences s WHERE ${covers})
        FOR UPDATE OF a SKIP LOCKED)
     UPDATE alarms a
        SET status = 'silenced', updated_at = $1::timestamptz,
            silence_id = (SELECT s.id FROM alarm_silences s WHERE ${covers} ORDER BY s.until DESC LIMIT 1)
       FROM hit
      WHERE a.id = hit.id AND a.status = 'pending'`,
    now,
  );
}
