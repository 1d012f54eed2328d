/**
 * Presenters for jobs (trigger.dev style: reads are presenters). `toJobView` is
 * the REST shape of docs/design.md §5 (camelCase, ISO-8601 UTC strings);
 * `toJobSnapshot` is the configuration part of it, stored in
 * job_versions.snapshot and compared by diff-versions.
 */
import type { Job, JobEdge, JobStep } from '../generated/prisma/client.ts';
import { dueTimesAfter, type JobSchedule, type ScheduleSpec } from '../schedule/index.ts';
import type { LastRun } from '../engine/sql/last-runs.ts';
import { objectOrEmpty } from '../json-object.ts';

export type ScheduleView =
  | { kind: 'cron'; cron: string; timezone: string }
  | { kind: 'interval'; intervalSeconds: number; timezone: string }
  | { kind: 'once'; runAt: string; timezone: string }
  | { kind: 'manual' };

/** A step's own fields, the same in the API view (StepView) and the stored row (job-input.ts StepRow). */
export type StepFields = {
  key: string;
  name: string;
  handler: string;
  payload: Record<string, unknown>;
  config: Record<string, unknown>;
  timeoutSeconds: number | null;
  maxRetries: number | null;
  resourceKey: string | null;
};

export type StepView = StepFields & { position: { x: number; y: number } };

export type EdgeView = { from: string; to: string; type: 'hard' | 'soft' | 'on_failure' };

export type PolicyView = {
  timeoutSeconds: number;
  maxRetries: number;
  backoff: { baseSeconds: number; factor: number; maxSeconds: number; jitter: number };
  blockStrategy: 'discard_later' | 'serial_execution' | 'cover_early';
  misfirePolicy: 'skip' | 'fire_once' | 'fire_all';
  misfireMaxCatchup: number;
  deadLetterAfter: number;
  priority: number;
};

export type RoutingView = {
  nodeGroup: string | null;
  labels: Record<string, string>;
  strategy: 'any' | 'consistent_hash' | 'nodes';
  nodes: string[];
  key: string | null;
};

/** Stored in jobs.alarm_config as is. */
export type AlarmsView = {
  onFailure: boolean;
  onTimeout: boolean;
  onDeadLetter: boolean;
  onSuccess: boolean;
  channels: { type: 'webhook' | 'email' | 'log'; target: string }[];
};

/** Configuration of a job: what job_versions.snapshot holds (also the input shape of CreateJobInput). */
export type JobSnapshot = {
  key: string;
  name: string;
  description: string;
  status: 'active' | 'paused' | 'dead_letter';
  schedule: ScheduleView;
  startAt: string | null;
  endAt: string | null;
  staggerSeconds: number;
  payload: Record<string, unknown>;
  policy: PolicyView;
  routing: RoutingView;
  alarms: AlarmsView;
  steps: StepView[];
  edges: EdgeView[];
};

export type JobView = JobSnapshot & {
  id: string;
  version: number;
  /** The job's IANA zone (cron evaluation and day bucketing; 'UTC' for non-cron jobs). */
  timezone: string;
  /**
   * The tick's cursor, `jobs.next_run_at`: the due instant of the first slot the tick has not fired yet. Once
   * the tick has created a slot's run ahead (docs/on-time.md "Look-ahead firing") it already names the slot
   * after; a paused job keeps it. Not what the console shows as the next fire: that is `nextFireAt`.
   */
  nextRunAt: string | null;
  /**
   * The job's next fire, the instant its next run is due (docs/on-time.md "Next fire", nextFireOf): the slot of
   * a run created ahead that is still to come, else `nextRunAt` of an active job; null when nothing is coming.
   */
  nextFireAt: string | null;
  /**
   * The job's last run, the run created last (docs/console.md "Last run"): its id, its own status (live:
   * pending or running while it is) and when it was created, always the same run's. When that run is gone
   * from history (retention) only `lastRunAt` remains; all three are null for a job that never ran.
   */
  lastRunId: string | null;
  lastRunAt: string | null;
  lastRunStatus: string | null;
  lastError: string | null;
  consecutiveFailures: number;
  totalRuns: number;
  successRuns: number;
  failedRuns: number;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  deletedBy: string | null;
};

