/**
 * Maps validated inputs (lib/api/schemas.ts) onto jobs/job_steps/job_edges
 * columns, fills defaults, computes next_run_at. Pure (no DB).
 */
import type { Job } from '../generated/prisma/client.ts';
import type { CreateJobInput, EdgeInput, PolicyInput, RoutingInput, ScheduleInput, StepInput, AlarmsInput } from '../api/schemas.ts';
import { layoutDag } from '../dag/index.ts';
import { DomainError } from '../errors.ts';
import { dueTimesAfter, neverFiresProblem } from '../schedule/index.ts';
import { alarmsView, DEFAULT_ALARMS, jobScheduleOf, type JobScheduleColumns, policyView, routingView, type AlarmsView, type PolicyView, type RoutingView, type StepFields } from './job-view.ts';

/** Defaults of a new job (mirror the column defaults of the init migration). */
export const JOB_DEFAULTS = {
  policy: {
    timeoutSeconds: 300,
    maxRetries: 0,
    backoff: { baseSeconds: 1, factor: 2, maxSeconds: 300, jitter: 0.1 },
    blockStrategy: 'discard_later',
    misfirePolicy: 'fire_once',
    misfireMaxCatchup: 10,
    deadLetterAfter: 0,
    priority: 0,
  } satisfies PolicyView,
  routing: { nodeGroup: null, labels: {}, strategy: 'any', nodes: [], key: null } satisfies RoutingView,
  alarms: DEFAULT_ALARMS,
} as const;

export type ScheduleColumns = Pick<Job, 'scheduleKind' | 'cronExpression' | 'timezone' | 'intervalSeconds' | 'runAt'>;

export function scheduleColumns(s: ScheduleInput): ScheduleColumns {
  switch (s.kind) {
    case 'cron':
      return { scheduleKind: 'cron', cronExpression: s.cron, timezone: s.timezone ?? 'UTC', intervalSeconds: null, runAt: null };
    case 'interval':
      return { scheduleKind: 'interval', cronExpression: null, timezone: s.timezone ?? 'UTC', intervalSeconds: s.intervalSeconds, runAt: null };
    case 'once':
      return { scheduleKind: 'once', cronExpression: null, timezone: s.timezone ?? 'UTC', intervalSeconds: null, runAt: s.runAt };
    case 'manual':
      return { scheduleKind: 'manual', cronExpression: null, timezone: 'UTC', intervalSeconds: null, runAt: null };
  }
}

export type PolicyColumns = Pick<
  Job,
  | 'timeoutSeconds'
  | 'maxRetries'
  | 'backoffBaseSeconds'
  | 'backoffFactor'
  | 'backoffMaxSeconds'
  | 'backoffJitter'
  | 'blockStrategy'
  | 'misfirePolicy'
  | 'misfireMaxCatchup'
  | 'deadLetterAfter'
  | 'priority'
>;

/**
 * `p` merged key by key over `base`.
 * @throws DomainError('validation') when `p` sets a backoff whose maxSeconds ends below its baseSeconds
 *   (merged): every retry's delay is min(maxSeconds, baseSeconds·factor^(attempt−1)) (README "Scheduling
 *   semantics", lib/schedule/backoff.ts retryDelayMs), so the base would never be waited and the factor never
 *   counted. Named at the field the request set (maxSeconds when it set both); a backoff stored before
 *   this rule stays as it is while a change leaves the backoff alone.
 */
export function policyColumns(p: PolicyInput | undefined, base: PolicyView = JOB_DEFAULTS.policy): PolicyColumns {
  const b = { ...base.backoff, ...stripUndefined(p?.backoff ?? {}) };
  if (p?.backoff && b.maxSeconds < b.baseSeconds) {
    const [field, message] = p.backoff.maxSeconds !== undefined
      ? ['policy.backoff.maxSeconds', `Must be at least baseSeconds (${b.baseSeconds}): maxSeconds caps every retry's delay`]
      : ['policy.backoff.baseSeconds', `Must be at most maxSeconds (${b.maxSeconds}), which caps every retry's delay: raise maxSeconds too`];
    throw new DomainError('validation', `${field}: ${message}`, { [field]: message });
  }
  return {
    timeoutSeconds: p?.timeoutSeconds ?? base.timeoutSeconds,
    maxRetries: p?.maxRetries ?? base.maxRetries,
    backoffBaseSeconds: b.baseSeconds,
    backoffFactor: b.factor,
    backoffMaxSeconds: b.maxSeconds,
    backoffJitter: b.jitter,
    blockStrategy: p?.blockStrategy ?? base.blockStrategy,
    misfirePolicy: p?.misfirePolicy ?? base.misfirePolicy,
    misfireMaxCatchup: p?.misfireMaxCatchup ?? base.misfireMaxCatchup,
    deadLetterAfter: p?.deadLetterAfter ?? base.deadLetterAfter,
    priority: p?.priority ?? base.priority,
  };
}

