/**
 * Alarm settings and vocabulary (docs/design.md §3 `alarms`).
 *
 * Glossary:
 * - alarm      — one delivery: a row of `alarms` for one (type, channel, target). A job
 *                configured with two channels raises two rows for one event.
 * - type       — failure | timeout | success (run outcomes, per job config), dead_letter
 *                (job moved to dead letter), node_offline (global, env configured).
 * - channel    — webhook (JSON POST, HMAC signed), email (SMTP via nodemailer), log (a pino line).
 * - collapse   — a repeat of the same (job, type, channel, target) within the collapse window
 *                increments `count` on the existing row instead of inserting a new one.
 * - source row — a `log` row the engine inserts itself in SQL (dead_letter from run
 *                finalisation, node_offline from the reaper); the dispatcher fans it out to
 *                the configured webhook/email channels when it delivers it.
 *
 * Every value here is read from the environment at call time (tests set env per case), through
 * alarmSettings, which refuses a malformed one.
 */
import type { AlarmsView } from '../jobs/job-view.ts';
import { AlarmChannelInput } from '../api/schemas.ts';
import { ConfigError, envInt } from '../infra/env-int.ts';

/** alarm_type enum: what happened (run outcomes per job config, dead letter, node offline). */
export type AlarmType = 'failure' | 'timeout' | 'dead_letter' | 'success' | 'node_offline';
/** alarm_channel enum: how it is delivered. */
export type AlarmChannelType = 'webhook' | 'email' | 'log';
/**
 * alarm_status enum: pending (due at next_attempt_at) -> sent | failed (attempts used up) |
 * silenced (an alarm_silences row covered it when it fell due: recorded, never delivered).
 */
export type AlarmStatus = 'pending' | 'sent' | 'failed' | 'silenced';
/** Free-text level column; these three are what Tickflow writes. */
export type AlarmLevel = 'info' | 'warning' | 'error';
/** One delivery destination: webhook URL, email address, or '' for log. */
export type AlarmChannel = { type: AlarmChannelType; target: string };

/** Every alarm type, in display order. */
export const ALARM_TYPES: readonly AlarmType[] = ['failure', 'timeout', 'dead_letter', 'success', 'node_offline'];
/** Every delivery status. */
export const ALARM_STATUSES: readonly AlarmStatus[] = ['pending', 'sent', 'failed', 'silenced'];
/** Every channel type. */
export const ALARM_CHANNELS: readonly AlarmChannelType[] = ['webhook', 'email', 'log'];

/** Marker in `content.origin` of rows created by raiseAlarm (rows without it are engine source rows). */
export const RAISED_ORIGIN = 'tickflow.alarms';

/**
 * Every alarm setting from the environment, checked (README "Configuration"): read by the worker
 * (delivery, collapse, node-offline channels) and the console (the run-alarm lag shown on the
 * Alarms page, test alarms), both through this one function, and checked at start by each
 * (worker/config.ts loadWorkerConfig, scripts/start.ts), so a malformed value stops the start
 * naming the variable instead of falling back to the default without a word.
 * - TICKFLOW_ALARM_COLLAPSE_SECONDS (600, 0..2592000; 0 disables collapsing)
 * - TICKFLOW_ALARM_MAX_ATTEMPTS (5, 1..100)
 * - TICKFLOW_ALARM_BACKOFF_SECONDS (30, 0..86400), TICKFLOW_ALARM_BACKOFF_MAX_SECONDS (3600, 0..86400)
 * - TICKFLOW_ALARM_TIMEOUT_MS (10000, 1..600000: one delivery's time limit)
 * - TICKFLOW_ALARM_RUN_LAG_SECONDS (45, 0..3600: lib/alarms/scan-finished-runs.ts)
 * - TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK / _EMAIL (comma-separated; each checked as a job's alarm
 *   channel is, lib/api/schemas.ts AlarmChannelInput)
 * @throws ConfigError naming the variable (and, for a channel list, the entry's position, never its
 *   text: a webhook URL often carries its token)
 */
export function alarmSettings(env: Record<string, string | undefined> = process.env): AlarmSettings {
  return {
    collapseSeconds: envInt(env, 'TICKFLOW_ALARM_COLLAPSE_SECONDS', 600, 0, 30 * 86_400),
    maxAttempts: envInt(env, 'TICKFLOW_ALARM_MAX_ATTEMPTS', 5, 1, 100),
    backoffBaseSeconds: envInt(env, 'TICKFLOW_ALARM_BACKOFF_SECONDS', 30, 0, 86_400),
    backoffMaxSeconds: envInt(env, 'TICKFLOW_ALARM_BACKOFF_MAX_SECONDS', 3600, 0, 86_400),
    timeoutMs: envInt(env, 'TICKFLOW_ALARM_TIMEOUT_MS', 10_000, 1, 600_000),
    runLagSeconds: envInt(env, 'TICKFLOW_ALARM_RUN_LAG_SECONDS', 45, 0, 3600),
    nodeOffline: [...channelList(env, 'TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK', 'webhook'), ...channelList(env, 'TICKFLOW_ALARM_NODE_OFFLINE_EMAIL', 'email')],
  };
}

