/**
 * Operators acting while the engine works (property-based, fast-check): random interleavings of
 * ticks with look-ahead, claims, completions (batched successes, failures, timeouts), lease
 * reclaims and the stranded-run sweep on several clients, against pause / resume, edits (payload,
 * block strategy), delete / restore, run cancels and retries, task retries, clears and marks of
 * success, manual triggers and triggers sharing one Idempotency-Key; claims start tasks at once or
 * hold them (prefetch). Each step runs its actions concurrently on different
 * clients at one injected instant. After each case the engine is settled (no operator, no tick:
 * attempts finished, the reaper run) and the invariants are checked against the rows
 * (`checkInvariants`): every run ended in the status the rule of lib/engine/sql/finalise-run.ts
 * gives its tasks, nothing running, no slot fired twice, no (task, attempt) claimed or completed
 * twice, a resource key never held by two attempts at once, one run of a manual job at a time
 * (docs/recovery.md), the job counters and the handler stats equal to a recount (checkStats: the
 * stats drift check), and no deadlock. The seed is fixed and printed on a failure with the case
 * (fast-check's report). To explore further: RACE_SEED, RACE_RUNS, RACE_STEPS (the most steps
 * of a case), RACE_TIMEOUT_MS (ms), and RACE_DEBUG=1 for each case's timings.
 */
import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../lib/auth/actor.ts';
import { createPrismaClient, type PrismaClient } from '../../lib/db.ts';
import {
  claimTasks,
  completeTask,
  completeTasks,
  expireHeldResourceKeys,
  markHeldTasksStarted,
  reclaimExpiredLeases,
  releaseHeldResourceKeys,
  settleStrandedRuns,
  type ClaimedTask,
} from '../../lib/engine/index.ts';
import { runTick } from '../../lib/engine/tick/run-tick.ts';
import { DomainError } from '../../lib/errors.ts';
import { withIdempotency } from '../../lib/api/idempotency.ts';
import { createJob, deleteJob, pauseJob, restoreJob, resumeJob, triggerJob, updateJob } from '../../lib/jobs/index.ts';
import { cancelRunAs, retryRunAs, retryTaskAs } from '../../lib/runs/run-actions.ts';
import { clearTaskAs, markTaskSuccessAs } from '../../lib/runs/task-recovery.ts';
import { checkStats } from '../../lib/system-jobs/stats-check.ts';
import { offerHandlers, useTestDatabase } from '../helpers/db.ts';

const t = useTestDatabase();
const clients: PrismaClient[] = [];
const alice: Actor = { kind: 'user', id: '00000000-0000-4000-8000-0000000000a1', name: 'alice@example.com', role: 'operator' };
const HANDLERS = ['race.a', 'race.b', 'race.c', 'race.d', 'race.f', 'race.one', 'race.manual'];
const NODES = ['node-0', 'node-1', 'node-2'];
const LEASE_S = 30;
const SEED = Number(process.env.RACE_SEED ?? 20261207);

/**
 * "One run of a job at a time" (docs/recovery.md), checked at each commit for the manual jobs of
 * this file (no run is created ahead of a slot there): a run inserted active, or re-opened by an
 * operator, while another run of its job is active breaks it — unless the job is
 * serial_execution and the new run is queued (every task gated: pending_parents > 0).
 */
const ONE_AT_A_TIME = `
CREATE TABLE test_violations (job_id text, run_id text, what text);
CREATE FUNCTION test_one_at_a_time() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE strategy text; others int; gated boolean;
BEGIN
  IF NEW.status NOT IN ('pending', 'running') THEN RETURN NULL; END IF;
  IF TG_OP = 'UPDATE' AND OLD.status IN ('pending', 'running') THEN RETURN NULL; END IF;
  SELECT block_strategy::text INTO strategy FROM jobs WHERE id = NEW.job_id::uuid AND key LIKE 'race.manual.%';
  IF strategy IS NULL THEN RETURN NULL; END IF;
  -- the run as committed: still active?
  IF NOT EXISTS (SELECT 1 FROM runs WHERE id = NEW.id AND status IN ('pending', 'running')) THEN RETURN NULL; END IF;
  SELECT count(*) INTO others FROM runs WHERE job_id = NEW.job_id AND id <> NEW.id AND status IN ('pending', 'running');
  IF others = 0 THEN RETURN NULL; END IF;
  SELECT bool_and(pending_parents > 0 OR status NOT IN ('pending', 'running')) INTO gated FROM tasks WHERE run_id = NEW.id;
  IF TG_OP = 'INSERT' AND strategy = 'serial_execution' AND gated THEN RETURN NULL; END IF;
  INSERT INTO test_violations VALUES (NEW.job_id, NEW.id, TG_OP || ' ' || strategy || ' beside ' || others || ' active');
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER test_one_at_a_time AFTER INSERT OR UPDATE OF status ON runs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_one_at_a_time();`;

