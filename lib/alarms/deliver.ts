import { redactUrlsIn } from '../net/redact-urls.ts';
import { withoutTargetSecrets } from './without-target-secrets.ts';
import { createHmac } from 'node:crypto';
import { outboundFetch, OutboundRefusedError } from '../net/outbound.ts';
import { readCapped } from '../net/read-capped.ts';
import type { Transporter } from 'nodemailer';
import { log } from '../log.ts';
import { findInErrorChain } from '../infra/error-chain.ts';
import { deliveryPolicy, smtpSettings, webhookSecret, type AlarmChannelType, type AlarmType } from './config.ts';

/** One alarm as the dispatcher hands it to a channel (an `alarms` row, camelCase). */
export interface DeliverableAlarm {
  id: string;
  jobId: string | null;
  runId: string | null;
  type: AlarmType;
  level: string;
  channel: AlarmChannelType;
  target: string;
  content: Record<string, unknown>;
  count: number;
  /** attempts including this one (1 = first try) */
  attempts: number;
  createdAt: Date;
}

/** Header carrying the webhook body's HMAC: `sha256=<hex HMAC-SHA256 of the raw body with TICKFLOW_WEBHOOK_SECRET>`. */
export const SIGNATURE_HEADER = 'X-Tickflow-Signature';

/** The most bytes of a webhook receiver's answer read (its first 200 characters name a refusal). */
export const WEBHOOK_ANSWER_CAP_BYTES = 4096;

/** `sha256=<hex>` HMAC-SHA256 of `body` (the exact bytes sent) with `secret`. Receivers recompute and compare in constant time. */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * The JSON a webhook receives (and an email's text): stable field names, instants as ISO-8601 UTC.
 * `{ id, type, level, jobId, runId, count, attempt, createdAt, message, content }`.
 */
export function alarmPayload(a: DeliverableAlarm): Record<string, unknown> {
  return {
    id: a.id,
    type: a.type,
    level: a.level,
    jobId: a.jobId,
    runId: a.runId,
    count: a.count,
    attempt: a.attempts,
    createdAt: a.createdAt.toISOString(),
    message: alarmMessage(a),
    content: a.content,
  };
}

/** Human one-liner: content.message, else "<type> alarm". Collapsed repeats say "(xN)". */
export function alarmMessage(a: Pick<DeliverableAlarm, 'type' | 'content' | 'count'>): string {
  const m = typeof a.content.message === 'string' && a.content.message ? a.content.message : `${a.type} alarm`;
  return a.count > 1 ? `${m} (x${a.count})` : m;
}

/**
 * Why a delivery failed, for code and logs: `refused` (the outbound guard, lib/net/outbound.ts),
 * `timeout` (TICKFLOW_ALARM_TIMEOUT_MS), `network` (no answer: connection refused or reset, TLS,
 * DNS), `http_status` (the receiver answered outside 2xx: `status`), `not_configured` (a setting the
 * channel needs is missing: `setting`), `smtp` (the mail server refused or failed).
 */
export type AlarmDeliveryFailure = 'refused' | 'timeout' | 'network' | 'http_status' | 'not_configured' | 'smtp';

/** A failed delivery: the message (stored in alarms.error) says what failed in words, `code` in a word. */
export class AlarmDeliveryError extends Error {
  constructor(
    readonly code: AlarmDeliveryFailure,
    message: string,
    readonly detail: { status?: number; setting?: string } = {},
  ) {
    super(message);
    this.name = 'AlarmDeliveryError';
  }
}

/** What a network error's socket code means, in words (the code itself follows in brackets). */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed while sending',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  UND_ERR_SOCKET: 'connection closed by the receiver',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer headers in time',
};

/**
 * The reason a request failed without an answer, from the error chain: fetch itself says only
 * "fetch failed", the socket's error (its `cause`) says what. A known socket code in words with the
 * code (`connection refused (ECONNREFUSED)`), else the innermost message (a TLS certificate error).
 */
export function networkFailureReason(e: unknown): string {
  const code = findInErrorChain(e, (l) => (typeof l.code === 'string' && l.code in NETWORK_CODES ? l.code : null));
  if (code) return `${NETWORK_CODES[code]} (${code})`;
  let inner: unknown = e;
  for (let i = 0; i < 5 && inner instanceof Error && inner.cause instanceof Error; i++) inner = inner.cause;
  return inner instanceof Error ? inner.message : String(inner);
}

export interface DeliverOptions {
  timeoutMs?: number;
}

