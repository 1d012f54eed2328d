import type { Db } from '../db.ts';
import { ALARM_STATUSES, ALARM_TYPES, type AlarmStatus, type AlarmType } from './config.ts';
import { redactAlarmTarget } from './redact-target.ts';

/** One alarm row as the console and REST show it (instants ISO-8601 UTC). */
export interface AlarmView {
  id: string;
  jobId: string | null;
  /** content.jobKey when known (jobs may since have been purged) */
  jobKey: string | null;
  runId: string | null;
  type: AlarmType;
  level: string;
  channel: 'webhook' | 'email' | 'log';
  /** where it goes; a webhook URL only as its origin (redact-target.ts) */
  target: string;
  status: AlarmStatus;
  count: number;
  attempts: number;
  message: string;
  error: string | null;
  content: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
  nextAttemptAt: string;
  /** who acknowledged it (actor name), when, and their note; null when not acknowledged */
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  ackNote: string | null;
  /** the silence that kept it from being delivered (status `silenced`) */
  silence: { id: string; until: string; createdBy: string; endedAt: string | null } | null;
}

type AlarmRow = Awaited<ReturnType<typeof findAlarms>>[number];
function findAlarms(db: Db, args: { where: Record<string, unknown>; take: number }) {
  return db.alarm.findMany({ ...args, include: { silence: true }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

function toAlarmView(r: AlarmRow): AlarmView {
  const content = (r.content && typeof r.content === 'object' && !Array.isArray(r.content) ? r.content : {}) as Record<string, unknown>;
  const message = typeof content.message === 'string' ? content.message : `${r.type} alarm`;
  return {
    id: r.id,
    jobId: r.jobId,
    jobKey: typeof content.jobKey === 'string' ? content.jobKey : null,
    runId: r.runId,
    type: r.type as AlarmType,
    level: r.level,
    channel: r.channel,
    target: redactAlarmTarget(r.channel, r.target),
    status: r.status as AlarmStatus,
    count: r.count,
    attempts: r.attempts,
    message,
    error: r.error,
    content,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    sentAt: r.sentAt?.toISOString() ?? null,
    nextAttemptAt: r.nextAttemptAt.toISOString(),
    acknowledgedAt: r.acknowledgedAt?.toISOString() ?? null,
    acknowledgedBy: r.acknowledgedBy,
    ackNote: r.ackNote,
    silence: r.silence ? { id: r.silence.id, until: r.silence.until.toISOString(), createdBy: r.silence.createdBy, endedAt: r.silence.endedAt?.toISOString() ?? null } : null,
  };
}

/** One alarm by id, or null (unknown or malformed id). */
export async function getAlarm(db: Db, id: string): Promise<AlarmView | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const rows = await findAlarms(db, { where: { id }, take: 1 });
  return rows[0] ? toAlarmView(rows[0]) : null;
}

export interface ListAlarmsQuery {
  type?: AlarmType;
  status?: AlarmStatus;
  jobId?: string;
  /** page size, 1..200 (default 50) */
  limit?: number;
  /** ISO instant: rows created strictly before it (keyset paging on created_at) */
  before?: string;
}

/**
 * Lists alarms newest first with optional type / status / job filters.
 * Paging: keyset on created_at (`before` = the last row's createdAt; `nextBefore` null at the end).
 * Index: alarms_job_idx (job_id, type, created_at DESC) when filtered by job; otherwise a scan of
 * the created_at order, bounded by `limit` (alarms are few compared to runs).
 */
export async function listAlarms(db: Db, q: ListAlarmsQuery = {}): Promise<{ items: AlarmView[]; nextBefore: string | null }> {
  const limit = Math.min(200, Math.max(1, q.limit ?? 50));
  if (q.type && !ALARM_TYPES.includes(q.type)) return { items: [], nextBefore: null };
  if (q.status && !ALARM_STATUSES.includes(q.status)) return { items: [], nextBefore: null };
  const rows = await findAlarms(db, {
    where: {
      ...(q.type ? { type: q.type } : {}),
      ...(q.status ? { status: q.status } : {}),
      ...(q.jobId ? { jobId: q.jobId } : {}),
      ...(q.before ? { createdAt: { lt: new Date(q.before) } } : {}),
    },
    take: limit + 1,
  });
  const items = rows.slice(0, limit).map(toAlarmView);
  return { items, nextBefore: rows.length > limit ? items[items.length - 1].createdAt : null };
}