/** What alarmSettings reads; durations in the unit their variable names. */
export interface AlarmSettings {
  collapseSeconds: number;
  maxAttempts: number;
  backoffBaseSeconds: number;
  backoffMaxSeconds: number;
  timeoutMs: number;
  runLagSeconds: number;
  nodeOffline: AlarmChannel[];
}

function channelList(env: Record<string, string | undefined>, name: string, type: 'webhook' | 'email'): AlarmChannel[] {
  const entries = (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return entries.map((target, i) => {
    const checked = AlarmChannelInput.safeParse({ type, target });
    if (!checked.success) throw new ConfigError(`${name}: entry ${i + 1} of ${entries.length}: ${checked.error.issues[0]!.message}`);
    return { type, target };
  });
}

/** Collapse window in seconds: TICKFLOW_ALARM_COLLAPSE_SECONDS, default 600 (10 min); 0 disables collapsing. */
export function collapseWindowSeconds(): number {
  return alarmSettings().collapseSeconds;
}

/**
 * Delivery policy: attempts before `failed` (TICKFLOW_ALARM_MAX_ATTEMPTS, default 5), retry
 * backoff base/cap in seconds (TICKFLOW_ALARM_BACKOFF_SECONDS default 30, _MAX_SECONDS default
 * 3600), per-delivery timeout in ms (TICKFLOW_ALARM_TIMEOUT_MS default 10000).
 * @throws ConfigError for a malformed value (alarmSettings)
 */
export function deliveryPolicy(): { maxAttempts: number; backoffBaseSeconds: number; backoffMaxSeconds: number; timeoutMs: number } {
  const { maxAttempts, backoffBaseSeconds, backoffMaxSeconds, timeoutMs } = alarmSettings();
  return { maxAttempts, backoffBaseSeconds, backoffMaxSeconds, timeoutMs };
}

/**
 * Delay before retry number `attempts` (1-based count of failed attempts so far), in ms:
 * base * 2^(attempts-1), capped. Deterministic (no jitter) so tests can assert next_attempt_at;
 * alarms are few, a thundering herd is not a concern here.
 */
export function alarmRetryDelayMs(attempts: number, policy = deliveryPolicy()): number {
  const s = Math.min(policy.backoffMaxSeconds, policy.backoffBaseSeconds * 2 ** Math.max(0, attempts - 1));
  return s * 1000;
}

/** HMAC key for the webhook signature header (TICKFLOW_WEBHOOK_SECRET); empty -> no header. */
export function webhookSecret(): string {
  return process.env.TICKFLOW_WEBHOOK_SECRET ?? '';
}

/** SMTP transport URL (TICKFLOW_SMTP_URL, e.g. smtp://user:pass@host:587) and From address (TICKFLOW_SMTP_FROM). */
export function smtpSettings(): { url: string; from: string } {
  return { url: process.env.TICKFLOW_SMTP_URL ?? '', from: process.env.TICKFLOW_SMTP_FROM || 'Tickflow <tickflow@localhost>' };
}

/**
 * Global node-offline channels: TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK (URL) and
 * TICKFLOW_ALARM_NODE_OFFLINE_EMAIL (address); each may hold several values separated by commas.
 * @throws ConfigError for a malformed entry (alarmSettings)
 */
export function nodeOfflineChannels(): AlarmChannel[] {
  return alarmSettings().nodeOffline;
}

/**
 * Reads jobs.alarm_config (shape: lib/jobs/job-view.ts AlarmsView, written by lib/jobs from
 * lib/api AlarmsInput) defensively: anything malformed means "off".
 */
export function parseAlarmConfig(value: unknown): AlarmsView {
  const a = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const channels = Array.isArray(a.channels)
    ? (a.channels as unknown[]).flatMap((c) => {
        const o = c && typeof c === 'object' ? (c as Record<string, unknown>) : {};
        return (ALARM_CHANNELS as readonly unknown[]).includes(o.type) ? [{ type: o.type as AlarmChannelType, target: typeof o.target === 'string' ? o.target : '' }] : [];
      })
    : [];
  return { onFailure: a.onFailure === true, onTimeout: a.onTimeout === true, onDeadLetter: a.onDeadLetter === true, onSuccess: a.onSuccess === true, channels };
}

/** Is `type` switched on in a job's alarm config? (node_offline is global, never per job.) */
export function alarmEnabled(config: AlarmsView, type: AlarmType): boolean {
  switch (type) {
    case 'failure':
      return config.onFailure;
    case 'timeout':
      return config.onTimeout;
    case 'dead_letter':
      return config.onDeadLetter;
    case 'success':
      return config.onSuccess;
    default:
      return false;
  }
}

/**
 * SQL for the alarm settings of the job row `job` (an alias of `jobs`) in force at the instant `at`
 * (an SQL expression): the alarms of its newest version created at or before `at`, or the job's
 * current ones when no version is that old (the console's clock ahead of the worker's). An alarm
 * follows the settings of the moment its event happened, not of the moment it is raised or fanned
 * out (README.md "Stats and alarms"). Served by job_versions_uniq (job_id, version), newest first.
 */
export function alarmConfigAtSql(job: string, at: string): string {
  return `COALESCE((SELECT jv.snapshot->'alarms' FROM job_versions jv
                     WHERE jv.job_id = ${job}.id AND jv.created_at <= ${at}
                     ORDER BY jv.version DESC LIMIT 1), ${job}.alarm_config)`;
}