const transports = new Map<string, Transporter>();
async function transportFor(url: string, timeoutMs: number): Promise<Transporter> {
  let t = transports.get(url);
  if (!t) {
    // nodemailer is imported at the first email: a worker that sends none does not keep it
    // in memory (docs/operations.md "Worker memory").
    const nodemailer = (await import('nodemailer')).default;
    if ((t = transports.get(url))) return t;
    // A URL string configures host/port/auth/secure; the timeouts keep a dead SMTP
    // server from pinning a dispatcher slot.
    t = nodemailer.createTransport({ url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
    transports.set(url, t);
  }
  return t;
}

/** Closes cached SMTP transports (tests, shutdown). */
export function closeAlarmTransports(): void {
  for (const t of transports.values()) t.close();
  transports.clear();
}

/**
 * Delivers one alarm on its channel; resolves on success, throws an AlarmDeliveryError on failure,
 * whose message is stored in alarms.error and whose code (and HTTP or SMTP status, or the missing
 * setting) says what failed (the dispatcher decides retry vs failed).
 * - webhook: POST target with the JSON payload, `content-type: application/json`,
 *   `X-Tickflow-Signature` (when TICKFLOW_WEBHOOK_SECRET is set), `X-Tickflow-Event: <type>`,
 *   `X-Tickflow-Delivery: <alarm id>`, through lib/net/outbound.ts (an internal address needs
 *   TICKFLOW_OUTBOUND_ALLOW; a redirect is not followed); any non-2xx status or the timeout
 *   (TICKFLOW_ALARM_TIMEOUT_MS, default 10 s) is a failure.
 * - email: nodemailer over TICKFLOW_SMTP_URL from TICKFLOW_SMTP_FROM to target; subject
 *   `[Tickflow] <type>: <message>`, text = the JSON payload pretty-printed.
 * - log: one pino line at the alarm's level (never fails).
 */
export async function deliverAlarm(a: DeliverableAlarm, opts: DeliverOptions = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? deliveryPolicy().timeoutMs;
  const payload = alarmPayload(a);
  switch (a.channel) {
    case 'webhook': {
      const body = JSON.stringify(payload);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'tickflow-alarms',
        'x-tickflow-event': a.type,
        'x-tickflow-delivery': a.id,
      };
      const secret = webhookSecret();
      if (secret) headers[SIGNATURE_HEADER.toLowerCase()] = signBody(body, secret);
      // through the outbound guard (lib/net/outbound.ts): no internal address unless allow-listed, no redirects
      const res = await outboundFetch(a.target, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs), maxRedirects: 0 }).catch((e: unknown) => {
        const err = e as Error;
        if (err instanceof OutboundRefusedError) throw new AlarmDeliveryError('refused', `webhook ${err.message}`);
        if (err?.name === 'TimeoutError') throw new AlarmDeliveryError('timeout', `webhook timed out after ${timeoutMs} ms`);
        // the text may quote the webhook URL, whose path is often its token (redact-target.ts)
        throw new AlarmDeliveryError('network', `webhook request failed: ${withoutTargetSecrets(redactUrlsIn(networkFailureReason(e), { keepPath: false }), a.target)}`);
      });
      // The receiver's answer only explains a refusal: a few KB of it are read, the rest cancelled, so a
      // receiver that streams gigabytes costs the worker no memory (only the timeout bounds the time).
      const text = (await readCapped(res, WEBHOOK_ANSWER_CAP_BYTES).catch(() => ({ text: '' }))).text;
      // the answer may quote the request (a 404 page naming the path), and the path is often the token
      if (!res.ok) {
        const answer = text ? `: ${withoutTargetSecrets(redactUrlsIn(text, { keepPath: false }), a.target).slice(0, 200)}` : '';
        throw new AlarmDeliveryError('http_status', `webhook answered HTTP ${res.status}${answer}`, { status: res.status });
      }
      return;
    }
    case 'email': {
      const { url, from } = smtpSettings();
      if (!url) throw new AlarmDeliveryError('not_configured', 'email alarm: TICKFLOW_SMTP_URL is not set on the worker', { setting: 'TICKFLOW_SMTP_URL' });
      try {
        await (await transportFor(url, timeoutMs)).sendMail({
          from,
          to: a.target,
          subject: `[Tickflow] ${a.type}: ${alarmMessage(a)}`.slice(0, 250),
          text: `${alarmMessage(a)}\n\n${JSON.stringify(payload, null, 2)}\n`,
          headers: { 'X-Tickflow-Delivery': a.id, 'X-Tickflow-Event': a.type },
        });
      } catch (e) {
        // nodemailer's own words name the stage (connect, greeting, RCPT) and the server's answer;
        // its responseCode is the SMTP reply code (550: mailbox unavailable)
        const smtpCode = (e as { responseCode?: unknown }).responseCode;
        throw new AlarmDeliveryError('smtp', `email alarm: ${redactUrlsIn((e as Error)?.message ?? String(e), { keepPath: false })}`, typeof smtpCode === 'number' ? { status: smtpCode } : {});
      }
      return;
    }
    case 'log': {
      const logger = log('alarm');
      const line = { alarmId: a.id, type: a.type, jobId: a.jobId, runId: a.runId, count: a.count, content: a.content };
      if (a.level === 'error') logger.error(line, alarmMessage(a));
      else if (a.level === 'warning' || a.level === 'warn') logger.warn(line, alarmMessage(a));
      else logger.info(line, alarmMessage(a));
      return;
    }
  }
}