beforeAll(async () => {
  await t.pool.query(ONE_AT_A_TIME);
  await offerHandlers(t, HANDLERS);
  for (let i = 0; i < NODES.length; i++) clients.push(createPrismaClient(t.url, 4));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.$disconnect()));
});

type Strategy = 'discard_later' | 'serial_execution' | 'cover_early';
const STRATEGIES: Strategy[] = ['discard_later', 'serial_execution', 'cover_early'];

/** An attempt a simulated worker holds (claimed, not yet answered). */
interface Holding { task: ClaimedTask; node: string; dead: boolean }

/** One case's world: its jobs, the simulated workers' holdings and what the invariants need. */
class World {
  now: number;
  holdings = new Map<string, Holding>(); // by `${taskId}:${attempt}`
  claimedAttempts = new Set<string>();
  appliedAttempts = new Set<string>();
  violations: string[] = [];
  unexpected: string[] = [];
  jobIds: string[] = [];
  manualJob = '';
  idemRuns: { key: string; runIds: Set<string> }[] = [];
  /** a keyed task claimed while a holding of the key was not known dead: a violation unless the step's reaper reclaimed it */
  keyConflicts: { claimed: string; holder: Holding }[] = [];
  /** attempts claimed again: a violation unless the reaper handed them back unstarted (as many times) */
  doubleClaims: string[] = [];
  handedBack = new Map<string, number>();
  constructor(start: number) {
    this.now = start;
  }
  at(offset = 0): Date {
    return new Date(this.now + offset);
  }
}

/** Runs an operator action; a DomainError (409 conflict, 404 deleted, …) is an expected answer. */
async function operator(w: World, what: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof DomainError) return;
    w.unexpected.push(`${what}: ${(err as Error).stack ?? String(err)}`);
  }
}

/** Runs an engine step; any error is unexpected (a deadlock, a constraint, a bug). */
async function engine(w: World, what: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    w.unexpected.push(`${what}: ${(err as Error).stack ?? String(err)}`);
  }
}

async function claim(w: World, i: number, limit: number, startNow = limit): Promise<void> {
  const node = NODES[i]!;
  const tasks = await claimTasks(clients[i]!, { nodeId: node, handlers: HANDLERS, group: 'default', labels: {}, limit, startNow, leaseSeconds: LEASE_S }, w.at(i));
  for (const task of tasks) {
    const k = `${task.id}:${task.attempt}`;
    if (w.claimedAttempts.has(k)) w.doubleClaims.push(`${k} (${task.stepKey})`);
    w.claimedAttempts.add(k);
    if (task.resourceKey) {
      // judged after the step: a reaper's pass in the same step may have reclaimed the holder
      for (const h of w.holdings.values()) {
        if (!h.dead && h.task.resourceKey === task.resourceKey) w.keyConflicts.push({ claimed: `${k} (${task.stepKey})`, holder: h });
      }
    }
    w.holdings.set(k, { task, node, dead: false });
  }
}

type Outcome = 'success' | 'failed' | 'timeout';