/** One row of the jobs list (no steps/edges payloads; `handlers` = distinct step handlers). */
export type JobListItem = Omit<JobView, 'steps' | 'edges' | 'payload'> & { handlers: string[]; stepCount: number };

export const DEFAULT_ALARMS: AlarmsView = { onFailure: false, onTimeout: false, onDeadLetter: false, onSuccess: false, channels: [] };

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const obj = objectOrEmpty;

export function scheduleView(job: Pick<Job, 'scheduleKind' | 'cronExpression' | 'timezone' | 'intervalSeconds' | 'runAt'>): ScheduleView {
  switch (job.scheduleKind) {
    case 'cron':
      return { kind: 'cron', cron: job.cronExpression ?? '', timezone: job.timezone };
    case 'interval':
      return { kind: 'interval', intervalSeconds: job.intervalSeconds ?? 0, timezone: job.timezone };
    case 'once':
      return { kind: 'once', runAt: iso(job.runAt) ?? '', timezone: job.timezone };
    default:
      return { kind: 'manual' };
  }
}

export function scheduleSpecOf(job: Pick<Job, 'scheduleKind' | 'cronExpression' | 'timezone' | 'intervalSeconds' | 'runAt'>): ScheduleSpec {
  switch (job.scheduleKind) {
    case 'cron':
      return { kind: 'cron', cron: job.cronExpression ?? '', timezone: job.timezone };
    case 'interval':
      return { kind: 'interval', intervalSeconds: job.intervalSeconds ?? 1 };
    case 'once':
      return { kind: 'once', runAt: job.runAt ?? new Date(0) };
    default:
      return { kind: 'manual' };
  }
}

/** The columns of a job row its schedule is made of (a stored row, or one about to be inserted). */
export type JobScheduleColumns = Pick<Job, 'scheduleKind' | 'cronExpression' | 'timezone' | 'intervalSeconds' | 'runAt' | 'startAt' | 'endAt' | 'staggerSeconds' | 'id' | 'createdAt'>;

/** The Prisma `select` of JobScheduleColumns: what a read needs to walk a job's schedule (jobScheduleOf). */
export const JOB_SCHEDULE_SELECT = {
  id: true,
  scheduleKind: true,
  cronExpression: true,
  timezone: true,
  intervalSeconds: true,
  runAt: true,
  startAt: true,
  endAt: true,
  staggerSeconds: true,
  createdAt: true,
} as const satisfies Record<keyof JobScheduleColumns, true>;

/** lib/schedule's JobSchedule of a job row. */
export function jobScheduleOf(job: JobScheduleColumns): JobSchedule {
  return {
    spec: scheduleSpecOf(job),
    startAt: job.startAt,
    endAt: job.endAt,
    staggerSeconds: job.staggerSeconds,
    jobId: job.id,
    createdAt: job.createdAt,
  };
}

/**
 * A job's next `count` fires as due instants (slot + stagger, ISO-8601 UTC), the instants the tick fires at
 * (README "Window and stagger"): `first`, then the schedule's slots due after it (lib/schedule dueTimesAfter),
 * as the overview's Next 24 hours lists them (lib/stats/upcoming-fires.ts). `first` is the job's next fire
 * (nextFireOf, docs/on-time.md "Next fire"), or for a job that does not fire (paused, dead letter, deleted) the
 * next_run_at a resume or restore would store (lib/jobs/job-input.ts computeNextRunAt); null: none (manual,
 * exhausted). A job that is not active fires only the slot it has a run created ahead for, so only that one is
 * listed when `onlyFirst`. An overdue `first` (the tick was down) is listed once, as due now, then the slots due
 * after `now`: the slots between are the misfire policy's to fire or skip, not coming fires (the overview's
 * rule, lib/stats/upcoming-fires.ts).
 */
