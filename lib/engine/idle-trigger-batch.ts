import type { PrismaClient } from '../db.ts';
import { withDeadlockRetry } from './pg.ts';
import { insertRuns, type InsertedRun, type NewRun } from './sql/insert-runs.ts';

/** Runs per statement: a bound on one statement's size, far above what waits in practice. */
const MAX_BATCH = 200;

interface Waiting {
  run: NewRun;
  resolve: (run: InsertedRun | null) => void;
  reject: (error: unknown) => void;
}

interface Queue {
  waiting: Waiting[];
  busy: boolean;
}

const queues = new WeakMap<PrismaClient, Queue>();

/**
 * Inserts the run of a trigger whose job is idle (has steps, no active run), in one statement
 * shared with the other such triggers of this client that are waiting (group commit): the first
 * goes at once, the ones that arrive while a statement is in flight go together in the next.
 * The statement (insert-runs.ts `lockedIdle`) locks each job and inserts its run only when the
 * job is idle in the row version it locked; the block strategy has nothing to decide then.
 *
 * Two runs of one job never share a statement: one snapshot could not see the other's run, so
 * the second waits for the next statement, which sees the first and leaves it to the caller.
 * @param run the run as insert-runs takes it; `run.at` is its clock (created_at)
 * @returns the inserted run, or null when it was not inserted here (job busy, deleted, without
 *   steps, changed concurrently, or the shared statement failed): the caller then takes the
 *   transaction path (trigger-run.ts), which applies the block strategy and reports any error
 *   for this run alone. A statement with this run alone rejects with its error.
 */
export function insertIdleRun(db: PrismaClient, run: NewRun): Promise<InsertedRun | null> {
  let queue = queues.get(db);
  if (!queue) {
    queue = { waiting: [], busy: false };
    queues.set(db, queue);
  }
  const q = queue;
  return new Promise((resolve, reject) => {
    q.waiting.push({ run, resolve, reject });
    if (!q.busy) void drain(db, q);
  });
}

async function drain(db: PrismaClient, q: Queue): Promise<void> {
  q.busy = true;
  try {
    while (q.waiting.length > 0) {
      const batch: Waiting[] = [];
      const later: Waiting[] = [];
      const jobs = new Set<string>();
      for (const w of q.waiting) {
        const job = w.run.jobId.toLowerCase();
        if (batch.length < MAX_BATCH && !jobs.has(job)) {
          jobs.add(job);
          batch.push(w);
        } else {
          later.push(w);
        }
      }
      q.waiting = later;
      const now = new Date();
      try {
        const rows = await withDeadlockRetry(() => insertRuns(db, batch.map((w) => w.run), now, { lockedIdle: true }));
        const byId = new Map(rows.map((r) => [r.id, r]));
        for (const w of batch) w.resolve(byId.get(w.run.id) ?? null);
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        else for (const w of batch) w.resolve(null);
      }
    }
  } finally {
    q.busy = false;
  }
}