export type RoutingColumns = Pick<Job, 'routingNodeGroup' | 'routingLabels' | 'routingStrategy' | 'routingNodes' | 'routingKey'>;

/**
 * The routing columns of `r` merged over `base` (a PATCH keeps what it leaves out). The node list
 * belongs to strategy `nodes` and the key to `consistent_hash` (lib/engine/sql/claim-routing.ts):
 * under another strategy they would be stored and never read, so one kept from `base` when the
 * strategy changes is dropped, and one given with another strategy is refused.
 * @throws DomainError('validation', …, { 'routing.nodes' }) when the result is strategy `nodes` with no
 *   node listed: no worker could ever claim such a job's tasks, which would wait forever in silence (as
 *   an unknown handler would, which is refused for the same reason); ({ 'routing.nodes' } or
 *   { 'routing.key' }) for a list or key given with a strategy that does not use it. A node group,
 *   labels or node ids no worker carries now are accepted: a worker may start with them later.
 */
export function routingColumns(r: RoutingInput | undefined, base: RoutingView = JOB_DEFAULTS.routing): RoutingColumns {
  const strategy = r?.strategy ?? base.strategy;
  const fields: Record<string, string> = {};
  if (r?.nodes?.length && strategy !== 'nodes') fields['routing.nodes'] = `Only strategy nodes reads a node list (this job's is ${strategy})`;
  if (r?.key && strategy !== 'consistent_hash') fields['routing.key'] = `Only strategy consistent_hash reads a key (this job's is ${strategy})`;
  const nodes = strategy === 'nodes' ? (r?.nodes ?? base.nodes) : [];
  if (strategy === 'nodes' && nodes.length === 0) {
    fields['routing.nodes'] = 'Strategy nodes needs at least one node id: with none, no worker may ever run this job\'s tasks';
  }
  const problems = Object.entries(fields);
  if (problems.length) throw new DomainError('validation', problems.map(([k, m]) => `${k}: ${m}`).join('; '), fields);
  return {
    routingNodeGroup: r?.nodeGroup !== undefined ? r.nodeGroup || null : base.nodeGroup,
    routingLabels: r?.labels ?? base.labels,
    routingStrategy: strategy,
    routingNodes: nodes,
    routingKey: strategy === 'consistent_hash' ? (r?.key !== undefined ? r.key || null : base.key) : null,
  };
}

export function alarmConfig(a: AlarmsInput | undefined, base: AlarmsView = JOB_DEFAULTS.alarms): AlarmsView {
  return {
    onFailure: a?.onFailure ?? base.onFailure,
    onTimeout: a?.onTimeout ?? base.onTimeout,
    onDeadLetter: a?.onDeadLetter ?? base.onDeadLetter,
    onSuccess: a?.onSuccess ?? base.onSuccess,
    channels: a?.channels ?? base.channels,
  };
}

export type StepRow = StepFields & { positionX: number; positionY: number };
export type EdgeRow = { fromStep: string; toStep: string; depType: 'hard' | 'soft' | 'on_failure' };

/**
 * Steps + edges rows from input. Steps without a position are laid out
 * (left to right, lib/dag layoutDag: dagre, or its linear fallback for large graphs) so the DAG editor opens tidy.
 */
export function graphRows(steps: StepInput[], edges: EdgeInput[]): { steps: StepRow[]; edges: EdgeRow[] } {
  const edgeRows: EdgeRow[] = edges.map((e) => ({ fromStep: e.from, toStep: e.to, depType: e.type ?? 'hard' }));
  const needLayout = steps.some((s) => !s.position);
  const layout = needLayout
    ? layoutDag(
        steps.map((s) => ({ id: s.key })),
        edgeRows.map((e) => ({ source: e.fromStep, target: e.toStep })),
        { direction: 'LR' },
      )
    : {};
  return {
    steps: steps.map((s) => ({
      key: s.key,
      name: s.name ?? '',
      handler: s.handler,
      payload: s.payload ?? {},
      config: s.config ?? {},
      timeoutSeconds: s.timeoutSeconds ?? null,
      maxRetries: s.maxRetries ?? null,
      resourceKey: s.resourceKey ?? null,
      positionX: s.position?.x ?? layout[s.key]?.x ?? 0,
      positionY: s.position?.y ?? layout[s.key]?.y ?? 0,
    })),
    edges: edgeRows,
  };
}

/**
 * `steps` with each missing position filled in as graphRows lays it out (the same layout of the
 * same graph), so that the layout (up to a few hundred ms of CPU) is done before a transaction
 * opens; `steps` itself when every step has one.
 */
export function withPositions(steps: StepInput[], edges: EdgeInput[]): StepInput[] {
  if (steps.every((s) => s.position)) return steps;
  const rows = graphRows(steps, edges).steps;
  return steps.map((s, i) => (s.position ? s : { ...s, position: { x: rows[i]!.positionX, y: rows[i]!.positionY } }));
}

