import type { Db } from '../db.ts';
import { BEFORE_SLOT_ERROR } from '../engine/cancel-ahead-runs.ts';
import { countNodesByStatus } from '../workers/node-status.ts';
import { getRunningNow, type RunningTask } from './running-now.ts';
import { getUpcomingFires, type UpcomingFire } from './upcoming-fires.ts';
import { purgedAmong } from '../jobs/purged-job-ids.ts';
import { countScheduleEnded } from '../jobs/schedule-ended-count.ts';
import { JOB_SCHEDULE_SELECT } from '../jobs/job-view.ts';

/** What the overview page shows at a glance (instants ISO-8601 UTC). */
export interface Overview {
  generatedAt: string;
  /**
   * not-deleted jobs by status, plus how many sit in the recycle bin. A paused job whose schedule has no fire
   * left (a `once` job that fired, a window that has ended: lib/jobs/resume-job.ts resumeRefusal) is counted in
   * `scheduleEnded`, not in `paused`, as the jobs list marks it "schedule ended": nobody paused it.
   */
  jobs: { active: number; paused: number; scheduleEnded: number; deadLetter: number; total: number; deleted: number };
  /**
   * runs whose scheduled_for is within the last 24 h, by status, without the schedule runs cancelled before
   * their slot (a look-ahead run withdrawn or cancelled by a pause or edit: without look-ahead they would never
   * have existed); `cancelledBeforeSlot` counts those, left out of `cancelled` and `total`
   */
  runs24h: { success: number; failed: number; timeout: number; cancelled: number; skipped: number; running: number; pending: number; total: number; cancelledBeforeSlot: number };
  /** success / (success + failed + timeout) over those runs, 0..1; null when none finished */
  successRate24h: number | null;
  /** worker nodes by stored status: `offline` = heartbeat lost (the reaper marked it), `stopped` = stopped cleanly */
  /** nodes by the status the Workers page shows (lib/workers/node-status.ts effectiveNodeStatus): a stale heartbeat is not online */
  workers: { online: number; draining: number; stale: number; offline: number; stopped: number };
  /** jobs the system paused after consecutive failures (newest first, at most 20) */
  deadLetterJobs: { id: string; key: string; name: string; consecutiveFailures: number; lastError: string | null; href: string }[];
  /** the latest failed / timed-out runs of the last 7 days (at most 10), linking to the run page */
  latestFailures: { id: string; jobId: string; jobKey: string; jobName: string; jobPurged: boolean; status: string; error: string | null; scheduledFor: string; finishedAt: string | null; href: string }[];
  /** tasks running now, longest first (lib/stats getRunningNow) */
  runningNow: RunningTask[];
  /** jobs firing in the next 24 h with their due instants, the first their next fire (docs/on-time.md "Next fire"; lib/stats getUpcomingFires) */
  nextFires: UpcomingFire[];
  /** pending and failed alarm deliveries (a stuck webhook shows up here) */
  alarms: { pending: number; failed24h: number };
}

/**
 * Overview numbers. Reads detail tables, but every query is bounded and indexed:
 * - jobs by status: GROUP BY over jobs (one row per job definition — small); the paused ones' schedule columns, to
 *   tell those whose schedule ended from those an operator paused (lib/jobs/schedule-ended-count.ts, which keeps
 *   each job's verdict for as long as it provably holds instead of walking every schedule on every load);
 * - runs 24 h: runs_time_idx (scheduled_for DESC, INCLUDE status) range of one day, index-only; the runs
 *   cancelled before their slot: the same range, reading only the cancelled schedule runs' rows;
 * - latest failures: the same index backwards over 7 days, LIMIT 10;
 * - workers: every worker_nodes row's status and heartbeat (one row per worker process, kept until retention); dead-letter jobs: LIMIT 20;
 * - alarms: alarms_pending_idx (partial) and a one-day created_at range;
 * - running tasks and the next 24 h of fires: lib/stats running-now.ts and upcoming-fires.ts.
 * @param now the clock for the 24 h / 7 d windows.
 */
