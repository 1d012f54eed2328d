import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import type { EdgeView, JobSnapshot, StepView } from './job-view.ts';
import { findJob } from './store.ts';
import { stepWithoutLayout } from './layout-rule.ts';
import { isJsonObject } from '../json-object.ts';

export type FieldChange = { path: string; from: unknown; to: unknown };
export type SnapshotDiff = {
  /** job-level fields (dot paths such as `schedule.cron`, `policy.backoff.factor`, `payload.x`) */
  fields: FieldChange[];
  /** steps added and removed as configured, without their box's position (layout-rule.ts) */
  steps: { added: Omit<StepView, 'position'>[]; removed: Omit<StepView, 'position'>[]; changed: { key: string; fields: FieldChange[] }[] };
  edges: { added: EdgeView[]; removed: EdgeView[]; changed: { from: string; to: string; fields: FieldChange[] }[] };
  /** flat summary: field paths, `steps.<key>`, `edges.<from>-><to>` */
  changedFields: string[];
};

const isPlain = isJsonObject;

/** Field-level differences between two plain values (objects recursed, arrays/scalars compared whole). */
export function diffValues(a: unknown, b: unknown, prefix = ''): FieldChange[] {
  if (isPlain(a) && isPlain(b)) {
    const out: FieldChange[] = [];
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) out.push(...diffValues(a[k], b[k], prefix ? `${prefix}.${k}` : k));
    return out;
  }
  if (JSON.stringify(a ?? null) === JSON.stringify(b ?? null)) return [];
  return [{ path: prefix, from: a ?? null, to: b ?? null }];
}

/** Diff of two job snapshots (fields, steps added/removed/changed by key, edges by from->to); step positions are layout and never a change (layout-rule.ts). */
export function diffSnapshots(a: JobSnapshot, b: JobSnapshot): SnapshotDiff {
  const { steps: sa = [], edges: ea = [], ...fa } = a;
  const { steps: sb = [], edges: eb = [], ...fb } = b;
  const fields = diffValues(fa, fb);
  const stepMapA = new Map(sa.map((s) => [s.key, s]));
  const stepMapB = new Map(sb.map((s) => [s.key, s]));
  const steps: SnapshotDiff['steps'] = { added: [], removed: [], changed: [] };
  for (const s of sb) if (!stepMapA.has(s.key)) steps.added.push(stepWithoutLayout(s));
  for (const s of sa) {
    const other = stepMapB.get(s.key);
    if (!other) steps.removed.push(stepWithoutLayout(s));
    else {
      // where its box sits is layout, not configuration (layout-rule.ts): never a change here
      const f = diffValues(stepWithoutLayout(s), stepWithoutLayout(other));
      if (f.length) steps.changed.push({ key: s.key, fields: f });
    }
  }
  const ek = (e: EdgeView) => `${e.from}->${e.to}`;
  const edgeMapA = new Map(ea.map((e) => [ek(e), e]));
  const edgeMapB = new Map(eb.map((e) => [ek(e), e]));
  const edges: SnapshotDiff['edges'] = { added: [], removed: [], changed: [] };
  for (const e of eb) if (!edgeMapA.has(ek(e))) edges.added.push(e);
  for (const e of ea) {
    const other = edgeMapB.get(ek(e));
    if (!other) edges.removed.push(e);
    else if (other.type !== e.type) edges.changed.push({ from: e.from, to: e.to, fields: [{ path: 'type', from: e.type, to: other.type }] });
  }
  const changedFields = [
    ...fields.map((f) => f.path),
    ...[...steps.added, ...steps.removed].map((s) => `steps.${s.key}`),
    ...steps.changed.map((s) => `steps.${s.key}`),
    ...[...edges.added, ...edges.removed].map((e) => `edges.${ek(e)}`),
    ...edges.changed.map((e) => `edges.${e.from}->${e.to}`),
  ];
  return { fields, steps, edges, changedFields };
}

export type VersionDiff = { jobId: string; from: number; to: number; diff: SnapshotDiff };

/**
 * Field-level diff of two stored versions of a job (works for jobs in the recycle bin too).
 * @throws DomainError('not_found') for an unknown job or version (field `from` / `to`).
 */
export async function diffVersions(db: Db, jobId: string, from: number, to: number, actor: Actor): Promise<VersionDiff> {
  requireCan(actor, 'read');
  await findJob(db, jobId, 'allow');
  const rows = await db.jobVersion.findMany({ where: { jobId, version: { in: [from, to] } } });
  const a = rows.find((r) => r.version === from);
  const b = rows.find((r) => r.version === to);
  if (!a) throw new DomainError('not_found', `Version ${from} not found`, { from: 'No such version' });
  if (!b) throw new DomainError('not_found', `Version ${to} not found`, { to: 'No such version' });
  return { jobId, from, to, diff: diffSnapshots(a.snapshot as unknown as JobSnapshot, b.snapshot as unknown as JobSnapshot) };
}
