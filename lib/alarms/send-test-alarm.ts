import { z } from 'zod';
import type { Db } from '../db.ts';
import { requireRole, type Actor } from '../auth/actor.ts';
import { AlarmChannelInput } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { raiseAlarm, type RaisedAlarm } from './raise-alarm.ts';

/** Input of "Send test alarm": one channel (`{ type: 'webhook'|'email'|'log', target }`), validated like a job's alarm channel. */
export const SendTestAlarmInput = z.strictObject({ channel: AlarmChannelInput });
export type SendTestAlarmInput = z.output<typeof SendTestAlarmInput>;

/**
 * Queues a test alarm on one channel so an operator can check a webhook receiver or mailbox.
 * Stored as a global (job_id NULL) `failure` alarm with level `info` and `content.test = true`
 * (alarm_type has no `test` value; the flag and message make it unmistakable). Never collapsed:
 * pressing the button twice sends twice. The dispatcher delivers it on its next pass.
 * Operator or admin only.
 * @throws DomainError('validation') for a bad channel; ('forbidden') for viewers.
 */
export async function sendTestAlarm(db: Db, input: unknown, actor: Actor, now: Date = new Date()): Promise<RaisedAlarm> {
  requireRole(actor, 'operator');
  const { channel } = parseOrThrow(SendTestAlarmInput, input);
  const rows = await raiseAlarm(
    db,
    {
      jobId: null,
      type: 'failure',
      level: 'info',
      channels: [channel],
      collapse: false,
      content: { test: true, requestedBy: actor.name, message: `Tickflow test alarm requested by ${actor.name}` },
    },
    now,
  );
  return rows[0];
}