/** Answers some of node i's holdings: successes in one batch (the worker's batcher), the rest one by one. */
async function complete(w: World, i: number, pick: number, outcome: Outcome): Promise<void> {
  const node = NODES[i]!;
  const mine = [...w.holdings.entries()].filter(([, h]) => h.node === node && !h.dead);
  if (mine.length === 0) return;
  const chosen = outcome === 'success' ? mine.slice(0, 1 + (pick % mine.length)) : [mine[pick % mine.length]!];
  for (const [k] of chosen) w.holdings.delete(k);
  const inputs = chosen.map(([, h]) => ({
    taskId: h.task.id, runId: h.task.runId, jobId: h.task.jobId, scheduledFor: h.task.scheduledFor,
    attempt: h.task.attempt, nodeId: node, outcome, onlyTask: h.task.onlyTask,
    error: outcome === 'success' ? null : `${h.task.stepKey} ${outcome}`,
  }));
  const results = outcome === 'success'
    ? await completeTasks(clients[i]!, inputs, w.at(i))
    : [await completeTask(clients[i]!, inputs[0]!, w.at(i)).then((value) => ({ status: 'fulfilled' as const, value }), (reason: unknown) => ({ status: 'rejected' as const, reason }))];
  const refused: string[] = [];
  results.forEach((r, n) => {
    const k = `${inputs[n]!.taskId}:${inputs[n]!.attempt}`;
    if (r.status === 'rejected') {
      w.unexpected.push(`complete ${k}: ${(r.reason as Error)?.stack ?? String(r.reason)}`);
      return;
    }
    if (r.value.applied) {
      if (w.appliedAttempts.has(k)) w.violations.push(`attempt ${k} completed twice`);
      w.appliedAttempts.add(k);
    } else refused.push(inputs[n]!.taskId);
  });
  if (refused.length) {
    // a refusal is right only when the attempt is no longer this worker's (cancelled, reclaimed, retried)
    const still = await t.pool.query<{ id: string; attempt: number }>(
      `SELECT id::text, attempt FROM tasks WHERE id = ANY($1::uuid[]) AND status = 'running' AND locked_by = $2`, [refused, node]);
    for (const r of still.rows) {
      if (inputs.some((x) => x.taskId === r.id && x.attempt === r.attempt)) w.violations.push(`completion of ${r.id}:${r.attempt} (${outcome}) refused while ${node} holds it: ${await history(r.id)}`);
    }
    // what the worker does when its completion is refused (worker/runner.ts freeHeldKey)
    await releaseHeldResourceKeys(clients[i]!, { nodeId: node, taskIds: refused });
  }
}

/**
 * Node i starts the tasks it claimed held (prefetched beyond its free slots) and records their start
 * (worker/runner.ts recordStart); a task whose start is not recorded was handed back or cancelled
 * meanwhile: the worker drops it and frees the key it may hold (runner.ts freeHeldKey).
 */
async function start(w: World, i: number): Promise<void> {
  const node = NODES[i]!;
  const held = [...w.holdings.entries()].filter(([, h]) => h.node === node && !h.dead && h.task.held);
  if (held.length === 0) return;
  const started = new Set(await markHeldTasksStarted(clients[i]!, {
    nodeId: node, tasks: held.map(([, h]) => ({ id: h.task.id, attempt: h.task.attempt, scheduledFor: h.task.scheduledFor, startedAt: w.at(i) })),
  }, w.at(i)));
  const dropped: string[] = [];
  for (const [k, h] of held) {
    if (started.has(h.task.id)) h.task = { ...h.task, held: false };
    else { w.holdings.delete(k); dropped.push(h.task.id); }
  }
  if (dropped.length) await releaseHeldResourceKeys(clients[i]!, { nodeId: node, taskIds: dropped });
}

/** The reaper's pass (worker/reaper.ts): expired leases, lapsed key holds, stranded runs. */
async function reap(w: World, i: number): Promise<void> {
  const reclaimed = await reclaimExpiredLeases(clients[i]!, { limit: 100 }, w.at(i));
  for (const r of reclaimed) {
    for (const h of w.holdings.values()) if (h.task.id === r.taskId) h.dead = true; // the dead worker's work dies with it
    // a held task handed back unstarted is claimed again on the same attempt (docs/on-time.md "Prefetch")
    if (r.handedBack) w.handedBack.set(`${r.taskId}:${r.attempt}`, (w.handedBack.get(`${r.taskId}:${r.attempt}`) ?? 0) + 1);
  }
  const expired = await expireHeldResourceKeys(clients[i]!, w.at(i));
  for (const e of expired) for (const h of w.holdings.values()) if (h.task.id === e.taskId) h.dead = true;
  await settleStrandedRuns(clients[i]!, { quietSeconds: 60, limit: 100 }, w.at(i));
}

async function randomRow(db: PrismaClient, sql: string, params: unknown[], pick: number): Promise<string | null> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(sql, ...params);
  return rows.length ? rows[pick % rows.length]!.id : null;
}