export async function getOverview(db: Db, now: Date = new Date()): Promise<Overview> {
  const dayAgo = new Date(now.getTime() - 86_400_000);
  const weekAgo = new Date(now.getTime() - 7 * 86_400_000);
  const [jobGroups, pausedJobs, deleted, runGroups, beforeSlotRuns, nodes, deadJobs, failures, pendingAlarms, failedAlarms, runningNow, nextFires] = await Promise.all([
    db.job.groupBy({ by: ['status'], where: { deletedAt: null }, _count: { _all: true } }),
    db.job.findMany({ where: { deletedAt: null, status: 'paused', scheduleKind: { not: 'manual' } }, select: JOB_SCHEDULE_SELECT }),
    db.job.count({ where: { deletedAt: { not: null } } }),
    db.run.groupBy({ by: ['status'], where: { scheduledFor: { gte: dayAgo, lte: now } }, _count: { _all: true } }),
    db.run.count({
      where: {
        scheduledFor: { gte: dayAgo, lte: now },
        status: 'cancelled',
        trigger: 'schedule',
        OR: Object.values(BEFORE_SLOT_ERROR).map((prefix) => ({ error: { startsWith: prefix } })),
      },
    }),
    db.workerNode.findMany({ select: { status: true, lastHeartbeatAt: true } }),
    db.job.findMany({
      where: { deletedAt: null, status: 'dead_letter' },
      orderBy: { updatedAt: 'desc' },
      take: 20,
      select: { id: true, key: true, name: true, consecutiveFailures: true, lastError: true },
    }),
    db.run.findMany({
      where: { status: { in: ['failed', 'timeout'] }, scheduledFor: { gte: weekAgo, lte: now } },
      orderBy: [{ scheduledFor: 'desc' }, { id: 'desc' }],
      take: 10,
      select: { id: true, jobId: true, jobKey: true, status: true, error: true, scheduledFor: true, finishedAt: true },
    }),
    db.alarm.count({ where: { status: 'pending' } }),
    db.alarm.count({ where: { status: 'failed', updatedAt: { gte: dayAgo } } }),
    getRunningNow(db),
    getUpcomingFires(db, now),
  ]);
  // Failures are listed by job name (runs keep the key; a renamed or purged job falls back to it).
  const jobIds = [...new Set(failures.map((f) => f.jobId))];
  const named = jobIds.length ? await db.job.findMany({ where: { id: { in: jobIds } }, select: { id: true, name: true } }) : [];
  const names = new Map(named.map((x) => [x.id, x.name]));
  const purged = purgedAmong(jobIds, named);
  const j = Object.fromEntries(jobGroups.map((g) => [g.status, g._count._all])) as Record<string, number>;
  const r = Object.fromEntries(runGroups.map((g) => [g.status, g._count._all])) as Record<string, number>;
  // Runs cancelled before their slot are look-ahead's bookkeeping, not an outcome an operator acts on:
  // the slot fires again (edit, a run that came first) or was never due to run (pause, delete).
  // The two reads are not one snapshot: a run cancelled in between must not make a count negative.
  const beforeSlot = Math.min(beforeSlotRuns, r.cancelled ?? 0);
  const runs24h = {
    success: r.success ?? 0,
    failed: r.failed ?? 0,
    timeout: r.timeout ?? 0,
    cancelled: (r.cancelled ?? 0) - beforeSlot,
    skipped: r.skipped ?? 0,
    running: r.running ?? 0,
    pending: r.pending ?? 0,
    total: Object.values(r).reduce((a, b) => a + b, 0) - beforeSlot,
    cancelledBeforeSlot: beforeSlot,
  };
  // the rule of the jobs list's "schedule ended" mark and of Resume's refusal (lib/jobs/resume-job.ts)
  const scheduleEnded = countScheduleEnded(pausedJobs, now);
  const finished = runs24h.success + runs24h.failed + runs24h.timeout;
  return {
    generatedAt: now.toISOString(),
    jobs: {
      active: j.active ?? 0,
      // not one snapshot with the GROUP BY: a job resumed in between must not make a count negative
      paused: Math.max(0, (j.paused ?? 0) - scheduleEnded),
      scheduleEnded,
      deadLetter: j.dead_letter ?? 0,
      total: Object.values(j).reduce((a, b) => a + b, 0),
      deleted,
    },
    runs24h,
    successRate24h: finished > 0 ? runs24h.success / finished : null,
    workers: countNodesByStatus(nodes, now),
    deadLetterJobs: deadJobs.map((x) => ({ ...x, href: `/jobs/${x.id}` })),
    latestFailures: failures.map((f) => ({
      id: f.id,
      jobId: f.jobId,
      jobKey: f.jobKey,
      jobName: names.get(f.jobId) || f.jobKey,
      jobPurged: purged.has(f.jobId),
      status: f.status,
      error: f.error,
      scheduledFor: f.scheduledFor.toISOString(),
      finishedAt: f.finishedAt?.toISOString() ?? null,
      href: `/runs/${f.id}`,
    })),
    alarms: { pending: pendingAlarms, failed24h: failedAlarms },
    runningNow,
    nextFires,
  };
}
