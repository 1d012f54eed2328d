/**
 * Run starter: marks a one-step run `running` once its attempt has lasted RUN_START_DELAY_MS.
 * The claim does not mark such runs (lib/engine/sql/claim-tasks.ts), so a short attempt writes
 * its run row once, at its end; a long one shows its run running after this delay
 * (docs/engine.md "Run start"). Runs to mark that come due in the same turn of the event loop
 * go in one statement (lib/engine markRunsStarted).
 *
 * A mark that fails (database unreachable) is dropped with a warning: the run's end sets its
 * start anyway, and until then it shows `pending` while its task shows `running`.
 */
import type { Logger } from 'pino';
import type { EngineDb } from '../lib/db.ts';
import { markRunsStarted, type RunStart } from '../lib/engine/index.ts';
import { TurnBatch } from './turn-batch.ts';

/** How long a one-step run's attempt runs before the run is marked running (ms). */
export const RUN_START_DELAY_MS = 250;

/** Most runs marked by one statement. */
const MAX_BATCH = 500;

/**
 * Marks one-step runs running once their attempt has lasted RUN_START_DELAY_MS, many per
 * statement (sql/mark-runs-started.ts; docs/engine.md "Run start"). `add` never throws: a
 * statement that fails is logged and its runs dropped — their completion still ends them, with
 * the attempt's start, so only the console's "running" display is late.
 */
export class RunStarter {
  private readonly batch: TurnBatch<RunStart>;

  constructor(private readonly deps: { db: EngineDb; clock: () => Date; logger: Logger }) {
    this.batch = new TurnBatch(MAX_BATCH, (runs) => this.send(runs));
  }

  /** Queues a run to mark; sent on the next turn of the event loop with the others queued by then. */
  add(run: RunStart): void {
    this.batch.add(run);
  }

  private async send(batch: RunStart[]): Promise<void> {
    try {
      await markRunsStarted(this.deps.db, batch, this.deps.clock());
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error)?.message, runs: batch.length }, 'could not mark runs running; their end will record their start');
    }
  }
}
