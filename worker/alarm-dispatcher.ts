/**
 * Alarm dispatcher service, one pass = two steps:
 * 1. scan runs finished since the last pass and raise their failure / timeout / success alarms
 *    per job config (lib/alarms/scan-finished-runs.ts, exactly once per run via a cursor);
 * 2. deliver pending `alarms` rows (webhook / email / log) with retries and backoff, fanning out
 *    the engine's dead-letter and node-offline rows (lib/alarms/dispatch-alarms.ts).
 * Safe on every worker at once: the cursor and the claim are both SKIP LOCKED.
 * Tests call `runOnce(now)` directly.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../lib/db.ts';
import { dispatchAlarms, type DispatchResult } from '../lib/alarms/dispatch-alarms.ts';
import { scanFinishedRuns, type RunScanResult } from '../lib/alarms/scan-finished-runs.ts';
import { closeAlarmTransports } from '../lib/alarms/deliver.ts';
import type { DbHealth } from './db-health.ts';
import { ServiceLoop } from './loop.ts';

export interface AlarmDispatcherConfig {
  /** pause between passes when there was nothing (or less than a batch) to do, ms */
  intervalMs: number;
  /** alarms claimed and delivered concurrently per pass */
  limit: number;
}

/**
 * The dispatcher's settings from the worker's configuration (worker/config.ts reads and checks
 * TICKFLOW_ALARM_DISPATCH_MS, default 15000: run alarms trail the clock by 45 s anyway, and
 * TICKFLOW_ALARM_BATCH, default 20, like every other worker variable).
 */
export function alarmDispatcherConfig(config: { alarmDispatchMs?: number; alarmBatch?: number }): AlarmDispatcherConfig {
  return { intervalMs: config.alarmDispatchMs ?? 15_000, limit: config.alarmBatch ?? 20 };
}

export class AlarmDispatcher {
  private readonly loop: ServiceLoop;

  constructor(
    readonly config: AlarmDispatcherConfig,
    private readonly deps: { db: PrismaClient; clock: () => Date; logger: Logger; health?: DbHealth; onPass?: (result: DispatchResult) => void },
  ) {
    this.loop = new ServiceLoop(
      'alarm-dispatcher',
      config.intervalMs,
      async () => {
        const r = await this.runOnce(this.deps.clock());
        return r.claimed >= this.config.limit || r.runs.more;
      },
      deps.logger,
      { health: deps.health },
    );
  }

  /** One pass: raise alarms for newly finished runs, then claim due alarms, deliver, record outcomes. */
  async runOnce(now: Date): Promise<DispatchResult & { runs: RunScanResult }> {
    const result = await runOnce(this.deps.db, now, this.config.limit, this.deps.logger);
    this.deps.onPass?.(result);
    return result;
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    closeAlarmTransports();
  }
}

/** One dispatcher pass with the given client, outside any loop (tests, scripts): scan finished runs, then deliver. */
export async function runOnce(db: PrismaClient, now: Date = new Date(), limit = 20, logger?: Logger): Promise<DispatchResult & { runs: RunScanResult }> {
  const runs = await scanFinishedRuns(db, {}, now);
  const r = await dispatchAlarms(db, { limit }, now);
  if ((r.claimed > 0 || runs.raised > 0) && logger) logger.debug({ ...r, runs }, 'alarm dispatcher pass');
  return { ...r, runs };
}
