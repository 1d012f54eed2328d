import type { Db } from '../db.ts';
import { alarmEnabled, parseAlarmConfig, type AlarmType } from './config.ts';
import { loadJobAlarmConfig, raiseAlarm, type RaisedAlarm } from './raise-alarm.ts';

/** The parts of a finished run this hook needs (runs row, camelCase). */
export interface FinishedRunLike {
  id: string;
  jobId: string;
  /** final run status: success | failed | timeout | cancelled | skipped */
  status: string;
  error?: string | null;
  jobKey?: string | null;
  scheduledFor?: Date | null;
  durationMs?: number | null;
}

/** The parts of the job this hook needs; pass null and it is read (one indexed SELECT). */
export interface AlarmJobLike {
  id: string;
  key: string;
  /** jobs.alarm_config as stored */
  alarmConfig: unknown;
}

/** Which alarm type a final run status raises: failed -> failure, timeout -> timeout, success -> success; others none. */
export function alarmTypeForRunStatus(status: string): AlarmType | null {
  if (status === 'failed') return 'failure';
  if (status === 'timeout') return 'timeout';
  if (status === 'success') return 'success';
  return null;
}

/**
 * Run-level alarm decision for one finished run. Called by the alarm dispatcher's finished-run
 * scan (scan-finished-runs.ts, exactly once per run); safe inside any transaction. Decides
 * from the job's alarm_config (onFailure / onTimeout / onSuccess + channels) and raises via
 * raiseAlarm (which collapses repeats). Cancelled and skipped runs raise nothing; dead_letter
 * is not raised here: the engine's own dead-letter log row is fanned out by the dispatcher
 * (lib/alarms/dispatch-alarms.ts). A purged/missing job raises nothing.
 *
 * @param job the job row if the caller has it, else null (loaded by id).
 * @param now the instant the alarm is raised (created_at / due time / collapse window).
 */
export async function alarmsForFinishedRun(db: Db, run: FinishedRunLike, job: AlarmJobLike | null, now: Date = new Date()): Promise<RaisedAlarm[]> {
  const type = alarmTypeForRunStatus(run.status);
  if (!type) return [];
  const loaded = job ? { key: job.key, config: parseAlarmConfig(job.alarmConfig) } : await loadJobAlarmConfig(db, run.jobId);
  if (!loaded || !alarmEnabled(loaded.config, type) || loaded.config.channels.length === 0) return [];
  const verb = type === 'success' ? 'succeeded' : type === 'timeout' ? 'timed out' : 'failed';
  return raiseAlarm(
    db,
    {
      jobId: run.jobId,
      runId: run.id,
      type,
      level: type === 'success' ? 'info' : 'error',
      channels: loaded.config.channels,
      content: {
        jobKey: loaded.key,
        runId: run.id,
        status: run.status,
        ...(run.error ? { error: run.error } : {}),
        ...(run.scheduledFor ? { scheduledFor: run.scheduledFor.toISOString() } : {}),
        ...(run.durationMs != null ? { durationMs: run.durationMs } : {}),
        message: `job ${loaded.key}: run ${run.id} ${verb}${run.error ? `: ${run.error}` : ''}`,
      },
    },
    now,
  );
}
