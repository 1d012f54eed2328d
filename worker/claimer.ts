/**
 * Claimer service: moves ready tasks to this worker in batches of up to its
 * free concurrency slots — up to `prefetchMultiplier` times that while no backlog is known
 * (docs/on-time.md "Prefetch") — (engine claimTasks: one UPDATE ... WHERE id IN
 * (SELECT ... FOR UPDATE SKIP LOCKED) with routing enforced in SQL), and hands
 * them to the runner. It wakes on NOTIFY `tickflow_tasks` (see listener.ts) — at
 * once, or at the instant the payload names (a run created ahead of its slot, a
 * retry in backoff) — when a slot frees up while work is known to be waiting,
 * and at the earliest future schedule_at it knows of; otherwise it sleeps up to
 * the safety interval `pollMs`, whose pass also asks the database for that
 * earliest schedule_at (nextTaskDue), so a lost notification costs at most one
 * safety interval (docs/on-time.md). There is no per-task polling.
 * With `aheadMs` every such instant is brought forward by it: a claim then takes the tasks due
 * within `aheadMs` too, and the runner holds each until its start, counted as taking a slot
 * (docs/on-time.md "Claiming ahead").
 *
 * Lost answers (docs/engine.md "Lost answers"): a claim, or a completion that offered a hand-off,
 * may commit after this worker stopped waiting for its answer (a client-side query timeout, a
 * lost connection), assigning it tasks it never learns of. Such a failure makes the claimer
 * reconcile before its next claim, and again every RECONCILE_REPEAT_MS until the database has
 * answered for a lease period since (a statement the client gave up on may still commit on the
 * server meanwhile): with no claim or hand-off of its own in flight (the claim is this loop's;
 * hand-off offers are refused and awaited), it hands back, on the same attempt, every running task
 * of its node it does not know (releaseStrayTasks). Nothing of this runs while nothing failed.
 */
import type { Logger } from 'pino';
import type { EngineDb } from '../lib/db.ts';
import { performance } from 'node:perf_hooks';
import { claimTasks, nextTaskDue, releaseStrayTasks } from '../lib/engine/index.ts';
import { outcomeMayBeUnknown } from '../lib/pg-error-code.ts';
import type { DbHealth } from './db-health.ts';
import type { ClaimedTask } from '../lib/engine/types.ts';
import { ServiceLoop, SkippedPass } from './loop.ts';
import { WakeTimes } from './wake-times.ts';
import type { Runner, RunnableTask } from './runner.ts';

export interface ClaimerConfig {
  nodeId: string;
  group: string;
  labels: Record<string, string>;
  handlers: string[];
  /** handlers held only to fail clearly, claimed while no live node offers them (ClaimInput.fallbackHandlers) */
  fallbackHandlers?: string[];
  concurrency: number;
  leaseSeconds: number;
  pollMs: number;
  /** claim tasks due within this many ms, held by the runner until their start (ClaimInput.aheadMs; default 0) */
  aheadMs?: number;
  /**
   * How many tasks per free slot a claim may take while no backlog is known (the last claim found
   * fewer tasks than it asked for); those beyond the free slots wait in the runner for their
   * start and a free slot (default 1: none beyond; docs/on-time.md "Prefetch")
   */
  prefetchMultiplier?: number;
}

/** While watching for lost answers, the reconcile repeats at most this often (ms). */
export const RECONCILE_REPEAT_MS = 2_000;

/** How long a reconcile waits for the completions that offered a hand-off to be answered (ms) before it leaves it to the next pass. */
const RECONCILE_GATE_MS = 2_000;

/** The task_logs reason of a task handed back by the reconcile (releaseTasks: `handed back unstarted by <node>: <reason>`). */
export const LOST_ANSWER_REASON = 'the worker never got the answer of the claim or hand-off that gave it the task (database timeout or lost connection); not started, same attempt';