export function nextFireTimesOf(job: Job, first: Date | null, count = 5, onlyFirst = false, now?: Date): string[] {
  if (!first) return [];
  const out = [first.toISOString()];
  if (onlyFirst) return out;
  try {
    for (const t of dueTimesAfter(jobScheduleOf(job), now && now > first ? now : first)) {
      if (out.length >= count) break;
      out.push(t.toISOString());
    }
  } catch {
    /* a schedule stored before a zone disappeared from ICU: show what is known */
  }
  return out;
}

export function policyView(job: Job): PolicyView {
  return {
    timeoutSeconds: job.timeoutSeconds,
    maxRetries: job.maxRetries,
    backoff: {
      baseSeconds: job.backoffBaseSeconds,
      factor: job.backoffFactor,
      maxSeconds: job.backoffMaxSeconds,
      jitter: job.backoffJitter,
    },
    blockStrategy: job.blockStrategy,
    misfirePolicy: job.misfirePolicy,
    misfireMaxCatchup: job.misfireMaxCatchup,
    deadLetterAfter: job.deadLetterAfter,
    priority: job.priority,
  };
}

export function routingView(job: Job): RoutingView {
  return {
    nodeGroup: job.routingNodeGroup,
    labels: obj(job.routingLabels) as Record<string, string>,
    strategy: job.routingStrategy,
    nodes: job.routingNodes,
    key: job.routingKey,
  };
}

export function alarmsView(job: Job): AlarmsView {
  const a = obj(job.alarmConfig);
  return {
    onFailure: a.onFailure === true,
    onTimeout: a.onTimeout === true,
    onDeadLetter: a.onDeadLetter === true,
    onSuccess: a.onSuccess === true,
    channels: Array.isArray(a.channels) ? (a.channels as AlarmsView['channels']) : [],
  };
}

export function stepView(s: JobStep): StepView {
  return {
    key: s.key,
    name: s.name,
    handler: s.handler,
    payload: obj(s.payload),
    config: obj(s.config),
    timeoutSeconds: s.timeoutSeconds,
    maxRetries: s.maxRetries,
    resourceKey: s.resourceKey,
    position: { x: s.positionX, y: s.positionY },
  };
}

export function edgeView(e: JobEdge): EdgeView {
  return { from: e.fromStep, to: e.toStep, type: e.depType };
}

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const byEdge = (a: EdgeView, b: EdgeView) => (a.from + '\u0000' + a.to < b.from + '\u0000' + b.to ? -1 : 1);

/** The configuration snapshot stored in job_versions (steps sorted by key, edges by from/to). */
export function toJobSnapshot(job: Job, steps: JobStep[], edges: JobEdge[]): JobSnapshot {
  return {
    key: job.key,
    name: job.name,
    description: job.description,
    status: job.status,
    schedule: scheduleView(job),
    startAt: iso(job.startAt),
    endAt: iso(job.endAt),
    staggerSeconds: job.staggerSeconds,
    payload: obj(job.payload),
    policy: policyView(job),
    routing: routingView(job),
    alarms: alarmsView(job),
    steps: steps.map(stepView).sort(byKey),
    edges: edges.map(edgeView).sort(byEdge),
  };
}

/**
 * Why a job's schedule creates no run, or null while it does: `deleted` (in the recycle bin: the tick skips deleted
 * jobs until one is restored, lib/jobs/delete-job.ts), else `paused` or `dead_letter` (until it is resumed). A
 * deleted job's status is kept for its restore, so `deleted` comes first.
 */
export function notFiringReason(job: { status: JobSnapshot['status']; deletedAt: Date | string | null }): 'deleted' | 'paused' | 'dead_letter' | null {
  if (job.deletedAt) return 'deleted';
  return job.status === 'active' ? null : job.status;
}

/**
 * The dead-letter notice of a job the system paused (status dead_letter): why, in words. No count
 * of its own: the live counter is reset by a run marked success since (docs/recovery.md "Mark
 * success") while the job stays dead-lettered, and the policy's limit may have been edited since;
 * the job's last error, written when it moved, holds the count then and the error of the run that
 * moved it ("dead letter after N failed runs in a row; last error: …", lib/engine/sql/run-outcome.ts).
 */
export function deadLetterNote(job: { lastError: string | null }): string {
  return `Dead letter: the system paused this job${job.lastError ? ` (${job.lastError})` : ' when its failed runs in a row reached its limit'}. Resume clears it.`;
}

