// What the Versions tab's Compare shows (versions-panel.tsx): a diff of two versions' configurations (lib/jobs
// diff-versions.ts) grouped as an operator reads a job — schedule, steps (with their handler payload and config),
// edges, the other settings — with the status apart, since a pause or resume is not a configuration change.
import type { FieldChange } from './field-diff-table';

type StepLike = { key: string; handler: string };
type EdgeLike = { from: string; to: string; type: string };
/** lib/jobs SnapshotDiff as the console receives it. */
export type SnapshotDiffLike = {
  fields: FieldChange[];
  steps: { added: StepLike[]; removed: StepLike[]; changed: { key: string; fields: FieldChange[] }[] };
  edges: { added: EdgeLike[]; removed: EdgeLike[]; changed: { from: string; to: string; fields: FieldChange[] }[] };
};

export type DiffSection = { title: 'Schedule' | 'Steps' | 'Edges' | 'Job settings'; rows: FieldChange[] };
export type VersionDiffView = {
  /** sections with at least one row, in reading order */
  sections: DiffSection[];
  /** configuration changes, every section's rows */
  count: number;
  /** the status change (`active` → `paused`), shown apart; null when both have the same */
  status: { from: unknown; to: unknown } | null;
};

/** Job-level paths that make up when a job fires. */
const SCHEDULE_PATHS = /^(schedule(\.|$)|startAt$|endAt$|staggerSeconds$)/;

/** Groups a version diff into the sections the panel shows (empty sections left out) and the status apart. */
export function versionDiffView(diff: SnapshotDiffLike): VersionDiffView {
  const statusChange = diff.fields.find((f) => f.path === 'status');
  const fields = diff.fields.filter((f) => f.path !== 'status');
  const { steps, edges } = diff;
  const all: DiffSection[] = [
    { title: 'Schedule', rows: fields.filter((f) => SCHEDULE_PATHS.test(f.path)) },
    {
      title: 'Steps',
      rows: [
        ...steps.added.map((s) => ({ path: `steps.${s.key}`, from: undefined, to: s })),
        ...steps.removed.map((s) => ({ path: `steps.${s.key}`, from: s, to: undefined })),
        ...steps.changed.flatMap((s) => s.fields.map((f) => ({ path: `steps.${s.key}.${f.path}`, from: f.from, to: f.to }))),
      ],
    },
    {
      title: 'Edges',
      rows: [
        ...edges.added.map((e) => ({ path: `edges.${e.from}->${e.to}`, from: undefined, to: e.type })),
        ...edges.removed.map((e) => ({ path: `edges.${e.from}->${e.to}`, from: e.type, to: undefined })),
        ...edges.changed.flatMap((e) => e.fields.map((f) => ({ path: `edges.${e.from}->${e.to}.${f.path}`, from: f.from, to: f.to }))),
      ],
    },
    { title: 'Job settings', rows: fields.filter((f) => !SCHEDULE_PATHS.test(f.path)) },
  ];
  const sections = all.filter((s) => s.rows.length > 0);
  return { sections, count: sections.reduce((n, s) => n + s.rows.length, 0), status: statusChange ? { from: statusChange.from, to: statusChange.to } : null };
}

/** The line shown instead of a table when two versions have the same configuration. */
export function sameConfigurationNote(from: number, to: number, status: VersionDiffView['status']): string {
  const head = `v${from} and v${to} have the same configuration`;
  return status ? `${head}: only the status changed (${String(status.from)} → ${String(status.to)}). Tick a version whose change is create, update or rollback to see what it changed.` : `${head}.`;
}