type Action =
  | { kind: 'tick'; client: number }
  | { kind: 'claim'; client: number; limit: number; startNow: number }
  | { kind: 'start'; client: number }
  | { kind: 'complete'; client: number; pick: number; outcome: Outcome }
  | { kind: 'reap'; client: number }
  | { kind: 'pause' | 'resume' | 'delete' | 'restore' | 'editPayload'; job: number }
  | { kind: 'strategy'; job: number; strategy: Strategy }
  | { kind: 'cancelRun' | 'retryTask' | 'clearTask' | 'retryRun' | 'markSuccess'; pick: number }
  | { kind: 'trigger'; job: number }
  | { kind: 'idemTrigger'; key: number };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('tick' as const), client: fc.nat(2) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('claim' as const), client: fc.nat(2), limit: fc.integer({ min: 1, max: 6 }), startNow: fc.integer({ min: 0, max: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('start' as const), client: fc.nat(2) }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('complete' as const), client: fc.nat(2), pick: fc.nat(20), outcome: fc.constantFrom<Outcome>('success', 'success', 'success', 'failed', 'timeout') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reap' as const), client: fc.nat(2) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('pause' as const, 'resume' as const, 'delete' as const, 'restore' as const, 'editPayload' as const), job: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('strategy' as const), job: fc.nat(2), strategy: fc.constantFrom(...STRATEGIES) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('cancelRun' as const, 'retryTask' as const, 'clearTask' as const, 'retryRun' as const, 'markSuccess' as const), pick: fc.nat(50) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('trigger' as const), job: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('idemTrigger' as const), key: fc.nat(2) }) },
);

/** A step: up to three actions at once, then the clock moves (sometimes past every lease). */
const stepArb = fc.record({
  actions: fc.array(actionArb, { minLength: 1, maxLength: 3 }),
  advanceMs: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 1500 }) }, { weight: 1, arbitrary: fc.constant((LEASE_S + 1) * 1000) }),
});

async function act(w: World, a: Action, slot: number): Promise<void> {
  const db = clients[slot % clients.length]!;
  const jobOf = (n: number) => (n < 2 ? w.jobIds[n]! : w.manualJob);
  switch (a.kind) {
    case 'tick': return engine(w, 'tick', () => runTick(clients[a.client]!, { limit: 50, lookaheadMs: 3000 }, w.at(a.client)));
    case 'claim': return engine(w, 'claim', () => claim(w, a.client, a.limit, a.startNow));
    case 'start': return engine(w, 'start', () => start(w, a.client));
    case 'complete': return engine(w, 'complete', () => complete(w, a.client, a.pick, a.outcome));
    case 'reap': return engine(w, 'reap', () => reap(w, a.client));
    case 'pause': return operator(w, 'pause', () => pauseJob(db, jobOf(a.job), alice, {}, w.at()));
    case 'resume': return operator(w, 'resume', () => resumeJob(db, jobOf(a.job), alice, {}, w.at()));
    case 'delete': return operator(w, 'delete', () => deleteJob(db, jobOf(a.job), alice, {}, w.at()));
    case 'restore': return operator(w, 'restore', () => restoreJob(db, jobOf(a.job), alice, {}, w.at()));
    case 'editPayload': return operator(w, 'edit', () => updateJob(db, jobOf(a.job), { payload: { v: w.now } }, alice, w.at()));
    case 'strategy': return operator(w, 'strategy', () => updateJob(db, jobOf(a.job), { policy: { blockStrategy: a.strategy } }, alice, w.at()));
    case 'trigger': return operator(w, 'trigger', () => triggerJob(db, jobOf(a.job), {}, alice, { trigger: 'api' }, w.at()));
    case 'cancelRun': {
      const id = await randomRow(db, `SELECT id::text FROM runs WHERE job_id = ANY($1::text[]) AND status IN ('pending', 'running') ORDER BY id`, [[...w.jobIds, w.manualJob]], a.pick);
      return id ? operator(w, 'cancel', () => cancelRunAs(db, id, alice, w.at())) : undefined;
    }
    case 'retryTask': {
      const id = await randomRow(db, `SELECT id::text FROM tasks WHERE job_id = ANY($1::text[]) AND status IN ('dead', 'cancelled', 'skipped') ORDER BY id`, [[...w.jobIds, w.manualJob]], a.pick);
      return id ? operator(w, 'retryTask', () => retryTaskAs(db, id, alice, w.at())) : undefined;
    }
    case 'clearTask': {
      const id = await randomRow(db, `SELECT id::text FROM tasks WHERE job_id = ANY($1::text[]) AND status IN ('success', 'dead', 'cancelled', 'skipped') ORDER BY id`, [[...w.jobIds, w.manualJob]], a.pick);
      return id ? operator(w, 'clear', () => clearTaskAs(db, id, { reason: 'race' }, alice, w.at())) : undefined;
    }
    case 'retryRun': {
      const id = await randomRow(db, `SELECT id::text FROM runs WHERE job_id = ANY($1::text[]) AND status IN ('failed', 'timeout', 'cancelled') ORDER BY id`, [[...w.jobIds, w.manualJob]], a.pick);
      return id ? operator(w, 'retryRun', () => retryRunAs(db, id, alice, w.at())) : undefined;
    }
    case 'markSuccess': {
      const id = await randomRow(db, `SELECT id::text FROM tasks WHERE job_id = ANY($1::text[]) AND status = 'dead' ORDER BY id`, [[...w.jobIds, w.manualJob]], a.pick);
      return id ? operator(w, 'markSuccess', () => markTaskSuccessAs(db, id, { reason: 'race' }, alice, w.at())) : undefined;
    }
    case 'idemTrigger': {
      // three clients send the same request with one key at once: one run, two replays
      const key = `k-${w.now}-${a.key}`;
      const runIds = new Set<string>();
      w.idemRuns.push({ key, runIds });
      await Promise.all(clients.map((c, i) => operator(w, 'idemTrigger', async () => {
        const r = await withIdempotency(c, { key, operation: 'jobs.trigger', hash: 'h', actorKey: `user:${alice.id}`, now: w.at(i) }, async (tx) => {
          const res = await triggerJob(tx, w.manualJob, {}, alice, { trigger: 'api' }, w.at(i));
          const runId = (res as { run: { id: string } }).run.id;
          return { status: 201, body: { runId }, resourceId: runId };
        });
        runIds.add((r.body as { runId: string }).runId);
      })));
      return;
    }
  }
}

