import { inTransaction, type Db } from '../db.ts';
import { isoUtcSql } from '../engine/sql/iso-utc.ts';
import {
  alarmConfigAtSql,
  alarmEnabled,
  collapseWindowSeconds,
  nodeOfflineChannels,
  parseAlarmConfig,
  RAISED_ORIGIN,
  type AlarmChannel,
  type AlarmLevel,
  type AlarmType,
} from './config.ts';

export interface RaiseAlarmInput {
  /** the job the alarm is about (text id as in runs.job_id); null for global alarms (node_offline, test) */
  jobId: string | null;
  runId?: string | null;
  type: AlarmType;
  level: AlarmLevel;
  /** free JSON describing the event; `message` (string) is what email subjects and log lines show */
  content: Record<string, unknown>;
  /**
   * Where to deliver. Omitted: the job's configured channels when `type` is switched on in its
   * alarm_config (nothing when it is off), or the env-configured channels for node_offline.
   */
  channels?: AlarmChannel[];
  /** false: always insert (test alarms, the fan-out of an engine's state change). Default true: collapse within the window. */
  collapse?: boolean;
}

export interface RaisedAlarm {
  id: string;
  channel: AlarmChannel['type'];
  target: string;
  /** true when an existing row within the collapse window absorbed this one (its count grew) */
  collapsed: boolean;
  count: number;
}

/**
 * Whether the newest row of a key may absorb a new occurrence (alias-free, on `alarms`, `$5` = now):
 * only while the decision its delivery stands for still holds. A pending or sent row: yes (one
 * message per window). A silenced row: only while the silence that silenced it is in force, so
 * that after an unsilence, or once the silence runs out, the next occurrence is a row of its own
 * and is delivered (docs/console.md "Alarms": while silenced no notification is sent, and only
 * then). A failed row (delivery gave up): no, so a receiver back from an outage hears of what
 * happened since instead of the window swallowing it.
 */
const COLLAPSIBLE_SQL = `(alarms.status IN ('pending', 'sent')
                OR (alarms.status = 'silenced' AND EXISTS (
                      SELECT 1 FROM alarm_silences s
                       WHERE s.id = alarms.silence_id AND s.ended_at IS NULL AND s.until > $5::timestamptz)))`;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The job's key and alarm config, or null when the job does not exist (purged) or the id is not a uuid.
 * With `at`, the config in force at that instant (config.ts alarmConfigAtSql: an alarm follows the
 * settings of the moment its event happened); without, the current one.
 */
export async function loadJobAlarmConfig(db: Db, jobId: string, at?: Date): Promise<{ key: string; config: ReturnType<typeof parseAlarmConfig> } | null> {
  if (!UUID_RE.test(jobId)) return null;
  const rows = await db.$queryRawUnsafe<{ key: string; alarm_config: unknown }[]>(
    at
      ? `SELECT j.key, ${alarmConfigAtSql('j', '$2::timestamptz')} AS alarm_config FROM jobs j WHERE j.id = $1::uuid`
      : `SELECT key, alarm_config FROM jobs WHERE id = $1::uuid`,
    jobId,
    ...(at ? [at] : []),
  );
  return rows[0] ? { key: rows[0].key, config: parseAlarmConfig(rows[0].alarm_config) } : null;
}

/**
 * Raises an alarm: one `alarms` row (status pending, due now) per channel, or — when a row for
 * the same (job, type, channel, target) was created within the collapse window
 * (TICKFLOW_ALARM_COLLAPSE_SECONDS, default 600 s) and is still collapsible (COLLAPSIBLE_SQL:
 * pending, sent, or silenced by a silence still in force) — increments that row's `count` instead
 * (a flood of failures is one message, not fifty). The collapsed row's content gains `lastRunId` /
 * `lastAt` so the latest occurrence is still visible.
 *
 * Concurrency: a transaction-scoped advisory lock on the (job, type, channel, target) key makes
 * two finalisations racing for the same key collapse instead of inserting twice. Joins `db`
 * when it is a transaction (run finalisation calls it inside its own).
 * Index: alarms_job_idx (job_id, type, created_at DESC) for the collapse lookup.
 *
 * @param now injected clock: created_at / next_attempt_at / the collapse window are relative to it.
 * @returns the rows written (empty when nothing is configured).
 */
export async function raiseAlarm(db: Db, input: RaiseAlarmInput, now: Date = new Date()): Promise<RaisedAlarm[]> {
  let channels = input.channels;
  let jobKey: string | undefined;
  if (!channels) {
    if (input.type === 'node_offline') channels = nodeOfflineChannels();
    else if (input.jobId) {
      const job = await loadJobAlarmConfig(db, input.jobId);
      jobKey = job?.key;
      channels = job && alarmEnabled(job.config, input.type) ? job.config.channels : [];
    } else channels = [];
  }
  if (channels.length === 0) return [];
  const content = { origin: RAISED_ORIGIN, ...(jobKey && !('jobKey' in input.content) ? { jobKey } : {}), ...input.content };
  const windowStart = new Date(now.getTime() - collapseWindowSeconds() * 1000);
  const collapse = input.collapse !== false && collapseWindowSeconds() > 0;

  return inTransaction(db, async (tx) => {
    const out: RaisedAlarm[] = [];
    // Distinct channels only: a config listing the same target twice should not alarm twice.
    const seen = new Set<string>();
    for (const ch of channels) {
      const k = `${ch.type}\u0000${ch.target}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const lockKey = `tickflow.alarm:${input.jobId ?? ''}:${input.type}:${ch.type}:${ch.target}`;
      await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))::text`, lockKey);
      if (collapse) {
        const updated = await tx.$queryRawUnsafe<{ id: string; count: number }[]>(
          `UPDATE alarms
              SET count = count + 1, updated_at = $5::timestamptz,
                  content = content || jsonb_strip_nulls(jsonb_build_object('lastRunId', $6::text, 'lastAt', ${isoUtcSql('$5::timestamptz')}))
            WHERE id = (SELECT id FROM alarms
                         WHERE ${input.jobId === null ? "job_id IS NULL AND $1::text = ''" : 'job_id = $1::text'}
                           AND type = $2::alarm_type AND channel = $3::alarm_channel AND target = $4
                           AND created_at >= $7::timestamptz
                         ORDER BY created_at DESC LIMIT 1)
              AND ${COLLAPSIBLE_SQL}
            RETURNING id::text, count`,
          input.jobId ?? '', input.type, ch.type, ch.target, now, input.runId ?? null, windowStart,
        );
        if (updated[0]) {
          out.push({ id: updated[0].id, channel: ch.type, target: ch.target, collapsed: true, count: updated[0].count });
          continue;
        }
      }
      const inserted = await tx.$queryRawUnsafe<{ id: string }[]>(
        `INSERT INTO alarms (job_id, run_id, type, level, channel, target, content, status, next_attempt_at, created_at, updated_at)
         VALUES ($1, $2, $3::alarm_type, $4, $5::alarm_channel, $6, $7::jsonb, 'pending', $8::timestamptz, $8::timestamptz, $8::timestamptz)
         RETURNING id::text`,
        input.jobId, input.runId ?? null, input.type, input.level, ch.type, ch.target, JSON.stringify(content), now,
      );
      out.push({ id: inserted[0].id, channel: ch.type, target: ch.target, collapsed: false, count: 1 });
    }
    return out;
  });
}
