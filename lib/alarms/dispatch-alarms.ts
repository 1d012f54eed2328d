import { inTransaction, type Db } from '../db.ts';
import { log } from '../log.ts';
import { alarmRetryDelayMs, deliveryPolicy, nodeOfflineChannels, RAISED_ORIGIN, type AlarmChannel, type AlarmChannelType, type AlarmType } from './config.ts';
import { AlarmDeliveryError, deliverAlarm, type DeliverableAlarm, type DeliverOptions } from './deliver.ts';
import { loadJobAlarmConfig, raiseAlarm } from './raise-alarm.ts';
import { silenceDueAlarms } from './silence-due-alarms.ts';
import { redactAlarmTarget } from './redact-target.ts';

export interface DispatchResult {
  claimed: number;
  sent: number;
  /** failed attempts that will be retried (row back to pending with a later next_attempt_at) */
  retried: number;
  /** rows that used up TICKFLOW_ALARM_MAX_ATTEMPTS and are now `failed` */
  failed: number;
  /** rows raised by fanning out engine source rows (dead_letter, node_offline) */
  fannedOut: number;
  /** due rows an active silence covered: marked `silenced`, not delivered */
  silenced: number;
}

type ClaimedRow = {
  id: string;
  job_id: string | null;
  run_id: string | null;
  type: AlarmType;
  level: string;
  channel: AlarmChannelType;
  target: string;
  content: Record<string, unknown> | null;
  count: number;
  attempts: number;
  created_at: Date;
};

/**
 * Claims due pending alarms: one statement, `FOR UPDATE SKIP LOCKED` so several
 * dispatchers (one per worker) never take the same row; `attempts + 1` and
 * next_attempt_at pushed past the delivery timeout act as a lease, so a dispatcher that
 * dies mid-delivery only delays the row (it becomes due again), never loses it.
 * Index: alarms_pending_idx (next_attempt_at) WHERE status = 'pending'.
 */
export async function claimAlarms(db: Db, p: { limit: number; leaseMs: number }, now: Date): Promise<DeliverableAlarm[]> {
  const rows = await db.$queryRawUnsafe<ClaimedRow[]>(
    `UPDATE alarms a
        SET attempts = a.attempts + 1, next_attempt_at = $2::timestamptz + make_interval(secs => $3::double precision / 1000),
            updated_at = $2::timestamptz
      WHERE a.id IN (SELECT id FROM alarms
                      WHERE status = 'pending' AND next_attempt_at <= $2::timestamptz
                      ORDER BY next_attempt_at
                      LIMIT $1::int
                      FOR UPDATE SKIP LOCKED)
        AND a.status = 'pending'
      RETURNING a.id::text, a.job_id, a.run_id, a.type::text AS type, a.level, a.channel::text AS channel, a.target,
                a.content, a.count, a.attempts, a.created_at`,
    p.limit, now, p.leaseMs,
  );
  return rows.map((r) => ({
    id: r.id,
    jobId: r.job_id,
    runId: r.run_id,
    type: r.type,
    level: r.level,
    channel: r.channel,
    target: r.target,
    content: r.content ?? {},
    count: r.count,
    attempts: r.attempts,
    createdAt: r.created_at,
  }));
}

/** A row the engine inserted itself (dead_letter / node_offline on the log channel) rather than raiseAlarm. */
export function isSourceRow(a: Pick<DeliverableAlarm, 'type' | 'channel' | 'content'>): boolean {
  return a.channel === 'log' && (a.type === 'dead_letter' || a.type === 'node_offline') && a.content.origin !== RAISED_ORIGIN;
}

/**
 * Fan-out of an engine source row to the channels configured for it (the log line itself
 * is the source row's own delivery, so `log` channels are left out): dead_letter -> the
 * job's channels when onDeadLetter is on; node_offline -> TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK/_EMAIL.
 * Never collapsed into an earlier row: each source row is a change of state, not a repeat — a
 * node goes offline once (a restarted worker is a new node) and a job moves to dead letter
 * once per resume — and node alarms have no job, so collapsing would make a second node's
 * loss, or a dead letter after a resume, a count on a message already sent.
 */