/** No operator, no tick: every held attempt answered, every ready task run, the reaper's pass, until nothing is open. */
async function settle(w: World): Promise<void> {
  const started = Date.now();
  for (let round = 0; round < 100; round++) {
    for (let drained = 0; drained < 500; drained++) {
      for (const [k, h] of w.holdings) if (h.dead) w.holdings.delete(k);
      for (let i = 0; i < NODES.length; i++) {
        while ([...w.holdings.values()].some((h) => h.node === NODES[i] && !h.dead)) await complete(w, i, 1000, 'success');
      }
      w.now += 10;
      // one worker at a time: the race is over, only the queue is left to drain
      await claim(w, drained % NODES.length, 50);
      if (w.holdings.size === 0) break;
    }
    const open = await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE job_id = ANY($1::text[]) AND status IN ('pending', 'running')`, [[...w.jobIds, w.manualJob]]);
    if (process.env.RACE_DEBUG) console.log('settle round', round, new Date(w.now).toISOString(), 'open', open.rows[0]!.n, Date.now() - started, 'ms');
    if (open.rows[0]!.n === 0) return;
    // retries wait out their backoff, leases of lost attempts expire, stranded runs their quiet minute
    w.now += 61_000;
    await reap(w, round % NODES.length);
  }
}

async function checkInvariants(w: World): Promise<void> {
  const jobs = [...w.jobIds, w.manualJob];
  const q = async <R extends pg.QueryResultRow>(sql: string) => (await t.pool.query<R>(sql, [jobs])).rows;
  // every run ended, in the status its tasks give (lib/engine/sql/finalise-run.ts)
  const runs = await q<{ id: string; status: string; job_id: string; any_cancelled: boolean; all_ok: boolean; open_tasks: number; n: number; dead: number }>(
    `SELECT r.id::text, r.status::text, r.job_id::text, count(k.id)::int AS n,
            coalesce(bool_or(k.status = 'cancelled'), false) AS any_cancelled,
            coalesce(bool_and(k.status = 'success' OR (k.status = 'skipped' AND k.error IS NULL)), true) AS all_ok,
            count(k.id) FILTER (WHERE k.status NOT IN ('success', 'dead', 'cancelled', 'skipped'))::int AS open_tasks,
            count(k.id) FILTER (WHERE k.status = 'dead')::int AS dead
       FROM runs r LEFT JOIN tasks k ON k.run_id = r.id WHERE r.job_id = ANY($1::text[]) GROUP BY r.id, r.status, r.job_id`);
  for (const r of runs) {
    if (r.status === 'skipped') {
      if (r.n !== 0 && r.open_tasks) w.violations.push(`skipped record ${r.id} has open tasks`);
      continue;
    }
    if (r.status === 'pending' || r.status === 'running') { w.violations.push(`run ${r.id} still ${r.status} after the engine settled (${r.open_tasks} open tasks)`); continue; }
    if (r.open_tasks) w.violations.push(`run ${r.id} ended ${r.status} with ${r.open_tasks} open tasks`);
    const expected = r.any_cancelled ? ['cancelled'] : r.all_ok ? ['success'] : ['failed', 'timeout'];
    if (!expected.includes(r.status)) w.violations.push(`run ${r.id} ended ${r.status}; its tasks say ${expected.join(' or ')}`);
  }
  const running = await q<{ id: string }>(`SELECT id::text FROM tasks WHERE job_id = ANY($1::text[]) AND status IN ('running', 'failed', 'timeout')`);
  for (const r of running) w.violations.push(`task ${r.id} left running after the engine settled: ${await history(r.id)}`);
  const keys = await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM running_resources`);
  if (keys.rows[0]!.n) w.violations.push(`${keys.rows[0]!.n} resource keys still held after the engine settled`);
  // a slot is fired once: at most one run of the schedule per slot that was not withdrawn before it started
  const slots = await q<{ job_id: string; scheduled_for: Date; n: number }>(
    `SELECT job_id::text, scheduled_for, count(*)::int AS n FROM runs WHERE job_id = ANY($1::text[]) AND trigger = 'schedule'
        AND status <> 'skipped' AND NOT (status = 'cancelled' AND started_at IS NULL) GROUP BY 1, 2 HAVING count(*) > 1`);
  for (const s of slots) w.violations.push(`slot ${s.scheduled_for.toISOString()} of job ${s.job_id} ran ${s.n} times`);
  // counters equal a recount
  const counters = await q<{ id: string; total_runs: number; success_runs: number; failed_runs: number; total: number; success: number; failed: number }>(
    `SELECT j.id::text, j.total_runs, j.success_runs, j.failed_runs,
            (SELECT count(*)::int FROM runs r WHERE r.job_id = j.id::text AND r.status <> 'skipped') AS total,
            (SELECT count(*)::int FROM runs r WHERE r.job_id = j.id::text AND r.status = 'success') AS success,
            (SELECT count(*)::int FROM runs r WHERE r.job_id = j.id::text AND r.status IN ('failed', 'timeout')) AS failed
       FROM jobs j WHERE j.id = ANY($1::uuid[])`);
  for (const c of counters) {
    if (c.total_runs !== c.total || c.success_runs !== c.success || c.failed_runs !== c.failed) {
      w.violations.push(`job ${c.id} counters total/success/failed ${c.total_runs}/${c.success_runs}/${c.failed_runs}, recount ${c.total}/${c.success}/${c.failed}`);
    }
  }
  // one Idempotency-Key, one run
  for (const k of w.idemRuns) if (k.runIds.size > 1) w.violations.push(`Idempotency-Key ${k.key} made ${k.runIds.size} runs`);
  const oneAtATime = await q<{ run_id: string; what: string }>(`SELECT run_id, what FROM test_violations WHERE job_id = ANY($1::text[])`);
  for (const v of oneAtATime) w.violations.push(`run ${v.run_id}: ${v.what}`);
  const stats = await checkStats(t.db, { days: 3 }, w.at());
  for (const d of stats.drift) w.violations.push(`stats drift ${d.date} ${d.handler}: ${d.fields.join(', ')}`);
}