export class Claimer {
  private readonly loop: ServiceLoop;
  private paused = false;
  /** the last claim got every task it asked for: more work is probably waiting (no prefetch then) */
  private backlog = false;
  private slotWake: NodeJS.Timeout | null = null;
  /** future instants (epoch ms) when known tasks become claimable */
  private readonly wakes = new WakeTimes();
  /** clock() ms at which the next pass is a safety pass (also asks the database for due times) */
  private safetyAt = 0;

  /** the handlers whose ready tasks wake this claimer: its own and its fallbacks */
  private readonly dueHandlers: string[];
  /** how far ahead of their due instant tasks are claimed (ms) */
  private readonly aheadMs: number;
  /** tasks per free slot a claim may take when no backlog is known */
  private readonly prefetchMultiplier: number;

  /** a claim or hand-off failed with its outcome unknown: reconcile before the next claim */
  private reconcileDue = false;
  /** performance.now() of the last such failure; null: nothing to watch for */
  private uncertainSince: number | null = null;
  /** performance.now() at which a watching reconcile may run again */
  private nextReconcileAt = 0;
  /** a reconcile is in progress: no hand-off is offered (acceptsHandoff) */
  private reconciling = false;
  /** work the claims wait for (holdUntil), or null */
  private hold: Promise<void> | null = null;

  constructor(
    readonly config: ClaimerConfig,
    private readonly deps: { db: EngineDb; clock: () => Date; logger: Logger; runner: Runner; health?: DbHealth; onClaimed?: (tasks: ClaimedTask[]) => void },
  ) {
    this.dueHandlers = [...config.handlers, ...(config.fallbackHandlers ?? [])];
    this.aheadMs = Math.max(0, config.aheadMs ?? 0);
    this.prefetchMultiplier = Math.max(1, Math.floor(config.prefetchMultiplier ?? 1));
    this.loop = new ServiceLoop('claimer', config.pollMs, () => this.pass(), deps.logger, { health: deps.health });
  }

  /**
   * Claims nothing until `work` settles (its outcome ignored), then passes at once. After a
   * database outage, the ticker's catch-up withdraws the runs created ahead of a slot missed
   * meanwhile before this worker's claims could start them late (create-worker.ts; docs/on-time.md
   * "Look-ahead firing", row "misfire").
   */
  holdUntil(work: Promise<unknown>): void {
    const hold: Promise<void> = work.then(() => undefined, () => undefined).then(() => {
      if (this.hold === hold) this.hold = null;
      this.loop.wake();
    });
    this.hold = hold;
  }

  /** One loop pass: claim; then, unless work is waiting, the delay (ms) until the next pass. */
  private async pass(): Promise<boolean | number | SkippedPass> {
    // While the database is known to be away, no claim: the first statement to succeed after the
    // outage must not be a claim, which could start a run created ahead of a slot missed meanwhile
    // before the catch-up the worker runs when it sees the database again (holdUntil; DbHealth
    // probes and wakes this loop then). A skipped pass, not a success: it asked the database nothing.
    if (this.deps.health?.isDown) return new SkippedPass(this.config.pollMs);
    if (this.hold) await this.hold;
    if (!this.paused && this.reconcileWanted()) await this.reconcile();
    const now = this.deps.clock();
    let claim = true;
    if (now.getTime() >= this.safetyAt) {
      // The safety pass (a NOTIFY may have been lost): one cheap look at the ready queue decides
      // whether to claim now, sleep until a known due time, or sleep the whole interval.
      this.safetyAt = now.getTime() + this.config.pollMs;
      const due = this.paused ? null : await nextTaskDue(this.deps.db, { handlers: this.dueHandlers });
      if (!due) claim = false;
      else if (due.getTime() - this.aheadMs > now.getTime()) {
        this.wakes.add(due.getTime() - this.aheadMs);
        claim = false;
      }
    }
    if (claim) {
      // A fresh reading: a task that came due while the safety look was in flight would otherwise
      // look ahead of `now` and be claimed as held (ClaimInput.startNow), its start recorded late.
      const claimed = await this.runOnce(this.deps.clock());
      if (claimed > 0 && this.backlog) return true;
    }
    // Only instants the claim covered are forgotten: one that passed while the claim was in
    // flight (a timer that fired a little early) still gets its pass, at once.
    const next = this.wakes.next(now.getTime());
    const until = Math.min(this.safetyAt, next ?? Infinity);
    const delay = Math.max(0, until - this.deps.clock().getTime());
    // watching for a lost answer's late commit: pass again for the next reconcile
    return this.uncertainSince === null ? delay : Math.min(delay, Math.max(0, this.nextReconcileAt - performance.now()));
  }

