import { z } from 'zod';
import type { Db } from '../db.ts';
import { Instant, multi, objectId, queryInt, str } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { afterCreatedAt, createdAtPage, type Page } from '../api/cursor.ts';
import { ALARM_STATUSES, ALARM_TYPES, type AlarmStatus, type AlarmType } from './config.ts';
import { redactAlarmTarget } from './redact-target.ts';
import { purgedJobIds } from '../jobs/purged-job-ids.ts';

/** One alarm row as the console and REST show it (instants ISO-8601 UTC). */
export interface AlarmView {
  id: string;
  jobId: string | null;
  /** content.jobKey when known (jobs may since have been purged) */
  jobKey: string | null;
  /** the job was purged (alarms are kept): the console names it as text (lib/jobs/purged-job-ids.ts) */
  jobPurged: boolean;
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

function toAlarmView(r: AlarmRow, purged: Set<string>): AlarmView {
  const content = (r.content && typeof r.content === 'object' && !Array.isArray(r.content) ? r.content : {}) as Record<string, unknown>;
  const message = typeof content.message === 'string' ? content.message : `${r.type} alarm`;
  return {
    id: r.id,
    jobId: r.jobId,
    jobKey: typeof content.jobKey === 'string' ? content.jobKey : null,
    jobPurged: r.jobId !== null && purged.has(r.jobId),
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
  if (!rows[0]) return null;
  return toAlarmView(rows[0], await purgedJobIds(db, rows[0].jobId ? [rows[0].jobId] : []));
}

/**
 * Query of GET /api/v1/alarms and the alarms page: `type` and `status` (each one value or several,
 * `?status=sent,failed`), `jobId` (a job id, never its
 * key), `limit` (1..200, default 50), `cursor` (the `nextCursor` of the previous page) and `before`
 * (an instant: only alarms created strictly before it; a bound, never a cursor, since the rows of
 * one alarm share their instant; a `/alarms?before=<instant>` link opens at that instant).
 */
export const ListAlarmsQuery = z.object({
  // list parameters, as the runs' and jobs' status filters (schemas.ts multi): `?status=sent,failed`
  type: multi(z.enum(ALARM_TYPES as [AlarmType, ...AlarmType[]])).optional(),
  status: multi(z.enum(ALARM_STATUSES as [AlarmStatus, ...AlarmStatus[]])).optional(),
  jobId: objectId('job').optional(),
  limit: queryInt(1, 200).optional(),
  cursor: str().max(1000).optional(),
  before: Instant.optional(),
});
export type ListAlarmsQuery = z.input<typeof ListAlarmsQuery>;

/** The sort an alarms cursor belongs to (lib/api/cursor.ts): a cursor of another list is a 400 at `cursor`. */
const ALARMS_CURSOR = 'alarms';

/**
 * Lists alarms newest first with optional type / status / job filters.
 * Paging: keyset on (created_at desc, id desc), as the runs list (lib/runs/list-runs.ts): every
 * channel's row of one alarm shares its created_at, so a cursor of the instant alone would skip
 * the rest of them; `nextCursor` is null at the end.
 * Index: alarms_job_idx (job_id, type, created_at DESC) when filtered by job; otherwise a scan of
 * the created_at order, bounded by `limit` (alarms are few compared to runs).
 * @throws DomainError('validation') naming the bad query parameter (`cursor` for a malformed or foreign cursor)
 */
export async function listAlarms(db: Db, rawQuery: ListAlarmsQuery = {}): Promise<Page<AlarmView>> {
  const q = parseOrThrow(ListAlarmsQuery, rawQuery);
  const limit = q.limit ?? 50;
  const and: Record<string, unknown>[] = [];
  if (q.before) and.push({ createdAt: { lt: q.before } });
  if (q.cursor) and.push(afterCreatedAt(q.cursor, ALARMS_CURSOR));
  const rows = await findAlarms(db, {
    where: {
      ...(q.type?.length ? { type: { in: q.type } } : {}),
      ...(q.status?.length ? { status: { in: q.status } } : {}),
      ...(q.jobId ? { jobId: q.jobId } : {}),
      AND: and,
    },
    take: limit + 1,
  });
  const page = createdAtPage(rows, limit, ALARMS_CURSOR);
  const purged = await purgedJobIds(db, page.items.flatMap((a) => (a.jobId ? [a.jobId] : [])));
  return { items: page.items.map((a) => toAlarmView(a, purged)), nextCursor: page.nextCursor };
}
