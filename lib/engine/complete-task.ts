import type { EngineDb, SqlClient } from '../db.ts';
import { log } from '../log.ts';
import { retryDelayMs, type BackoffConfig } from '../schedule/backoff.ts';
import { isTransactionClient, UUID_RE, withDeadlockRetry, withEngineTransaction } from './pg.ts';
import { notifyTasksReadyNow } from './notify.ts';
import { lockJobRow } from './sql/lock-job-row.ts';
import { lockRun } from './sql/lock-run.ts';
import { finishRunIfDone, settleFinalTask, type StatsCarry } from './settle.ts';
import { completeDagTasksSql, probeRunsAfterCompletion, recordSuccessStats, type DagTaskCompleted } from './sql/complete-dag-tasks.ts';
import { lockFreeRuns, lockJobsOfRuns, lockRuns, shareRuns } from './sql/lock-job-row.ts';
import { releasedCount, releaseJoinTasks } from './sql/release-joins.ts';
import { propagateFinal } from './sql/propagate-final.ts';
import { completeOnlyTasksSql, type OnlyTaskCompleted } from './sql/complete-only-tasks.ts';
import type { CompletionItem } from './sql/completion-items.ts';
import { finishAttempt, type AttemptEnd } from './sql/finish-attempt.ts';
import { recordHandlerStats } from './sql/record-handler-stats.ts';
import { retryOrBury } from './sql/retry-or-bury.ts';
import type { ClaimedTask, CompleteTaskInput, CompleteTaskResult } from './types.ts';

/**
 * Records the end of an attempt reported by a worker (docs/design.md §4 task state
 * machine, failure policy, dependency types; docs/engine-cases.md cases 3 and 5).
 *
 * Compare-and-set on (taskId, status running, attempt, locked_by = nodeId): a
 * stale attempt, a lease taken over by the reaper or a cancelled task changes
 * nothing and returns `{ applied: false }` (not an error).
 *
 * - success -> `success`; hard/soft children decremented, on_failure children skipped by design.
 * - failed | timeout with attempt <= max_retries -> logged, then `pending` with
 *   attempt + 1 and schedule_at = now + retryDelayMs(backoff, attempt) (ms).
 * - failed with `retryable: false` (bad input) -> `dead` at once, whatever retries are left.
 * - failed | timeout with retries used up -> logged, then `dead` (the log shows
 *   running -> timeout -> dead); children propagate (hard: skipped naming this task).
 * Then, when every task of the run is final, the run ends (success / failed /
 * timeout / cancelled) and the job's counters and dead-letter state follow;
 * handler_stats_daily is updated in the same transaction (the rule: sql/stats-outcome.ts).
 *
 * Round trips: a success of the only task of its run (one-step job) is ONE
 * statement, no transaction (sql/complete-only-tasks.ts). Otherwise: BEGIN, finish-attempt (CAS + log + run lock + child decrement),
 * [retry-or-bury], [propagate], finalise + stats (or stats alone when a child
 * became ready), [serial release], COMMIT — four for a one-step run. Joins `db` if it is a transaction.
 * @param now the clock: completed_at, durations, retry schedule (UTC)
 */
export async function completeTask(db: EngineDb, input: CompleteTaskInput, now: Date = new Date()): Promise<CompleteTaskResult> {
  if (fastPathCandidate(input)) {
    // Fast path (sql/complete-only-tasks.ts): the only task of a run succeeding — the one-step job,
    // the common case — is finished, logged, its run ended, its job and the handler stats booked in
    // ONE autocommit statement. Anything else (DAG tasks, serial_execution jobs, lost races) matches
    // no row there and falls through to the general path below, whose compare-and-set decides.
    const [fast] = await completeOnlyTasks(db, input.nodeId, [input], now);
    if (fast) return fastResult(fast);
  }
  return generalPath(db, input, now);
}