/**
 * The next fire of a job (docs/on-time.md "Next fire"): the one rule behind every "next fire" the console and
 * the REST API show (jobs list, job page, the overview's Next 24 hours). The tick creates a slot's run a few
 * seconds ahead and moves next_run_at on to the slot after in the same transaction, so for those seconds
 * next_run_at is not the next fire: the run created ahead is. Hence, in order:
 * - a deleted job: none (its ahead runs were cancelled by the delete; the tick skips it);
 * - `aheadSlot`, the due instant of a run created ahead of a slot still to come (lib/engine/sql/ahead-runs.ts
 *   selectAheadSlots), whatever the status: it fires although a `once` job was paused by the system when its slot
 *   was fired ahead, and a dead-letter job keeps it (a pause, edit or delete by an operator cancels it instead);
 * - an active job: next_run_at (overdue when a tick runs late: shown as it is);
 * - otherwise (paused, dead letter): none; its stored next_run_at is not a coming fire.
 */
export function nextFireOf(
  job: { status: JobSnapshot['status']; deletedAt: Date | string | null; nextRunAt: Date | null },
  aheadSlot: Date | null | undefined,
): Date | null {
  if (job.deletedAt) return null;
  if (aheadSlot) return aheadSlot;
  return job.status === 'active' ? job.nextRunAt : null;
}

/**
 * What a job view shows beside its row that lives in runs: `aheadSlot`, the due instant of its run created ahead of
 * a slot still to come (lib/engine/sql/ahead-runs.ts selectAheadSlots; null when none or when the caller just
 * cancelled such runs), and `lastRun`, its last run with that run's own status (lib/engine/sql/last-runs.ts
 * selectLastRuns; null when it never ran or the run is gone).
 */
export type JobLive = { aheadSlot: Date | null; lastRun: LastRun | null };

function runtimeFields(job: Job, live: JobLive) {
  const { aheadSlot, lastRun } = live;
  return {
    id: job.id,
    version: job.version,
    timezone: job.timezone,
    // A deleted job never fires: the next_run_at its row keeps is no coming fire (a restore computes a new one).
    nextRunAt: notFiringReason(job) === 'deleted' ? null : iso(job.nextRunAt),
    nextFireAt: iso(nextFireOf(job, aheadSlot)),
    // status and time of one run: the last run's own (a run gone from history leaves only the time jobs keeps)
    lastRunId: lastRun?.id ?? null,
    lastRunAt: iso(lastRun?.createdAt ?? job.lastRunAt),
    lastRunStatus: lastRun?.status ?? null,
    lastError: job.lastError,
    consecutiveFailures: job.consecutiveFailures,
    totalRuns: job.totalRuns,
    successRuns: job.successRuns,
    failedRuns: job.failedRuns,
    createdBy: job.createdBy,
    updatedBy: job.updatedBy,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
    deletedAt: iso(job.deletedAt),
    deletedBy: job.deletedBy,
  };
}

/**
 * The REST/console view of a job (docs/design.md §5). `live` (JobLive): its run created ahead of a slot still to come,
 * for `nextFireAt` (nextFireOf; docs/on-time.md "Next fire"; left out by the answers of a pause, edit or delete,
 * which cancel such a run first), and its last run, for `lastRunId` / `lastRunAt` / `lastRunStatus`.
 */
export function toJobView(job: Job, steps: JobStep[], edges: JobEdge[], live: JobLive): JobView {
  return { ...runtimeFields(job, live), ...toJobSnapshot(job, steps, edges) };
}

/** A jobs-list row. `steps` only needs key + handler; `live` as for toJobView. */
export function toJobListItem(job: Job, steps: Pick<JobStep, 'key' | 'handler'>[], live: JobLive): JobListItem {
  const { steps: _s, edges: _e, payload: _p, ...snap } = toJobSnapshot(job, [], []);
  return { ...runtimeFields(job, live), ...snap, handlers: [...new Set(steps.map((s) => s.handler))].sort(), stepCount: steps.length };
}
