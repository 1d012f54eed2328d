/**
 * System job handlers: run through the normal engine like any
 * handler, so they are visible, pausable, retried and alarmed like user jobs. Each is a thin
 * door onto lib/system-jobs; payload fields override env defaults.
 *
 * - system.retention            { olderThanDays?, batchSize?, maxBatches?, nodeOlderThanDays? } -> RetentionResult + staleNodes
 * - system.idempotency-cleanup  { olderThanHours? } -> { deleted, cutoff, expiredSessions } (also sweeps expired sessions)
 * - system.recycle-bin-purge    { olderThanDays? } -> { purged: string[] }
 * - system.stats-check          { days? } -> { from, to, drift: n } ; fails (after raising an alarm) on drift
 */
import { getDb, type Db } from '../../lib/db.ts';
import { purgeExpiredJobs } from '../../lib/jobs/purge-job.ts';
import { cleanupSessions } from '../../lib/auth/sessions.ts';
import { ensureHistoryPartitions } from '../../lib/system-jobs/history-partitions.ts';
import { purgeOldRuns } from '../../lib/system-jobs/retention.ts';
import { deleteStaleNodes } from '../../lib/engine/nodes/index.ts';
import { deleteExpiredIdempotencyKeys } from '../../lib/system-jobs/idempotency-cleanup.ts';
import { checkStats } from '../../lib/system-jobs/stats-check.ts';
import { SYSTEM_HANDLERS } from '../../lib/system-jobs/definitions.ts';
import { HandlerError, settings, type Handler } from './types.ts';

function optNum(v: unknown): number | undefined {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * Builds the system handlers on a database client (default: the process client from
 * DATABASE_URL, resolved lazily at the first call so importing this file has no side effect).
 */
export function createSystemHandlers(dbOf: () => Db = () => getDb()): Record<string, Handler> {
  return {
    [SYSTEM_HANDLERS.retention]: async (ctx) => {
      const s = settings(ctx);
      // the weeks ahead first: new runs must find their partition whatever retention does next
      const createdWeeks = (await ensureHistoryPartitions(dbOf())).map((w) => w.toISOString().slice(0, 10));
      const r = await purgeOldRuns(dbOf(), { olderThanDays: optNum(s.olderThanDays), batchSize: optNum(s.batchSize), maxBatches: optNum(s.maxBatches) });
      // worker_nodes rows of processes long gone are the same kind of leftover
      const staleNodes = await deleteStaleNodes(dbOf(), { olderThanDays: optNum(s.nodeOlderThanDays) });
      const out = { ...r, createdWeeks, staleNodes: staleNodes.length };
      ctx.log.info(out, 'retention pass');
      ctx.taskLog.info(`history partitions: created week(s) ${createdWeeks.join(', ') || 'none'}; dropped week(s) ${r.droppedWeeks.join(', ') || 'none'} (about ${r.droppedRunsEstimate} run(s))` +
        `${r.busyWeeks.length ? `; busy, left for the next pass: ${r.busyWeeks.join(', ')}` : ''}`);
      ctx.taskLog.info(`deleted ${r.runs} run(s), ${r.tasks} task(s), ${r.taskLogs} task log row(s), ${r.taskLogLines} task log line(s) older than ${r.cutoff} row by row; ${staleNodes.length} stale worker node(s)${r.more ? '; more left for the next pass' : ''}`);
      return out;
    },
    [SYSTEM_HANDLERS.idempotencyCleanup]: async (ctx) => {
      const db = dbOf();
      const keys = await deleteExpiredIdempotencyKeys(db, { olderThanHours: optNum(settings(ctx).olderThanHours) });
      // expired console sessions are the same kind of leftover: swept in the same pass
      const sessions = await cleanupSessions(db);
      return { ...keys, expiredSessions: sessions };
    },
    [SYSTEM_HANDLERS.recycleBinPurge]: async (ctx) => {
      const days = optNum(settings(ctx).olderThanDays);
      const purged = await purgeExpiredJobs(dbOf(), days ?? Number(process.env.TICKFLOW_RECYCLE_BIN_DAYS ?? 30));
      return { purged };
    },
    [SYSTEM_HANDLERS.statsCheck]: async (ctx) => {
      const db = dbOf();
      const run = await db.run.findUnique({ where: { id: ctx.runId }, select: { jobId: true } });
      const r = await checkStats(db, { days: optNum(settings(ctx).days), jobId: run?.jobId ?? null, runId: ctx.runId });
      const out = { from: r.from, to: r.to, timeZone: r.timeZone, rows: r.storedRows, drift: r.drift.length };
      if (r.drift.length) {
        throw new HandlerError(`stats drift on ${r.drift.length} (date, handler) pair(s) in ${r.from}..${r.to}: ${r.drift.slice(0, 5).map((d) => `${d.date} ${d.handler} [${d.fields.join(',')}]`).join('; ')}`, { output: out });
      }
      return out;
    },
  };
}

/** The system handlers on the process database client (register with the worker's handler registry). */
export const systemHandlers: Record<string, Handler> = createSystemHandlers();
