import { directSqlPool, type PrismaClient, type SqlPool } from '../db.ts';
import { withDeadlockRetry } from './pg.ts';
import { insertRuns, type InsertedRun, type NewRun } from './sql/insert-runs.ts';

/** Runs per statement: a bound on one statement's size, far above what waits in practice. */
const MAX_BATCH = 200;

interface Waiting {
  run: NewRun;
  job: string;
  resolve: (run: InsertedRun | null) => void;
  reject: (error: unknown) => void;
}

interface Queue {
  waiting: Waiting[];
  /**
   * A statement of this client is in flight. One at a time: the triggers that arrive meanwhile
   * go together in the next statement, one durable commit for all of them. A second statement in
   * flight would split them into more, smaller statements (each paying the statement's fixed
   * cost and its own commit: a NOTIFY makes commits take turns anyway), which measured slower on
   * 2 cores (bench/all.ts enqueue stage).
   */
  busy: boolean;
  /** a start of the waiting triggers is scheduled for the next turn of the event loop */
  scheduled: boolean;
}

const queues = new WeakMap<PrismaClient | SqlPool, Queue>();

/**
 * Inserts the run of a trigger whose job is idle (has steps, no active run), in one statement
 * shared with the other such triggers of this client (group commit). A trigger goes at once when
 * no statement of the client is in flight; otherwise it waits and goes with the others. When a statement ends, the next one starts on the
 * next turn of the event loop, so that the triggers its callers send as soon as they are answered
 * join the ones already waiting instead of following them in a statement (and a commit) of their
 * own. The statement (insert-runs.ts `lockedIdle`) locks each job and inserts its run only when
 * the job is idle in the row version it locked; the block strategy has nothing to decide then.
 * It runs on the client's own connections without Prisma's query layer when the client has one
 * (lib/db.ts directSqlPool).
 *
 * Two runs of one job never share a statement: one snapshot could not see the other's run, so
 * the second waits for the next statement, which sees the first run and leaves it to the
 * caller. So the triggers of one job keep their order.
 * @param run the run as insert-runs takes it; `run.at` is its clock (created_at)
 * @returns the inserted run, or null when it was not inserted here (job busy, deleted, without
 *   steps, changed concurrently, or the shared statement failed): the caller then takes the
 *   transaction path (trigger-run.ts), which applies the block strategy and reports any error
 *   for this run alone. A statement with this run alone rejects with its error.
 */
export function insertIdleRun(db: PrismaClient | SqlPool, run: NewRun): Promise<InsertedRun | null> {
  let queue = queues.get(db);
  if (!queue) {
    queue = { waiting: [], busy: false, scheduled: false };
    queues.set(db, queue);
  }
  const q = queue;
  return new Promise((resolve, reject) => {
    q.waiting.push({ run, job: run.jobId.toLowerCase(), resolve, reject });
    if (!q.scheduled) pump(db, q);
  });
}

/** Starts the next statement unless one is in flight: the waiting runs, one per job. */
function pump(db: PrismaClient | SqlPool, q: Queue): void {
  if (q.busy || q.waiting.length === 0) return;
  const batch: Waiting[] = [];
  const later: Waiting[] = [];
  const jobs = new Set<string>();
  for (const w of q.waiting) {
    if (batch.length < MAX_BATCH && !jobs.has(w.job)) {
      jobs.add(w.job);
      batch.push(w);
    } else {
      later.push(w);
    }
  }
  q.waiting = later;
  q.busy = true;
  void send(db, batch).finally(() => {
    q.busy = false;
    if (q.scheduled) return;
    q.scheduled = true;
    setImmediate(() => {
      q.scheduled = false;
      pump(db, q);
    });
  });
}

async function send(db: PrismaClient | SqlPool, batch: Waiting[]): Promise<void> {
  const client = directSqlPool(db) ?? db;
  try {
    const rows = await withDeadlockRetry(() => insertRuns(client, batch.map((w) => w.run), new Date(), { lockedIdle: true }));
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const w of batch) w.resolve(byId.get(w.run.id.toLowerCase()) ?? null);
  } catch (error) {
    if (batch.length === 1) batch[0]!.reject(error);
    else for (const w of batch) w.resolve(null);
  }
}