/**
 * Completes several attempts of one node with the same clock `now`: the
 * successes of only-tasks (one-step runs) together in ONE statement and one
 * commit (sql/complete-only-tasks.ts); then every other success — DAG steps,
 * serial_execution jobs, and any success that statement did not apply — together
 * (completeDagBatch: one statement for the whole batch, then a transaction only for
 * runs that may have ended or on_failure children to skip); then failures and
 * timeouts one by one through completeTask's general path.
 * Results and semantics per input are those of completeTask, in input order:
 * a general-path error is that input's `rejected` entry and does not touch the
 * others; when the DAG batch's statement fails (nothing of it applied), its inputs
 * are completed one by one the general way (each then sees its own error); when only
 * the settling after it fails, the statement's results stand and the reaper settles
 * those runs.
 * @throws the one-step batch statement's database error: then nothing was applied and
 *   the caller may complete the inputs one by one (worker/completion-batcher.ts)
 * @throws Error when inputs name more than one node (a programming error)
 */
export async function completeTasks(db: EngineDb, inputs: readonly CompleteTaskInput[], now: Date = new Date()): Promise<PromiseSettledResult<CompleteTaskResult>[]> {
  if (inputs.length === 0) return [];
  const nodeId = inputs[0]!.nodeId;
  if (inputs.some((i) => i.nodeId !== nodeId)) throw new Error('completeTasks: all inputs must come from one node');
  const applied = new Map((await completeOnlyTasks(db, nodeId, inputs.filter(fastPathCandidate), now)).map((r) => [`${r.id}:${r.attempt}`, r]));
  const results: (PromiseSettledResult<CompleteTaskResult> | undefined)[] = new Array(inputs.length);
  const dag: number[] = [];
  inputs.forEach((input, n) => {
    const key = `${input.taskId}:${input.attempt}`;
    const hit = fastPathCandidate(input) ? applied.get(key) : undefined;
    applied.delete(key); // a repeated input is applied once; its repeat meets the compare-and-set
    if (hit) results[n] = { status: 'fulfilled', value: fastResult(hit) };
    else if (input.outcome === 'success') dag.push(n);
  });
  if (dag.length > 0) {
    let batch: Map<number, CompleteTaskResult> | null = null;
    try {
      batch = await completeDagBatch(db, dag.map((n) => inputs[n]!), now);
    } catch (err) {
      // Its statement failed, so nothing of it was applied (a failed settling after it is
      // absorbed in completeDagBatch): one by one below, each input meeting its own error.
      log('engine').warn({ err: (err as Error)?.message, size: dag.length }, 'batched DAG completion failed; completing its attempts one by one');
      batch = null;
    }
    if (batch) for (const [k, value] of batch) results[dag[k]!] = { status: 'fulfilled', value };
  }
  for (let n = 0; n < inputs.length; n++) {
    if (results[n]) continue;
    try {
      results[n] = { status: 'fulfilled', value: await generalPath(db, inputs[n]!, now) };
    } catch (reason) {
      results[n] = { status: 'rejected', reason };
    }
  }
  return results as PromiseSettledResult<CompleteTaskResult>[];
}

/**
 * Successes of any tasks of one node — DAG steps above all — whatever the batch size
 * (docs/engine.md "Batched completions"):
 * - one statement does every compare-and-set, task log, child release and the handler stats
 *   (sql/complete-dag-tasks.ts). On a worker (its own pool, no caller's transaction) it is a
 *   transaction of its own that shares the items' runs with other completions (FOR SHARE): a
 *   chain step is this one statement and its commit.
 * - Then, only for what that statement could not decide — the on_failure children of successes
 *   (skipped by design) and the runs that got no ready task (their last task, or only
 *   skipped-by-design children left, or stuck) — settleDagBatch: a probe after the commit, and a
 *   transaction that locks the runs found with nothing live (finishRunIfDone: end, job booking,
 *   serial release). Inside a caller's transaction the statement locks the runs exclusively and
 *   both parts run in it, the stats booked last.
 * A worker that dies between the two leaves such a run open with no open task; the reaper's
 * pass settles it (settleStrandedRuns). Same outcome per item as completeTask's general path.
 * @returns the result of every input, by its index in `inputs` (not applied: `{ applied: false }`)
 */
