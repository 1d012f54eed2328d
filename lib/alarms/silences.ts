/**
 * Alarm silences (docs/design.md §3 `alarm_silences`): while a silence is active no
 * notification is sent for the alarms it covers; the alarms are still recorded (status
 * `silenced`). A silence covers one job (`jobId`), one alarm type everywhere (`type`), or
 * one alarm rule: a job's alarms of one type (both). Shared vocabulary of the silence operations.
 */
import { z } from 'zod';
import type { AlarmSilence } from '../generated/prisma/client.ts';
import { Instant, MAX_HISTORY_PAGE, objectId, pageParams, str } from '../api/schemas.ts';
import { ALARM_TYPES, type AlarmType } from './config.ts';

/** The durations the console offers, in minutes (1 h, 4 h, 24 h); any other 1..MAX_SILENCE_MINUTES is accepted too. */
export const SILENCE_PRESETS_MINUTES = [60, 240, 1440] as const;
/** Longest silence: 30 days (a longer one is better done by switching the job's alarms off). */
export const MAX_SILENCE_MINUTES = 30 * 24 * 60;

/** One silence as the console and REST show it (instants ISO-8601 UTC). */
export interface SilenceView {
  id: string;
  jobId: string | null;
  /** the job's key when the job still exists */
  jobKey: string | null;
  type: AlarmType | null;
  until: string;
  note: string | null;
  createdBy: string;
  createdAt: string;
  endedAt: string | null;
  endedBy: string | null;
  /** not ended early and `until` still ahead (at the instant of the read) */
  active: boolean;
}

/** Row -> view; `now` decides `active`. */
export function toSilenceView(s: AlarmSilence, jobKey: string | null, now: Date): SilenceView {
  return {
    id: s.id,
    jobId: s.jobId,
    jobKey,
    type: (s.type as AlarmType | null) ?? null,
    until: s.until.toISOString(),
    note: s.note,
    createdBy: s.createdBy,
    createdAt: s.createdAt.toISOString(),
    endedAt: s.endedAt?.toISOString() ?? null,
    endedBy: s.endedBy,
    active: s.endedAt === null && s.until.getTime() > now.getTime(),
  };
}

/**
 * Input of "Silence": `{ jobId?, type?, durationMinutes? | until?, note? }`. At least one of
 * jobId / type; exactly one of durationMinutes (1..43200) / until (a future instant, at most
 * 30 days ahead — checked against the clock in createSilence).
 */
export const CreateSilenceInput = z
  .strictObject({
    jobId: objectId('job').optional(),
    type: z.enum(ALARM_TYPES as [AlarmType, ...AlarmType[]], { message: `Must be one of ${ALARM_TYPES.join(', ')}` }).optional(),
    durationMinutes: z.number({ message: 'Must be a number of minutes' }).int('Must be whole minutes').min(1, 'At least 1 minute').max(MAX_SILENCE_MINUTES, 'At most 30 days').optional(),
    until: Instant.optional(),
    note: str().trim().max(1000).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.jobId === undefined && v.type === undefined) ctx.addIssue({ code: 'custom', path: ['jobId'], message: 'Name a job, an alarm type, or both' });
    if ((v.durationMinutes === undefined) === (v.until === undefined)) ctx.addIssue({ code: 'custom', path: ['durationMinutes'], message: 'Give either durationMinutes or until' });
  });
export type CreateSilenceInput = z.output<typeof CreateSilenceInput>;

/** Input of "Acknowledge": an optional note (at most 1,000 characters). */
export const AcknowledgeAlarmInput = z.strictObject({ note: str().trim().max(1000).optional() });
export type AcknowledgeAlarmInput = z.output<typeof AcknowledgeAlarmInput>;

/**
 * Query of GET /alarms/silences: `active=true` (default) lists the silences in force, `false` also the
 * ended ones, newest first; `limit` (1..500, default 200) and `cursor` (the `nextCursor` of the previous page).
 */
export const ListSilencesQuery = z.object({
  active: z.enum(['true', 'false'], { message: 'active must be true or false' }).optional(),
  ...pageParams(MAX_HISTORY_PAGE),
});
