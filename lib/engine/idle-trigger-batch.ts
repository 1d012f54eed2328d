import { directSqlPool, type PrismaClient, type SqlPool } from '../db.ts';
import { withDeadlockRetry } from './pg.ts';
import { insertRuns, type InsertedRun, type NewRun } from './sql/insert-runs.ts';

/** Runs per statement: a bound on one statement's size, far above what waits in practice. */
const MAX_BATCH = 200;

/**
 * Statements of one client in flight at once. One: the triggers that arrive meanwhile then go
 * together in the next statement, one durable commit for all of them. A second statement in
 * flight would split them into more, smaller statements (each paying the statement's fixed cost
 * and its own commit: a NOTIFY makes commits take turns anyway), which measured slower on 2 cores
 * (bench/all.ts enqueue stage).
 */
const MAX_IN_FLIGHT = 1;

interface Waiting {
  run: NewRun;
  job: string;
  resolve: (run: InsertedRun | null) => void;
  reject: (error: unknown) => void;
}

interface Queue {
  waiting: Waiting[];
  inFlight: number;
  /** jobs with a run in a statement in flight */
  jobs: Set<string>;
  /** a start of the waiting triggers is scheduled for the next turn of the event loop */
  scheduled: boolean;
}

const queues = new WeakMap<PrismaClient | SqlPool, Queue>();

/**
 * Inserts the run of a trigger whose job is idle (has steps, no active run), in one statement
 * shared with the other such triggers of this client (group commit). A trigger goes at once when
 * nothing of the client waits and fewer than MAX_IN_FLIGHT of its statements are in flight;
 * otherwise it waits and goes with the others. When a statement ends, the next one starts on the
 * next turn of the event loop, so that the triggers its callers send as soon as they are answered
 * join the ones already waiting instead of following them in a statement (and a commit) of their
 * own. The statement (insert-runs.ts `lockedIdle`) locks each job and inserts its run only when
 * the job is idle in the row version it locked; the block strategy has nothing to decide then.
 * It runs on the client's own connections without Prisma's query layer when the client has one
 * (lib/db.ts directSqlPool).
 *
 * Two runs of one job are never in flight together: one snapshot could not see the other's
 * run, so the second waits until the statement of the first is over, and the statement it then
 * joins sees the first run and leaves it to the caller. So the triggers of one job keep their
 * order.
 * @param run the run as insert-runs takes it; `run.at` is its clock (created_at)
 * @returns the inserted run, or null when it was not inserted here (job busy, deleted, without
 *   steps, changed concurrently, or the shared statement failed): the caller then takes the
 *   transaction path (trigger-run.ts), which applies the block strategy and reports any error
 *   for this run alone. A statement with this run alone rejects with its error.
 */
export function insertIdleRun(db: PrismaClient | SqlPool, run: NewRun): Promise<InsertedRun | null> {
  let queue = queues.get(db);
  if (!queue) {
    queue = { waiting: [], inFlight: 0, jobs: new Set(), scheduled: false };
    queues.set(db, queue);
  }
  const q = queue;
  return new Promise((resolve, reject) => {
    q.waiting.push({ run, job: run.jobId.toLowerCase(), resolve, reject });
    if (!q.scheduled) pump(db, q);
  });
}

/** Starts statements while a slot is free and some waiting run's job is not in flight. */
function pump(db: PrismaClient | SqlPool, q: Queue): void {
  while (q.inFlight < MAX_IN_FLIGHT && q.waiting.length > 0) {
    const batch: Waiting[] = [];
    const later: Waiting[] = [];
    for (const w of q.waiting) {
      if (batch.length < MAX_BATCH && !q.jobs.has(w.job)) {
        q.jobs.add(w.job);
        batch.push(w);
      } else {
        later.push(w);
      }
    }
    q.waiting = later;
    if (batch.length === 0) return;
    q.inFlight++;
    void send(db, batch).finally(() => {
      q.inFlight--;
      for (const w of batch) q.jobs.delete(w.job);
      if (q.scheduled) return;
      q.scheduled = true;
      setImmediate(() => {
        q.scheduled = false;
        pump(db, q);
      });
    });
  }
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
