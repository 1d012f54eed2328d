/**
 * Fixtures for the engine's integration tests: jobs inserted directly (the
 * lib/jobs createJob is not a dependency of the engine), a fixed clock,
 * and small drivers for claim/complete.
 */
import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../lib/db.ts';
import { claimTasks, completeTask } from '../../lib/engine/index.ts';
import type { ClaimedTask } from '../../lib/engine/index.ts';

export const T0 = new Date('2026-03-01T10:00:00.000Z');
export const at = (ms: number) => new Date(T0.getTime() + ms);

export interface StepSpec {
  key: string;
  handler?: string;
  payload?: Record<string, unknown>;
  maxRetries?: number | null;
  timeoutSeconds?: number | null;
  resourceKey?: string | null;
}
export interface JobSpec {
  key?: string;
  steps?: StepSpec[];
  edges?: { from: string; to: string; type?: 'hard' | 'soft' | 'on_failure' }[];
  blockStrategy?: 'discard_later' | 'serial_execution' | 'cover_early';
  maxRetries?: number;
  deadLetterAfter?: number;
  priority?: number;
  payload?: Record<string, unknown>;
  backoffBaseSeconds?: number;
  routingNodeGroup?: string | null;
  routingLabels?: Record<string, string>;
  routingStrategy?: 'any' | 'consistent_hash' | 'nodes';
  routingNodes?: string[];
  routingKey?: string | null;
}

/** Inserts a manual job with its steps and edges; backoff without jitter so retry times are exact. */
export async function insertJob(db: PrismaClient, spec: JobSpec = {}): Promise<string> {
  const steps = spec.steps ?? [{ key: 'main' }];
  const job = await db.job.create({
    data: {
      key: spec.key ?? `job.${randomBytes(5).toString('hex')}`,
      name: 'engine test job',
      scheduleKind: 'manual',
      blockStrategy: spec.blockStrategy ?? 'discard_later',
      maxRetries: spec.maxRetries ?? 0,
      deadLetterAfter: spec.deadLetterAfter ?? 0,
      priority: spec.priority ?? 0,
      payload: (spec.payload ?? {}) as object,
      backoffBaseSeconds: spec.backoffBaseSeconds ?? 1,
      backoffFactor: 2,
      backoffMaxSeconds: 300,
      backoffJitter: 0,
      routingNodeGroup: spec.routingNodeGroup ?? null,
      routingLabels: (spec.routingLabels ?? {}) as object,
      routingStrategy: spec.routingStrategy ?? 'any',
      routingNodes: spec.routingNodes ?? [],
      routingKey: spec.routingKey ?? null,
      steps: {
        create: steps.map((s) => ({
          key: s.key,
          handler: s.handler ?? 'test.work',
          payload: (s.payload ?? {}) as object,
          maxRetries: s.maxRetries ?? null,
          timeoutSeconds: s.timeoutSeconds ?? null,
          resourceKey: s.resourceKey ?? null,
        })),
      },
    },
  });
  if (spec.edges?.length) {
    await db.jobEdge.createMany({
      data: spec.edges.map((e) => ({ jobId: job.id, fromStep: e.from, toStep: e.to, depType: e.type ?? 'hard' })),
    });
  }
  return job.id;
}

export const NODE = { nodeId: 'node-a', handlers: ['test.work', 'builtin.noop'], group: 'default', labels: {}, limit: 100, leaseSeconds: 30 };

export function claim(db: PrismaClient, now: Date, over: Partial<typeof NODE> = {}): Promise<ClaimedTask[]> {
  return claimTasks(db, { ...NODE, ...over }, now);
}

/** Claims the given step of a run (it must be ready) and returns the claimed task. */
export async function claimStep(db: PrismaClient, runId: string, stepKey: string, now: Date, nodeId = NODE.nodeId): Promise<ClaimedTask> {
  const claimed = await claim(db, now, { nodeId, limit: 1000 });
  const mine = claimed.find((t) => t.runId === runId && t.stepKey === stepKey);
  // Claims are final: callers use this only when the step is the one ready task (or accept the others running).
  if (!mine) throw new Error(`step ${stepKey} of run ${runId} was not claimable; claimed: ${claimed.map((c) => c.stepKey).join(',')}`);
  return mine;
}

/** Claims everything ready now and completes each with `outcomes[stepKey]` (default success), repeatedly, until nothing is ready. */
export async function drive(
  db: PrismaClient,
  now: Date,
  outcomes: Record<string, 'success' | 'failed' | 'timeout'> = {},
  handlers: string[] = NODE.handlers,
  maxRounds = 100,
): Promise<string[]> {
  const order: string[] = [];
  for (let i = 0; i < maxRounds; i++) {
    const claimed = await claim(db, now, { limit: 1000, handlers });
    if (claimed.length === 0) return order;
    for (const t of claimed) {
      const outcome = outcomes[t.stepKey] ?? 'success';
      await completeTask(db, { taskId: t.id, attempt: t.attempt, nodeId: NODE.nodeId, outcome, error: outcome === 'success' ? null : `${t.stepKey} ${outcome}` }, now);
      order.push(t.stepKey);
    }
  }
  throw new Error('drive: did not settle');
}

export async function tasksOf(db: PrismaClient, runId: string): Promise<Record<string, { id: string; status: string; attempt: number; pendingParents: number; error: string | null }>> {
  const rows = await db.task.findMany({ where: { runId } });
  return Object.fromEntries(rows.map((t) => [t.stepKey, { id: t.id, status: t.status, attempt: t.attempt, pendingParents: t.pendingParents, error: t.error }]));
}

export async function statusesOf(db: PrismaClient, runId: string): Promise<Record<string, string>> {
  const t = await tasksOf(db, runId);
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v.status]));
}

export async function logsOf(db: PrismaClient, taskId: string) {
  return db.taskLog.findMany({ where: { taskId }, orderBy: { id: 'asc' } });
}
