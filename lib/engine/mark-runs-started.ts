import type { EngineDb } from '../db.ts';
import { withDeadlockRetry, isTransactionClient } from './pg.ts';
import { markRunsStartedSql, type RunStart } from './sql/mark-runs-started.ts';

/**
 * Marks one-step runs running whose attempt has been running a while (docs/engine.md "Run
 * start"); a run no longer pending is left as it is. One statement for all of them.
 * @param runs each run's keys and its attempt's start (UTC)
 * @param now the clock: updated_at
 * @returns how many runs moved to running
 */
export function markRunsStarted(db: EngineDb, runs: readonly RunStart[], now: Date = new Date()): Promise<number> {
  return withDeadlockRetry(() => markRunsStartedSql(db, runs, now), isTransactionClient(db) ? 1 : 4);
}

export type { RunStart };