async function fanOut(tx: Db, a: DeliverableAlarm, now: Date): Promise<number> {
  let channels: AlarmChannel[] = [];
  if (a.type === 'node_offline') channels = nodeOfflineChannels();
  else if (a.jobId) {
    // the settings in force when the engine wrote the source row, not at this pass (config.ts alarmConfigAtSql)
    const job = await loadJobAlarmConfig(tx, a.jobId, a.createdAt);
    if (job?.config.onDeadLetter) channels = job.config.channels;
  }
  channels = channels.filter((c) => c.type !== 'log');
  if (!channels.length) return 0;
  const raised = await raiseAlarm(
    tx,
    { jobId: a.jobId, runId: a.runId, type: a.type, level: a.level === 'error' ? 'error' : a.level === 'info' ? 'info' : 'warning', content: { ...a.content, sourceAlarmId: a.id }, channels, collapse: false },
    now,
  );
  return raised.length;
}

/**
 * One dispatcher pass (the body of worker/alarm-dispatcher.ts): claim up to `limit` due
 * pending alarms, deliver them concurrently (lib/alarms/deliver.ts), and record each outcome
 * as a compare-and-set on (id, status pending, attempts):
 * - success -> `sent`, sent_at = now, error cleared;
 * - failure -> error stored; `failed` after TICKFLOW_ALARM_MAX_ATTEMPTS (default 5) attempts,
 *   else back to pending with next_attempt_at = now + 30 s * 2^(attempts-1) (capped at 1 h).
 * Engine source rows (isSourceRow) are fanned out in the same transaction that marks them
 * sent, so a fan-out happens exactly once per source row. Before claiming, due rows an active
 * silence covers become `silenced` (silence-due-alarms.ts): recorded, never delivered, and a
 * silenced source row is not fanned out either.
 *
 * @param now injected clock for due-ness, backoff and sent_at.
 */
export async function dispatchAlarms(db: Db, p: { limit?: number } & DeliverOptions = {}, now: Date = new Date()): Promise<DispatchResult> {
  const policy = deliveryPolicy();
  const silenced = await silenceDueAlarms(db, now);
  const claimed = await claimAlarms(db, { limit: p.limit ?? 50, leaseMs: (p.timeoutMs ?? policy.timeoutMs) + 60_000 }, now);
  const result: DispatchResult = { claimed: claimed.length, sent: 0, retried: 0, failed: 0, fannedOut: 0, silenced };
  const logger = log('alarm-dispatcher');
  await Promise.all(
    claimed.map(async (a) => {
      let error: string | null = null;
      let failure: Record<string, unknown> = {};
      try {
        await deliverAlarm(a, p);
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
        if (e instanceof AlarmDeliveryError) failure = { code: e.code, ...e.detail };
      }
      if (error === null) {
        await inTransaction(db, async (tx) => {
          const n = await tx.$executeRawUnsafe(
            `UPDATE alarms SET status = 'sent', sent_at = $3::timestamptz, error = NULL, updated_at = $3::timestamptz
              WHERE id = $1::uuid AND status = 'pending' AND attempts = $2::int`,
            a.id, a.attempts, now,
          );
          if (n === 1 && isSourceRow(a)) {
            // awaited first: `result.fannedOut += await …` would read the total before the await, and the
            // deliveries run concurrently, so one's count would overwrite another's
            const raised = await fanOut(tx, a, now);
            result.fannedOut += raised;
          }
        });
        result.sent++;
        return;
      }
      const final = a.attempts >= policy.maxAttempts;
      await db.$executeRawUnsafe(
        `UPDATE alarms SET status = $3::alarm_status, error = $4, updated_at = $5::timestamptz,
                next_attempt_at = CASE WHEN $3 = 'pending' THEN $6::timestamptz ELSE next_attempt_at END
          WHERE id = $1::uuid AND status = 'pending' AND attempts = $2::int`,
        a.id, a.attempts, final ? 'failed' : 'pending', error.slice(0, 2000), now, new Date(now.getTime() + alarmRetryDelayMs(a.attempts, policy)),
      );
      if (final) {
        result.failed++;
        logger.error({ alarmId: a.id, channel: a.channel, target: redactAlarmTarget(a.channel, a.target), attempts: a.attempts, error, ...failure }, 'alarm delivery failed for good');
      } else {
        result.retried++;
        logger.warn({ alarmId: a.id, channel: a.channel, target: redactAlarmTarget(a.channel, a.target), attempts: a.attempts, error, ...failure }, 'alarm delivery failed; will retry');
      }
    }),
  );
  return result;
}