/** Resource-key conflicts of the last step whose holder the reaper did not reclaim (nor its key hold expire). */
async function judgeKeyConflicts(w: World): Promise<void> {
  for (const c of w.keyConflicts) {
    if (!c.holder.dead) {
      w.violations.push(`resource key ${c.holder.task.resourceKey} claimed for ${c.claimed} while ${c.holder.task.id}:${c.holder.task.attempt} (${c.holder.task.stepKey}) still holds it: ${await history(c.holder.task.id)}`);
    }
  }
  w.keyConflicts = [];
  for (const d of w.doubleClaims) {
    const k = d.split(' ')[0]!;
    const n = w.handedBack.get(k) ?? 0;
    if (n > 0) w.handedBack.set(k, n - 1);
    else w.violations.push(`attempt ${d} claimed twice`);
  }
  w.doubleClaims = [];
}

/** A task's rows and log, for a violation's message. */
async function history(taskId: string): Promise<string> {
  const task = await t.pool.query(`SELECT step_key, status::text, attempt, locked_by, lease_until, held, pending_parents, error FROM tasks WHERE id = $1`, [taskId]);
  const logs = await t.pool.query(`SELECT created_at, from_status::text, to_status::text, attempt, message FROM task_logs WHERE task_id = $1 ORDER BY id`, [taskId]);
  return JSON.stringify({ task: task.rows[0], logs: logs.rows });
}