async function completeDagBatch(db: EngineDb, inputs: readonly CompleteTaskInput[], now: Date): Promise<Map<number, CompleteTaskResult>> {
  const nodeId = inputs[0]!.nodeId;
  const handoff = inputs.find((i) => i.handoff)?.handoff;
  const callerTx = isTransactionClient(db);
  let done: DagTaskCompleted[];
  const runEnd = new Map<string, string | null>();
  const items = await completionItems(db, inputs);
  if (callerTx) {
    done = await completeDagTasksSql(db, { nodeId, message: 'succeeded', jobFirst: true, bookStats: false, items, handoff }, now);
    await releaseJoinsAfterBatch(db, done, items, now, { inTransaction: true });
    await settleAfterDagBatch(db, done, runEnd, now);
  } else {
    done = await withDeadlockRetry(() => completeDagTasksSql(db, { nodeId, message: 'succeeded', jobFirst: false, bookStats: true, items, handoff }, now));
    await releaseJoinsAfterBatch(db, done, items, now, { inTransaction: false });
    // The steps both commits made ready, announced after them (notify.ts notifyTasksReadyNow).
    if (done.some((d) => d.runReadyOpen > 0)) {
      await notifyTasksReadyNow(db).catch((err: unknown) => log('engine').warn({ err: (err as Error)?.message }, 'NOTIFY after a batched DAG completion failed; other workers find the steps at their safety poll'));
    }
    for (const [runId, status] of await settleDagBatch(db, done, now)) runEnd.set(runId, status);
  }
  const byKey = new Map(done.map((d) => [`${d.id}:${d.attempt}`, d]));
  // Steps handed off are listed on every item of their run: each goes to one result, the first.
  const handedRuns = new Set<string>();
  const out = new Map<number, CompleteTaskResult>();
  inputs.forEach((input, n) => {
    const key = `${input.taskId}:${input.attempt}`;
    const d = byKey.get(key);
    byKey.delete(key); // a repeated input meets the compare-and-set: not applied
    if (!d) {
      out.set(n, { applied: false });
      return;
    }
    const runStatus = runEnd.get(d.runId);
    const handedOff = d.handedOff && !handedRuns.has(d.runId) ? d.handedOff.map(claimedTaskFromJson) : [];
    handedRuns.add(d.runId);
    out.set(n, {
      applied: true,
      task: { id: d.id, runId: d.runId, status: 'success', attempt: d.attempt },
      ...(runStatus ? { runStatus } : {}),
      ...(d.runReadyOpen > 0 ? { ready: d.runReadyOpen } : {}),
      ...(handedOff.length > 0 ? { handedOff } : {}),
    });
  });
  return out;
}

/**
 * Releases the join tasks (tasks of several parents, release-joins.ts) of a batch's successes,
 * which completeDagTasksSql leaves alone so that batches ending parents of the same join do not
 * wait for each other's commit on its row. On a worker (`inTransaction` false: the batch
 * committed) in a transaction of its own that first holds the runs FOR SHARE, like the batches,
 * so that no re-open, cancel or failure commits between the release's snapshot and its writes;
 * of two batches ending a join's last parents side by side, the one that commits later sees
 * both here. Inside a caller's transaction, which holds the runs FOR UPDATE, as its next
 * statement. The released tasks are added to their run's `runReady` / `runReadyOpen` in `done`
 * (they are left to the claim; on the worker's path the caller notifies after the commit). A failure on the worker's path is logged, not thrown: a
 * join left waiting is released when its run stalls (settle.ts finishRunIfDone, reached by the
 * stranded-run sweep), as when the worker dies between the two.
 */