  /** Claims up to the free slots at `now` (times the prefetch multiplier without a backlog) and hands them to the runner; returns how many were claimed. */
  async runOnce(now: Date): Promise<number> {
    if (this.paused || this.hold || this.deps.health?.isDown) return 0;
    const free = this.freeSlots();
    if (free <= 0) {
      this.backlog = true;
      return 0;
    }
    // Without a known backlog, the claim mostly takes tasks about to come due (a burst of slots
    // at one instant): up to `prefetchMultiplier` per free slot, those beyond the free slots
    // waiting in the runner and starting as slots free, without a claim round trip each. With a
    // backlog, only the free slots: a ready task left in the database can still go to another
    // worker. Per free slot, so a worker whose slots are busy takes little.
    const limit = this.backlog ? free : free * this.prefetchMultiplier;
    // The slots asked for stay counted until the claimed tasks hold them (runner.start, in the
    // same synchronous step as the reset below).
    this.claiming = limit;
    try {
      const tasks: ClaimedTask[] = await claimTasks(
        this.deps.db,
        {
          nodeId: this.config.nodeId,
          handlers: this.config.handlers,
          fallbackHandlers: this.config.fallbackHandlers ?? [],
          group: this.config.group,
          labels: this.config.labels,
          limit,
          // the tasks beyond the free slots wait in the runner: claimed `held`, their start recorded when it comes
          startNow: free,
          leaseSeconds: this.config.leaseSeconds,
          aheadMs: this.aheadMs,
        },
        now,
      ).catch((err: unknown) => {
        // It may have committed all the same: tasks now ours that we will never hear of.
        if (outcomeMayBeUnknown(err)) this.assignmentUncertain();
        throw err;
      });
      this.backlog = tasks.length >= limit;
      if (tasks.length) this.deps.onClaimed?.(tasks);
      if (this.paused) {
        // Stopped while the claim was in flight: run what we got anyway (it is ours now).
        this.deps.logger.info({ claimed: tasks.length }, 'claimer: claimed while stopping; running them');
      }
      // The ones to start at once first: the claim counted its `held` marks in this order
      // (ClaimInput.startNow), and a task claimed ahead whose instant passed during the claim
      // must not take a free slot before them.
      for (const t of tasks) if (!t.held) this.deps.runner.start(t);
      for (const t of tasks) if (t.held) this.deps.runner.start(t);
      return tasks.length;
    } finally {
      this.claiming = 0;
    }
  }

  /** True while this worker takes a DAG step handed off by its own completion: claiming, not reconciling, and a slot free. */
  acceptsHandoff(): boolean {
    return !this.paused && !this.reconciling && this.freeSlots() > 0;
  }

  /**
   * A statement that may assign tasks to this worker — its claim, or a completion that offered
   * a hand-off (Runner onHandoffUncertain) — failed with its outcome unknown (outcomeMayBeUnknown):
   * the next pass reconciles first, and passes keep reconciling while a late commit is possible.
   */
  assignmentUncertain(): void {
    this.reconcileDue = true;
    this.uncertainSince = performance.now();
    this.nextReconcileAt = 0;
    this.loop.wake();
  }

  /** A reconcile is due: after a failure, or while watching for a late commit (at most every RECONCILE_REPEAT_MS). */
  private reconcileWanted(): boolean {
    return this.reconcileDue || (this.uncertainSince !== null && performance.now() >= this.nextReconcileAt);
  }

