/**
 * Group commit for completions: successful attempts finishing close together
 * are recorded by ONE statement and one commit (engine completeTasks ->
 * sql/complete-only-tasks.ts) instead of one commit each. A completion never
 * waits for a timer: when no batch is in flight it is sent on the next turn of
 * the event loop (with whatever else finished in that turn); while up to
 * `maxInFlight` batches are in flight, new completions queue and go together
 * as soon as one returns. So an idle worker sees no added latency and a busy
 * one sends up to `maxBatch` completions per round trip — the larger the load,
 * the larger the batch (graphile-worker's batched completions are the model).
 *
 * Isolation: when a batch statement fails (the database refused one item's
 * value, or is unreachable), each of its completions is retried alone, so one
 * bad output cannot fail the others and each caller sees its own error (the
 * runner's retry and degrade rules then apply per attempt).
 */
import type { Logger } from 'pino';
import type { EngineDb } from '../lib/db.ts';
import { completeTask, completeTasks } from '../lib/engine/index.ts';
import type { CompleteTaskInput, CompleteTaskResult } from '../lib/engine/types.ts';

interface Queued {
  input: CompleteTaskInput;
  resolve: (r: CompleteTaskResult) => void;
  reject: (e: unknown) => void;
}

export interface CompletionBatcherOptions {
  /** most completions in one statement (default 100) */
  maxBatch?: number;
  /** batches in flight at once (default 2: one being committed while the next fills) */
  maxInFlight?: number;
}

export class CompletionBatcher {
  private queue: Queued[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  /** statements sent and completions carried (diagnostics, bench) */
  readonly counters = { batches: 0, completions: 0 };

  constructor(
    private readonly deps: { db: EngineDb; clock: () => Date; logger: Logger },
    options: CompletionBatcherOptions = {},
  ) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 100);
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 2);
  }

  /**
   * Records one attempt's end; resolves with completeTask's result for it.
   * The completion time is the clock when its batch is sent (at most one
   * database round trip after the call).
   */
  complete(input: CompleteTaskInput): Promise<CompleteTaskResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.schedule();
    });
  }

  /** completions queued or in flight */
  get pending(): number {
    return this.queue.length + this.inFlight;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    // The next turn, so that attempts ending in the same turn share the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight++;
    this.counters.batches++;
    this.counters.completions += batch.length;
    try {
      let results: PromiseSettledResult<CompleteTaskResult>[] | null = null;
      try {
        results = await completeTasks(this.deps.db, batch.map((q) => q.input), this.deps.clock());
      } catch (err) {
        // The batch statement failed as a whole: nothing of it was applied.
        if (batch.length === 1) {
          batch[0]!.reject(err);
          return;
        }
        this.deps.logger.warn({ err, size: batch.length }, 'batched completion failed; completing its attempts one by one');
      }
      if (results) {
        batch.forEach((q, i) => {
          const r = results[i]!;
          if (r.status === 'fulfilled') q.resolve(r.value);
          else q.reject(r.reason);
        });
        return;
      }
      for (const q of batch) {
        try {
          q.resolve(await completeTask(this.deps.db, q.input, this.deps.clock()));
        } catch (err) {
          q.reject(err);
        }
      }
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }
}
