import { z } from 'zod';
import { inTransaction, type Db } from '../db.ts';
import { requireRole, type Actor } from '../auth/actor.ts';
import { AlarmChannelInput } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { raiseAlarm, type RaisedAlarm } from './raise-alarm.ts';
import { checkTestAlarmLimit, testAlarmPrincipal, testAlarmTargetKey } from './test-alarm-limit.ts';

/** Input of "Send test alarm": one channel (`{ type: 'webhook'|'email'|'log', target }`), validated like a job's alarm channel. */
export const SendTestAlarmInput = z.strictObject({ channel: AlarmChannelInput });
export type SendTestAlarmInput = z.output<typeof SendTestAlarmInput>;

/**
 * Queues a test alarm on one channel so an operator can check a webhook receiver or mailbox.
 * Stored as a global (job_id NULL) `failure` alarm with level `info` and `content.test = true`
 * (alarm_type has no `test` value; the flag and message make it unmistakable). Never collapsed:
 * pressing the button twice sends twice, within the limits of test-alarm-limit.ts (so many per
 * principal and per target in ten minutes). The dispatcher delivers it on its next pass.
 * Operator or admin only.
 * Locks: a transaction-scoped advisory lock shared by every test send, so two sends at once are
 * counted one after the other (test sends are rare; nothing else waits on it).
 * @param now injected clock: created_at, and the window of the limits.
 * @throws DomainError('validation') for a bad channel; ('forbidden') for viewers;
 *   ('rate_limited', detail.retryAfterSeconds) past a limit (REST: 429 with Retry-After).
 */
export async function sendTestAlarm(db: Db, input: unknown, actor: Actor, now: Date = new Date()): Promise<RaisedAlarm> {
  requireRole(actor, 'operator');
  const { channel } = parseOrThrow(SendTestAlarmInput, input);
  return inTransaction(db, async (tx) => {
    await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))::text`, 'tickflow.alarm-test');
    await checkTestAlarmLimit(tx, actor, channel, now);
    const rows = await raiseAlarm(
      tx,
      {
        jobId: null,
        type: 'failure',
        level: 'info',
        channels: [channel],
        collapse: false,
        content: { test: true, requestedBy: actor.name, requestedByKey: testAlarmPrincipal(actor), targetKey: testAlarmTargetKey(channel), message: `Tickflow test alarm requested by ${actor.name}` },
      },
      now,
    );
    return rows[0]!;
  });
}