async function deadlocks(): Promise<number> {
  const r = await t.pool.query<{ n: string }>(`SELECT deadlocks::text AS n FROM pg_stat_database WHERE datname = current_database()`);
  return Number(r.rows[0]!.n);
}

let caseNo = 0;

/** The jobs of one case: a scheduled DAG, a scheduled one-step job and a manual chain, sharing two resource keys across jobs. */
async function newWorld(strategies: Strategy[]): Promise<World> {
  caseNo++;
  const start = Date.parse('2026-12-01T00:00:00.000Z') + caseNo * 3_600_000;
  const w = new World(start);
  const policy = (s: Strategy) => ({ maxRetries: 1, blockStrategy: s, timeoutSeconds: 60, backoff: { baseSeconds: 1, factor: 1, maxSeconds: 1, jitter: 0 } });
  const dag = await createJob(t.db, {
    key: `race.dag.${caseNo}`, name: 'dag', schedule: { kind: 'cron', cron: '*/4 * * * * *', timezone: 'UTC' }, policy: policy(strategies[0]!),
    steps: [
      { key: 'a', handler: 'race.a' }, { key: 'b', handler: 'race.b', resourceKey: 'rk' }, { key: 'c', handler: 'race.c', resourceKey: 'rk2' },
      { key: 'd', handler: 'race.d' }, { key: 'f', handler: 'race.f' },
    ],
    edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c', type: 'soft' }, { from: 'b', to: 'd' }, { from: 'c', to: 'd' }, { from: 'd', to: 'f', type: 'on_failure' }],
  }, alice, w.at());
  const one = await createJob(t.db, {
    key: `race.one.${caseNo}`, name: 'one', schedule: { kind: 'cron', cron: '*/5 * * * * *', timezone: 'UTC' }, policy: policy(strategies[1]!),
    steps: [{ key: 'main', handler: 'race.one', resourceKey: 'rk' }],
  }, alice, w.at());
  const manual = await createJob(t.db, {
    key: `race.manual.${caseNo}`, name: 'manual', schedule: { kind: 'manual' }, policy: policy(strategies[2]!),
    steps: [{ key: 'm1', handler: 'race.manual', resourceKey: 'rk2' }, { key: 'm2', handler: 'race.manual', resourceKey: 'rk' }], edges: [{ from: 'm1', to: 'm2' }],
  }, alice, w.at());
  w.jobIds = [dag.id, one.id];
  w.manualJob = manual.id;
  return w;
}

describe('operator actions racing the engine', () => {
  it('every run ends once, consistent with its tasks; nothing doubled, stranded or drifting', { timeout: Number(process.env.RACE_TIMEOUT_MS ?? 180_000) }, async () => {
    const before = await deadlocks();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...STRATEGIES), { minLength: 3, maxLength: 3 }),
        fc.array(stepArb, { minLength: 8, maxLength: Number(process.env.RACE_STEPS ?? 24) }),
        async (strategies, steps) => {
          const started = Date.now();
          const w = await newWorld(strategies);
          for (const step of steps) {
            await Promise.all(step.actions.map((a, slot) => act(w, a, slot)));
            await judgeKeyConflicts(w);
            w.now += step.advanceMs;
          }
          const t0 = Date.now();
          await settle(w);
          await judgeKeyConflicts(w);
          const t1 = Date.now();
          await checkInvariants(w);
          if (process.env.RACE_DEBUG) console.log(`case ${caseNo}: ${steps.length} steps ${t0 - started} ms, settle ${t1 - t0} ms, check ${Date.now() - t1} ms`);
          expect(w.unexpected).toEqual([]);
          expect(w.violations).toEqual([]);
        },
      ),
      { seed: SEED, numRuns: Number(process.env.RACE_RUNS ?? 6), endOnFailure: true, verbose: 1 },
    );
    expect(await deadlocks()).toBe(before);
  });
});
