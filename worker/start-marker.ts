/**
 * Start marker: records the real start of tasks the worker held before starting them
 * (ClaimedTask.held: claimed ahead, or prefetched beyond the free slots) once their attempt has
 * lasted RUN_START_DELAY_MS (worker/runner.ts recordStart; lib/engine markHeldTasksStarted;
 * docs/on-time.md "Prefetch"). Until it is recorded,
 * the reaper hands such a task back unstarted if this worker dies, so no attempt that never ran
 * is failed; once it is, the task is an attempt like any other. Starts that come in the same
 * turn of the event loop go in one statement.
 */
import type { Logger } from 'pino';
import type { EngineDb } from '../lib/db.ts';
import { markHeldTasksStarted } from '../lib/engine/index.ts';
import { TurnBatch } from './turn-batch.ts';

/** Most starts recorded by one statement. */
const MAX_BATCH = 500;

/** What the statement found: `started` (recorded), `lost` (the task is no longer this worker's), or `error` (not recorded). */
export type StartMark = 'started' | 'lost' | 'error';

interface Pending {
  task: { id: string; attempt: number; scheduledFor: Date };
  startedAt: Date;
  resolve: (mark: StartMark) => void;
}

export class StartMarker {
  private readonly batch: TurnBatch<Pending>;

  /** @param deps.nodeId this worker's node id, read at each statement (known once the node has registered) */
  constructor(private readonly deps: { db: EngineDb; nodeId: () => string; clock: () => Date; logger: Logger }) {
    this.batch = new TurnBatch(MAX_BATCH, (pending) => this.send(pending));
  }

  /**
   * Records that `task` started at `startedAt` (the worker's clock, UTC); resolves once the
   * statement answered. Never rejects: a failed statement resolves `error` for its tasks.
   */
  mark(task: Pending['task'], startedAt: Date): Promise<StartMark> {
    return new Promise((resolve) => this.batch.add({ task, startedAt, resolve }));
  }

  private async send(batch: Pending[]): Promise<void> {
    try {
      const marked = new Set(await markHeldTasksStarted(this.deps.db, {
        nodeId: this.deps.nodeId(),
        tasks: batch.map((p) => ({ id: p.task.id, attempt: p.task.attempt, scheduledFor: p.task.scheduledFor, startedAt: p.startedAt })),
      }, this.deps.clock()));
      for (const p of batch) p.resolve(marked.has(p.task.id) ? 'started' : 'lost');
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error)?.message, tasks: batch.length }, 'could not record the start of held tasks; if this worker dies before they end, they are handed back unstarted');
      for (const p of batch) p.resolve('error');
    }
  }
}