async function releaseJoinsAfterBatch(
  db: EngineDb, done: DagTaskCompleted[], items: CompletionItem[], now: Date, opts: { inTransaction: boolean },
): Promise<void> {
  const parents = done.filter((d) => d.joinChildren > 0);
  if (parents.length === 0) return;
  const weekOf = new Map(items.map((i) => [i.taskId, i.scheduledFor]));
  const input = { parentIds: parents.map((d) => d.id), weeks: parents.map((d) => weekOf.get(d.id)!) };
  let released: Map<string, number>;
  if (opts.inTransaction) {
    released = await releaseJoinTasks(db, input, now);
  } else {
    const runs = [...new Map(parents.map((d) => [d.runId, weekOf.get(d.id)!])).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    try {
      released = await withEngineTransaction(db, async (tx) => {
        await shareRuns(tx, runs.map(([id]) => id), runs.map(([, week]) => week));
        return releaseJoinTasks(tx, input, now, { notify: false }); // the caller notifies after the commit
      });
    } catch (err) {
      log('engine').warn({ err: (err as Error)?.message, runs: runs.map(([id]) => id) },
        'releasing join tasks after a batched DAG completion failed; left to the stranded-run sweep');
      return;
    }
  }
  for (const d of done) {
    const n = released.get(d.runId) ?? 0;
    d.runReady += n;
    d.runReadyOpen += n;
  }
}

/**
 * After a batch statement of completeDagTasksSql committed on its own (the worker's path), what
 * it could not decide (docs/engine.md "Batched completions"):
 * - a probe of the runs that got no ready task, unlocked, in a fresh snapshot
 *   (probeRunsAfterCompletion). A run it finds live is left alone: a live task seen after this
 *   commit is either ready (its own completion probes in turn) or running, and a completion of
 *   it that has not committed yet either makes a task ready or probes after its own commit and
 *   then sees this one. Of two completions racing for a run's last tasks, at least one sees both.
 * - then one transaction for the runs found with nothing live: it locks them (ascending id),
 *   skips the on_failure children of their successes by design and ends the runs with nothing
 *   left (settleAfterDagBatch: a fresh probe under the lock).
 * - and one for the successes with on_failure children in runs still live, which takes only the
 *   runs nobody holds (SKIP LOCKED) and skips those children by design. A run held by others —
 *   above all by other batches of a wide DAG, which share it without a gap — is not waited for:
 *   its on_failure children stay pending, and whoever settles the run when nothing else is live
 *   skips them then (settle.ts finishRunIfDone), so the run's outcome is the same; the worker's
 *   hand-offs and completions do not wait behind the run's other batches.
 * A failure here is logged, not thrown: the statement's work stands, and the reaper settles such a
 * run (settleStrandedRuns), as it does when the worker dies between the two.
 * @param done the statement's rows; @param now the completion instant (UTC)
 * @returns run id -> the status finishRunIfDone gave it, for the runs the transaction settled
 *   (null: not ended by it: still open, or ended already by another completion)
 */
export async function settleDagBatch(db: EngineDb, done: DagTaskCompleted[], now: Date): Promise<Map<string, string | null>> {
  const runEnd = new Map<string, string | null>();
  if (!done.some(needsSettling)) return runEnd;
  try {
    const quiet = [...new Set(done.filter((d) => d.runReady === 0).map((d) => d.runId))].sort();
    const ended = new Set(quiet.length === 0 ? [] : (await probeRunsAfterCompletion(db, quiet, [], now)).toFinish);
    const ending = done.filter((d) => ended.has(d.runId));
    const onFailureOnly = done.filter((d) => d.onFailureChildren > 0 && !ended.has(d.runId));
    if (ending.length > 0) {
      await withEngineTransaction(db, async (tx, attempt) => {
        runEnd.clear();
        await settleAfterDagBatch(tx, ending, runEnd, now, { lockRuns: 'wait', jobFirst: attempt > 1 });
      });
    }
    if (onFailureOnly.length > 0) {
      const more = new Map<string, string | null>();
      await withEngineTransaction(db, async (tx, attempt) => {
        more.clear();
        await settleAfterDagBatch(tx, onFailureOnly, more, now, { lockRuns: 'skip-locked', jobFirst: attempt > 1 });
      });
      for (const [runId, status] of more) runEnd.set(runId, status);
    }
  } catch (err) {
    runEnd.clear();
    log('engine').warn({ err: (err as Error)?.message, runs: [...new Set(done.filter(needsSettling).map((d) => d.runId))] },
      'settling runs after a batched DAG completion failed; left to the stranded-run sweep');
  }
  return runEnd;
}

/** A success the batch statement left for a second transaction: on_failure children to skip, or a run with no ready task. */
function needsSettling(d: DagTaskCompleted): boolean {
  return d.onFailureChildren > 0 || d.runReady === 0;
}

/**
 * What follows completeDagTasksSql for the successes that need it (needsSettling): their
 * on_failure children skipped by design, in one statement; then the runs that got no ready
 * task probed with a fresh snapshot (probeRunsAfterCompletion) and those with nothing left to
 * do ended (finishRunIfDone); the batch's stats last when the statement did not book them.
 * `opts.lockRuns`: a new transaction, so the runs are locked first (ascending id, after their
 * jobs when `jobFirst`: lock-order.ts), waiting for them, or ('skip-locked') only those nobody
 * holds, the successes of the others left out; otherwise the caller's transaction holds them
 * already. Run outcomes go into `runEnd` (run id -> final status, or null while it is open).
 */
async function settleAfterDagBatch(
  tx: SqlClient, batch: DagTaskCompleted[], runEnd: Map<string, string | null>, now: Date,
  opts: { lockRuns?: 'wait' | 'skip-locked'; jobFirst?: boolean } = {},
): Promise<void> {
  let done = batch;
  if (opts.lockRuns) {
    const runs = [...new Set(done.filter(needsSettling).map((d) => d.runId))].sort();
    if (opts.jobFirst) await lockJobsOfRuns(tx, runs);
    if (opts.lockRuns === 'wait') await lockRuns(tx, runs);
    else {
      const held = await lockFreeRuns(tx, runs);
      done = done.filter((d) => held.has(d.runId));
    }
  }
  const settle = done.filter(needsSettling);
  const quiet = [...new Set(done.filter((d) => d.runReady === 0).map((d) => d.runId))].sort();
  const withOnFailure = settle.filter((d) => d.onFailureChildren > 0).map((d) => d.id);
  if (withOnFailure.length > 0) await propagateFinal(tx, { parentIds: withOnFailure, edgeTypes: ['on_failure'] }, now);
  // The stats of the batch are booked by the statement itself, or here last (stats rows are
  // locked last: lock-order.ts).
  const stats = [...done].sort((a, b) => (a.handler < b.handler ? -1 : a.handler > b.handler ? 1 : 0));
  let statsBooked = done.length === 0 || done[0]!.statsBooked;
  if (quiet.length > 0) {
    const probe = await probeRunsAfterCompletion(tx, quiet, statsBooked ? [] : stats, now);
    statsBooked ||= probe.statsDone;
    for (const runId of probe.toFinish) runEnd.set(runId, await finishRunIfDone(tx, runId, now));
  }
  if (!statsBooked) await recordSuccessStats(tx, stats, now);
}

function fastPathCandidate(input: CompleteTaskInput): boolean {
  return input.outcome === 'success' && input.onlyTask !== false;
}

async function completeOnlyTasks(db: EngineDb, nodeId: string, inputs: readonly CompleteTaskInput[], now: Date): Promise<OnlyTaskCompleted[]> {
  if (inputs.length === 0) return [];
  const items = await completionItems(db, inputs);
  if (items.length === 0) return [];
  return withDeadlockRetry(() => completeOnlyTasksSql(db, { nodeId, message: 'succeeded', items }, now), isTransactionClient(db) ? 1 : 4);
}

/**
 * The batch items of successful attempts, with each task's keys (run, job, week): as the caller
 * passed them (a worker, from the claim), else looked up by id in one statement. An unknown
 * task id is left out (its completion then applies nowhere: `{ applied: false }`).
 */
async function completionItems(db: SqlClient, inputs: readonly CompleteTaskInput[]): Promise<CompletionItem[]> {
  const missing = inputs.filter((i) => !(i.runId && i.jobId && i.scheduledFor)).map((i) => i.taskId);
  const found = missing.length === 0 ? new Map<string, TaskKeys>() : new Map((await db.$queryRawUnsafe<TaskKeys[]>(
    `SELECT id, run_id AS "runId", job_id AS "jobId", scheduled_for AS "scheduledFor" FROM tasks WHERE id = ANY($1::uuid[])`,
    missing.filter((id) => UUID_RE.test(id)),
  )).map((k) => [k.id, k]));
  const items: CompletionItem[] = [];
  for (const i of inputs) {
    const keys = i.runId && i.jobId && i.scheduledFor ? { runId: i.runId, jobId: i.jobId, scheduledFor: i.scheduledFor } : found.get(i.taskId);
    if (!keys) continue;
    items.push({
      taskId: i.taskId, ...keys, attempt: i.attempt, startedAt: i.startedAt ?? null,
      output: i.output, error: i.error ?? null, exitCode: i.exitCode ?? null, handoff: i.handoff !== undefined,
    });
  }
  return items;
}
type TaskKeys = { id: string; runId: string; jobId: string; scheduledFor: Date };

/** A handed-off step as the statement returns it (to_jsonb of claimedTaskColumns): instants as ISO strings. */
function claimedTaskFromJson(j: Record<string, unknown>): ClaimedTask {
  const at = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return { ...(j as unknown as ClaimedTask), scheduledFor: at(j.scheduledFor)!, startedAt: at(j.startedAt)!, leaseUntil: at(j.leaseUntil)!, latenessFrom: at(j.latenessFrom) };
}

function fastResult(fast: OnlyTaskCompleted): CompleteTaskResult {
  return {
    applied: true,
    task: { id: fast.id, runId: fast.runId, status: 'success', attempt: fast.attempt },
    ...(fast.runStatus ? { runStatus: fast.runStatus } : {}),
  };
}

/** The general path: one interactive transaction (joins `db` if it is one). */
function generalPath(db: EngineDb, input: CompleteTaskInput, now: Date): Promise<CompleteTaskResult> {
  const callerTx = isTransactionClient(db);
  return withEngineTransaction(db, (tx, attempt) =>
    endAttempt(tx, {
      taskId: input.taskId,
      attempt: input.attempt,
      nodeId: input.nodeId,
      outcome: input.outcome,
      output: input.output,
      error: input.error ?? null,
      exitCode: input.exitCode ?? null,
      message: input.outcome === 'success' ? 'succeeded' : input.outcome === 'timeout' ? 'timed out' : `failed${input.error ? `: ${truncate(input.error, 500)}` : ''}`,
      leaseExpiredBefore: null,
      random: input.random,
      retryable: input.retryable,
      startedAt: input.startedAt ?? null,
      // Inside a caller's transaction a NOWAIT refusal could not be replayed here: take the strict order.
      jobFirst: callerTx || attempt > 1,
    }, now),
  );
}

/**
 * Shared by completeTask and reclaimExpiredLeases (a lease expiry is a failed attempt). Internal.
 * Locks (lock-order.ts): the run row first, so completions of sibling tasks of one run take
 * their turns instead of locking task rows in different orders; the job row only when the
 * run ends (finalise-run.ts, NOWAIT) — or first of all when `jobFirst` (the replay after a
 * NOWAIT refusal, or inside a caller's transaction).
 */
export async function endAttempt(
  tx: SqlClient,
  p: AttemptEnd & { random?: () => number; retryable?: boolean; jobFirst?: boolean },
  now: Date,
): Promise<CompleteTaskResult> {
  if (p.jobFirst) await lockJobRow(tx, { taskId: p.taskId });
  if (!(await lockRun(tx, { taskId: p.taskId }))) return { applied: false };
  const fin = await finishAttempt(tx, p, now);
  if (!fin) return { applied: false };

  // The attempt as the handler stats count it (the rule: sql/stats-outcome.ts).
  const stats: NonNullable<StatsCarry['stats']> = {
    handler: fin.handler, outcome: fin.status, dead: false, attempt: fin.attempt, startedAt: fin.startedAt, latenessFrom: fin.latenessFrom,
  };

  const carry: StatsCarry = { stats };
  let result: CompleteTaskResult;
  if (fin.status === 'success') {
    // Its join children, in a statement after finish-attempt's (which they must see: release-joins.ts).
    const ready = fin.ready + (fin.joinChildren > 0
      ? releasedCount(await releaseJoinTasks(tx, { parentIds: [fin.id], weeks: [fin.scheduledFor] }, now)) : 0);
    const runStatus = await settleFinalTask(tx, {
      taskId: fin.id, runId: fin.runId, status: 'success', readyAlready: ready, pendingOnFailure: fin.onFailureChildren,
    }, now, carry);
    result = {
      applied: true, task: { id: fin.id, runId: fin.runId, status: 'success', attempt: fin.attempt },
      ...(runStatus ? { runStatus } : {}), ...(ready > 0 ? { ready } : {}),
    };
  } else if (p.retryable !== false && fin.attempt <= fin.maxRetries) {
    const delayMs = retryDelayMs(backoffOf(fin.backoff), fin.attempt, p.random);
    const retryAt = new Date(now.getTime() + delayMs);
    await retryOrBury(tx, {
      taskId: fin.id, from: fin.status, attempt: fin.attempt, to: 'pending', retryAt, delayMs,
      message: `retry ${fin.attempt + 1}/${fin.maxRetries + 1} in ${delayMs} ms`,
    }, now);
    result = { applied: true, task: { id: fin.id, runId: fin.runId, status: 'pending', attempt: fin.attempt + 1, retryAt } };
  } else {
    await retryOrBury(tx, {
      taskId: fin.id, from: fin.status, attempt: fin.attempt, to: 'dead', retryAt: null, delayMs: null,
      message: p.retryable === false && fin.attempt <= fin.maxRetries
        ? `dead: not retried, the failure cannot change on a retry (attempt ${fin.attempt}, ${fin.status})`
        : `dead: retries used up after ${fin.attempt} attempt${fin.attempt === 1 ? '' : 's'} (last ${fin.status})`,
    }, now);
    stats.dead = true;
    const runStatus = await settleFinalTask(tx, { taskId: fin.id, runId: fin.runId, status: 'dead', readyAlready: 0 }, now, carry);
    result = { applied: true, task: { id: fin.id, runId: fin.runId, status: 'dead', attempt: fin.attempt }, ...(runStatus ? { runStatus } : {}) };
  }
  // The stats row is shared by every completion of the handler today: upsert it last (riding on the
  // run-finalising statement when there is one) so its lock is held only until COMMIT.
  if (carry.stats) await recordHandlerStats(tx, carry.stats, now);
  return result;
}

function backoffOf(b: FinishedBackoff): BackoffConfig {
  return {
    baseSeconds: num(b.baseSeconds, 1),
    factor: Math.max(1, num(b.factor, 2)),
    maxSeconds: num(b.maxSeconds, 300),
    jitter: Math.min(1, Math.max(0, num(b.jitter, 0))),
  };
}
type FinishedBackoff = { baseSeconds?: number; factor?: number; maxSeconds?: number; jitter?: number };
function num(v: unknown, d: number): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d;
}
function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
