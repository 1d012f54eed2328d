import { inTransaction, type Db } from '../db.ts';
import { alarmsForFinishedRun, alarmTypeForRunStatus } from './alarms-for-finished-run.ts';
import { alarmConfigAtSql, alarmEnabled, alarmSettings, parseAlarmConfig } from './config.ts';

/** settings key of the scan cursor: `{ finishedAt: ISO instant, id: run uuid }` — the last run considered. */
export const RUN_SCAN_CURSOR_KEY = 'alarms.finished_runs_cursor';

/**
 * How far behind `now` the scan stays (TICKFLOW_ALARM_RUN_LAG_SECONDS, default 45 s). A run's
 * finished_at is the finalising worker's `now`, taken before its transaction commits; every
 * engine transaction is bounded (30 s timeout), so once finished_at is older than the lag the
 * run has committed (or rolled back) and the cursor can safely move past it. The price is that
 * run alarms are raised up to ~lag + dispatch interval after the run ends. Workers' clocks are
 * assumed to agree within a few seconds (NTP).
 * @throws ConfigError for a malformed value (config.ts alarmSettings)
 */
export function runScanLagSeconds(): number {
  return alarmSettings().runLagSeconds;
}

export interface RunScanResult {
  /** runs the cursor moved past */
  scanned: number;
  /** alarm rows written (inserted or collapsed) */
  raised: number;
  /** a full batch: call again */
  more: boolean;
  /** false when another dispatcher held the cursor (nothing done) */
  ran: boolean;
}

type Row = {
  id: string;
  job_id: string;
  status: string;
  error: string | null;
  finished_at: Date;
  scheduled_for: Date;
  duration_ms: number | null;
  job_uuid: string | null;
  job_key: string | null;
  alarm_config: unknown;
};

/**
 * Run-level alarms (failure / timeout / success per the job's alarm settings), raised by the alarm
 * dispatcher rather than inside run finalisation — the engine's finalise statement stays lean and
 * alarm trouble can never fail a task completion.
 *
 * The settings are those in force when the run ended (config.ts alarmConfigAtSql), not those at the
 * scan, up to the lag later: alarms switched on after a failure do not raise it, and switched off
 * after it do not drop it.
 *
 * Exactly once per run: the cursor row in `settings` is locked (FOR UPDATE SKIP LOCKED — a second
 * dispatcher skips the pass instead of waiting) and advanced in the same transaction that raises
 * the batch's alarms, so a crash repeats nothing and loses nothing. The first pass ever starts one
 * hour back (no flood of history on a new install).
 * Index: runs_finished_idx (finished_at, id) WHERE finished_at IS NOT NULL (migration
 * 20261129600000), a range read past the cursor; jobs primary key for the config.
 * @param now injected clock; runs with finished_at <= now - lag are considered.
 */
export async function scanFinishedRuns(db: Db, p: { limit?: number; lagSeconds?: number } = {}, now: Date = new Date()): Promise<RunScanResult> {
  const limit = p.limit ?? 500;
  const upTo = new Date(now.getTime() - (p.lagSeconds ?? runScanLagSeconds()) * 1000);
  return inTransaction(db, async (tx) => {
    await tx.$executeRawUnsafe(
      `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2::jsonb, $3::timestamptz) ON CONFLICT (key) DO NOTHING`,
      RUN_SCAN_CURSOR_KEY, JSON.stringify({ finishedAt: new Date(upTo.getTime() - 3_600_000).toISOString(), id: '00000000-0000-0000-0000-000000000000' }), now,
    );
    const cur = await tx.$queryRawUnsafe<{ value: { finishedAt: string; id: string } }[]>(
      `SELECT value FROM settings WHERE key = $1 FOR UPDATE SKIP LOCKED`,
      RUN_SCAN_CURSOR_KEY,
    );
    if (!cur[0]) return { scanned: 0, raised: 0, more: false, ran: false };
    const cursor = cur[0].value;
    const rows = await tx.$queryRawUnsafe<Row[]>(
      `SELECT r.id::text, r.job_id, r.status::text AS status, r.error, r.finished_at, r.scheduled_for, r.duration_ms,
              j.id::text AS job_uuid, j.key AS job_key, ${alarmConfigAtSql('j', 'r.finished_at')} AS alarm_config
         FROM runs r
         LEFT JOIN jobs j
           ON j.id = CASE WHEN r.job_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN r.job_id::uuid END
        WHERE r.finished_at IS NOT NULL
          AND (r.finished_at, r.id) > ($1::timestamptz, $2::uuid)
          AND r.finished_at <= $3::timestamptz
        ORDER BY r.finished_at, r.id
        LIMIT $4::int`,
      new Date(cursor.finishedAt), cursor.id, upTo, limit,
    );
    let raised = 0;
    for (const r of rows) {
      const type = alarmTypeForRunStatus(r.status);
      if (!type || !r.job_uuid || !r.job_key) continue;
      const config = parseAlarmConfig(r.alarm_config);
      if (!alarmEnabled(config, type) || config.channels.length === 0) continue;
      const out = await alarmsForFinishedRun(
        tx,
        { id: r.id, jobId: r.job_id, status: r.status, error: r.error, scheduledFor: r.scheduled_for, durationMs: r.duration_ms },
        { id: r.job_uuid, key: r.job_key, alarmConfig: r.alarm_config },
        now,
      );
      raised += out.length;
    }
    const last = rows.at(-1);
    if (last) {
      await tx.$executeRawUnsafe(
        `UPDATE settings SET value = $2::jsonb, updated_at = $3::timestamptz WHERE key = $1`,
        RUN_SCAN_CURSOR_KEY, JSON.stringify({ finishedAt: last.finished_at.toISOString(), id: last.id }), now,
      );
    }
    return { scanned: rows.length, raised, more: rows.length === limit, ran: true };
  });
}
