import type { Db } from '../db.ts';
import { loadJobAlarmConfig, raiseAlarm } from '../alarms/raise-alarm.ts';
import { rebuildStats, type RebuildResult } from '../stats/rebuild-stats.ts';
import { addDays, statDateOf } from '../stats/dates.ts';
import { getStatsTimeZone } from '../stats/current-zone.ts';

/**
 * Stats sanity check (system job `system.stats-check`): recomputes the last `days` days
 * (default 2: today and yesterday in the stats time zone) from detail rows and compares with
 * handler_stats_daily, without changing anything. On drift it raises a `failure` alarm on the
 * system job (its configured channels, plus the log channel) naming the drifting
 * (date, handler, fields), so an operator can run `npm run stats:rebuild -- --apply`.
 * @param jobId the system job's id (for the alarm), null outside a run
 * @returns the comparison; `drift` empty when all is well.
 */
export async function checkStats(db: Db, p: { days?: number; jobId?: string | null; runId?: string | null } = {}, now: Date = new Date()): Promise<RebuildResult> {
  const days = Math.max(1, p.days ?? 2);
  const timeZone = await getStatsTimeZone(db);
  const to = statDateOf(now, timeZone);
  const r = await rebuildStats(db, { from: addDays(to, -(days - 1)), to, apply: false, timeZone }, now);
  if (r.drift.length) {
    const job = p.jobId ? await loadJobAlarmConfig(db, p.jobId) : null;
    const channels = [{ type: 'log' as const, target: '' }, ...(job?.config.channels ?? []).filter((c) => c.type !== 'log')];
    const summary = r.drift.slice(0, 20).map((d) => `${d.date} ${d.handler}: ${d.fields.join(', ')}`);
    await raiseAlarm(
      db,
      {
        jobId: p.jobId ?? null,
        runId: p.runId ?? null,
        type: 'failure',
        level: 'error',
        channels,
        content: {
          ...(job ? { jobKey: job.key } : {}),
          check: 'stats',
          from: r.from,
          to: r.to,
          drift: summary,
          message: `handler_stats_daily drifted from detail rows on ${r.drift.length} (date, handler) pair(s) in ${r.from}..${r.to}; run npm run stats:rebuild -- --apply`,
        },
      },
      now,
    );
  }
  return r;
}