  /**
   * Hands back the running tasks of this node the worker does not know (releaseStrayTasks), once
   * no statement that may still bring it tasks awaits its answer: the claim is this loop's own
   * (not in flight during a pass), and hand-offs are refused from now on while those already
   * offered are awaited (Runner.reserved). Throws what the statements throw (the loop backs off;
   * the reconcile stays due). Stops watching once a reconcile found nothing after the database had
   * answered for a lease period since the last uncertain outcome: a statement the client gave up
   * on has ended on the server by then (its statement_timeout, lib/db-timeouts.ts), and until
   * then the reaper does not reclaim anything either (worker/reaper.ts).
   */
  private async reconcile(): Promise<void> {
    this.reconciling = true;
    try {
      const gateUntil = performance.now() + RECONCILE_GATE_MS;
      while (this.deps.runner.reserved > 0) {
        if (performance.now() >= gateUntil) return; // busy: the next pass tries again
        await new Promise((r) => setTimeout(r, 5));
      }
      const startedAt = performance.now();
      const wasDue = this.reconcileDue;
      this.reconcileDue = false;
      let res: Awaited<ReturnType<typeof releaseStrayTasks>>;
      try {
        res = await releaseStrayTasks(
          this.deps.db,
          { nodeId: this.config.nodeId, knownTaskIds: this.deps.runner.knownTaskIds(), reason: LOST_ANSWER_REASON },
          this.deps.clock(),
        );
      } catch (err) {
        if (wasDue) this.reconcileDue = true;
        throw err;
      }
      this.nextReconcileAt = performance.now() + RECONCILE_REPEAT_MS;
      if (res.found.length > 0) {
        this.deps.logger.warn(
          { tasks: res.found, handedBack: res.handedBack },
          'claimer: tasks assigned to this worker by a statement whose answer was lost, handed back unstarted on the same attempt',
        );
      }
      const leaseMs = this.config.leaseSeconds * 1000;
      const quietMs = Math.min(this.deps.health?.reachableForMs() ?? Infinity, startedAt - (this.uncertainSince ?? startedAt));
      if (res.found.length === 0 && !this.reconcileDue && quietMs >= leaseMs) this.uncertainSince = null;
    } finally {
      this.reconciling = false;
    }
  }

  /** Slots the claim in flight asked for (taken until its tasks start). */
  private claiming = 0;

  /**
   * Slots neither taken by a task this worker holds (running, or claimed and waiting for its
   * start), nor promised to a hand-off a completion in flight may bring (Runner.reserved), nor
   * asked for by the claim in flight: what a claim or an offer may still take. Negative while
   * prefetched tasks wait for slots: nothing more is claimed until they have started.
   */
  private freeSlots(): number {
    return this.config.concurrency - this.deps.runner.count - this.deps.runner.reserved - this.claiming;
  }

  /**
   * NOTIFY arrived: something became ready, now (`at` null or past) or at `at` (epoch ms by
   * the worker's clock): the pass is brought forward to then.
   */
  wake(at: number | null = null): void {
    // A task due at `at` is claimed `aheadMs` before it (and held by the runner until then).
    const claimAt = at === null ? 0 : at - this.aheadMs;
    const delay = claimAt - this.deps.clock().getTime();
    if (at === null || delay <= 0) {
      this.loop.wake();
      return;
    }
    this.wakes.add(claimAt);
    this.loop.wakeIn(delay);
  }

  /**
   * A slot freed up (an attempt ended, or a slot offered to a completion for a hand-off came
   * back unused: Runner onSlotFree): claim again if work was waiting. Completions are batched
   * into one claim: at once when half the slots are free, else after a few ms,
   * so a busy worker claims several tasks per round trip instead of one.
   */
  slotFree(): void {
    if (!this.backlog || this.paused || this.slotWake) return;
    const free = this.freeSlots();
    if (free >= Math.ceil(this.config.concurrency / 2)) {
      this.loop.wake();
      return;
    }
    this.slotWake = setTimeout(() => {
      this.slotWake = null;
      this.loop.wake();
    }, 15);
  }

  start(): void {
    this.paused = false;
    this.loop.start();
  }

  /** Stops claiming (drain); running attempts are not touched. */
  async stop(): Promise<void> {
    this.paused = true;
    if (this.slotWake) clearTimeout(this.slotWake);
    this.slotWake = null;
    await this.loop.stop();
  }
}