/**
 * Applies the handler shorthand: `{handler, payload}` -> one step `main` (job payload {}).
 * On an update, pass the job's `current` steps: when it is a one-step job (its only step
 * is `main`, no edges — what the shorthand creates) and the change names no steps or
 * edges, `payload` replaces that step's payload and `handler` its handler, keeping the
 * other and the step's config, timeout, retries and resource key. (Otherwise a `payload`
 * alone would set the job-level payload, which the step's own payload overrides, and a
 * `handler` alone would reset the step payload.) On a DAG `payload` stays the job-level
 * payload shared by every step, and `handler` without `steps` is refused: it would replace the
 * whole graph with one step, which a PATCH meant for one step must not do by surprise (send `steps`
 * and `edges` to replace a graph).
 * @throws DomainError('validation', …, { handler }) for `handler` without `steps` on a job of several steps
 */
export function stepsOf(
  input: Pick<CreateJobInput, 'handler' | 'payload' | 'steps'> & { edges?: unknown },
  current?: { steps: StepInput[]; edgeCount: number },
): { steps: StepInput[] | undefined; jobPayload: Record<string, unknown> | undefined } {
  const only = current && current.steps.length === 1 && current.edgeCount === 0 && current.steps[0]!.key === 'main' ? current.steps[0]! : null;
  if (only && !input.steps && !input.edges && (input.handler !== undefined || input.payload !== undefined)) {
    return { steps: [{ ...only, handler: input.handler ?? only.handler, payload: input.payload ?? only.payload }], jobPayload: undefined };
  }
  if (input.handler !== undefined && !input.steps && current && current.steps.length > 1) {
    const message = `This job has ${current.steps.length} steps: handler would replace them all with one step. Send steps (and edges) to replace the graph, or change a step in the DAG editor`;
    throw new DomainError('validation', message, { handler: message });
  }
  if (input.handler) return { steps: [{ key: 'main', handler: input.handler, payload: input.payload ?? {} }], jobPayload: {} };
  return { steps: input.steps, jobPayload: input.payload };
}

/**
 * The first due instant (nominal + stagger) strictly after `now`, for jobs.next_run_at on create,
 * edit, resume and restore; null for manual jobs and exhausted schedules. Due, not nominal, as the
 * tick compares (lib/schedule/stagger.ts dueTimesAfter): an hourly job with a 21-minute offset saved
 * at 10:10 fires its 10:00 slot at 10:21, not first at 11:21.
 */
export function computeNextRunAt(job: JobScheduleColumns, now: Date): Date | null {
  const schedule = jobScheduleOf(job);
  try {
    const next = dueTimesAfter(schedule, now).next();
    return next.done ? null : next.value;
  } catch {
    return null;
  }
}

/**
 * Refuses a schedule that can never fire again (lib/schedule/never-fires.ts neverFiresProblem names
 * the field: `endAt`, `schedule.runAt`, `schedule.cron`, `schedule`). Called on create and whenever an
 * update changes the schedule or window, whatever the job's status (a paused job must be able to
 * fire once resumed).
 * @throws DomainError('validation') naming the field.
 */
export function assertCanFire(job: JobScheduleColumns, now: Date): void {
  const problem = canFireProblem(job, now);
  if (problem) throw new DomainError('validation', `Invalid ${problem.field}: ${problem.message}`, { [problem.field]: problem.message });
}

/**
 * Why a job's schedule can never fire again after `now` (the field to blame and why: `schedule.runAt`,
 * `schedule.cron`, `endAt`…), or null when it can fire, or is manual: the rule assertCanFire applies on
 * save, for the paths that make a job active without a save (resume refuses, restore pauses the job).
 * A schedule whose remaining slots all become due, with the job's stagger offset, after
 * 9999-12-31T23:59:59Z (the last instant Tickflow stores, lib/schedule/stagger.ts dueInstant) never
 * fires either: named at `staggerSeconds`, the setting that moved them there.
 */
export function canFireProblem(job: JobScheduleColumns, now: Date): { field: string; message: string } | null {
  if (job.scheduleKind === 'manual') return null;
  const problem = neverFiresProblem(jobScheduleOf(job), now);
  if (problem || computeNextRunAt(job, now)) return problem;
  return { field: 'staggerSeconds', message: 'Moves every remaining fire time past 9999-12-31T23:59:59Z, the last instant Tickflow stores: this job would never fire' };
}

/** True when a change touches what next_run_at depends on. */
export function scheduleChanged(before: Job, after: Job): boolean {
  const k = (j: Job) =>
    JSON.stringify([j.scheduleKind, j.cronExpression, j.timezone, j.intervalSeconds, j.runAt?.getTime(), j.startAt?.getTime(), j.endAt?.getTime(), j.staggerSeconds]);
  return k(before) !== k(after);
}

export { policyView, routingView, alarmsView };

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
