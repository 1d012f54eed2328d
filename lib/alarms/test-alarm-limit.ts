/**
 * How many test alarms may be sent (docs/console.md "Alarms", "Test alarms are rate-limited"). A test
 * alarm is a real webhook request or email to a target the sender chooses, never collapsed, so
 * without a limit any operator could make Tickflow mail or post to anyone as fast as they can press
 * the button. Counted from the `alarms` rows themselves (so it holds across console processes and
 * restarts), in a sliding window:
 * - at most TEST_ALARMS_PER_PRINCIPAL per principal (a user, an API token);
 * - at most TEST_ALARMS_PER_TARGET per receiver (testAlarmTargetKey), whoever sends them, so
 *   several operators (or one with several tokens) together cannot flood one receiver either.
 */
import type { Db } from '../db.ts';
import type { Actor } from '../auth/actor.ts';
import { DomainError } from '../errors.ts';
import type { AlarmChannel } from './config.ts';

export const TEST_ALARMS_PER_PRINCIPAL = 5;
export const TEST_ALARMS_PER_TARGET = 5;
export const TEST_ALARM_WINDOW_MS = 10 * 60 * 1000;

/** The principal a test alarm counts against: `user:<id>`, `token:<id>` (kept in content.requestedByKey). */
export function testAlarmPrincipal(actor: Actor): string {
  return `${actor.kind}:${actor.id}`;
}

/**
 * The receiver a test alarm counts against (kept in content.targetKey): a webhook's origin
 * (`https://hooks.example.com:443`, so `/hook?1`, `/hook?2` and `/HOOK` are one receiver), an email
 * address in lower case, `log` for the log channel. Varying the rest of a target must not buy more sends.
 */
export function testAlarmTargetKey(channel: AlarmChannel): string {
  if (channel.type === 'webhook') {
    try {
      const u = new URL(channel.target);
      return `webhook:${u.protocol}//${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
    } catch {
      return `webhook:${channel.target}`;
    }
  }
  return channel.type === 'email' ? `email:${channel.target.toLowerCase()}` : 'log';
}

/**
 * Checks the limits before one more test alarm from `actor` to `channel` at `now`. Call inside the
 * transaction that inserts it, after taking the test-alarm lock (send-test-alarm.ts), so two sends at
 * once cannot both see room for one.
 * Index: alarms_job_idx (job_id, type, created_at DESC): test alarms are job_id NULL, type failure.
 * @throws DomainError('rate_limited', detail.retryAfterSeconds: when the oldest counted send leaves the window)
 */
export async function checkTestAlarmLimit(db: Db, actor: Actor, channel: AlarmChannel, now: Date): Promise<void> {
  const since = new Date(now.getTime() - TEST_ALARM_WINDOW_MS);
  const [r] = await db.$queryRawUnsafe<{ own: number; own_oldest: Date | null; target: number; target_oldest: Date | null }[]>(
    `SELECT count(*) FILTER (WHERE content->>'requestedByKey' = $2)::int AS own,
            (array_agg(created_at ORDER BY created_at DESC) FILTER (WHERE content->>'requestedByKey' = $2))[$5::int] AS own_oldest,
            count(*) FILTER (WHERE content->>'targetKey' = $3)::int AS target,
            (array_agg(created_at ORDER BY created_at DESC) FILTER (WHERE content->>'targetKey' = $3))[$6::int] AS target_oldest
       FROM alarms
      WHERE job_id IS NULL AND type = 'failure' AND created_at > $1::timestamptz AND created_at <= $4::timestamptz
        AND content->>'test' = 'true'`,
    since, testAlarmPrincipal(actor), testAlarmTargetKey(channel), now, TEST_ALARMS_PER_PRINCIPAL, TEST_ALARMS_PER_TARGET,
  );
  const minutes = TEST_ALARM_WINDOW_MS / 60_000;
  const wait = (oldest: Date) => Math.max(1, Math.ceil((oldest.getTime() + TEST_ALARM_WINDOW_MS - now.getTime()) / 1000));
  if (r!.own >= TEST_ALARMS_PER_PRINCIPAL && r!.own_oldest) {
    const s = wait(r!.own_oldest);
    throw new DomainError('rate_limited', `You sent ${r!.own} test alarms in the last ${minutes} minutes (at most ${TEST_ALARMS_PER_PRINCIPAL}); try again in ${s} s`, undefined, { retryAfterSeconds: s });
  }
  if (r!.target >= TEST_ALARMS_PER_TARGET && r!.target_oldest) {
    const s = wait(r!.target_oldest);
    throw new DomainError('rate_limited', `This target got ${r!.target} test alarms in the last ${minutes} minutes (at most ${TEST_ALARMS_PER_TARGET}); try again in ${s} s`, undefined, { retryAfterSeconds: s });
  }
}
