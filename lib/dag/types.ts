// Shapes shared by DAG validation, cycle detection and layout (docs/design.md §3 job_steps/job_edges, §4 dependency types).
// Pure types and constants: imported by the server (zod schemas in lib/api), the engine and the browser editor.

/**
 * Dependency type of an edge `parent -> child` (docs/design.md §4; SQL enum `dep_type`).
 * - `hard`: child becomes ready when the parent succeeds; skipped if the parent ends dead/timeout/cancelled.
 * - `soft`: child becomes ready when the parent reaches any final state.
 * - `on_failure`: child runs only if the parent ends unsuccessfully; skipped if it succeeds.
 */
export type DepType = 'hard' | 'soft' | 'on_failure';

/** Every dependency type, in the order the editor shows them. */
export const DEP_TYPES: readonly DepType[] = ['hard', 'soft', 'on_failure'] as const;

/** True when `value` is one of {@link DEP_TYPES}. */
export function isDepType(value: unknown): value is DepType {
  return value === 'hard' || value === 'soft' || value === 'on_failure';
}

/**
 * A step key: 1–64 characters, starting with a letter or digit, then letters, digits, `.`, `_` or `-`.
 * Unique per job (job_steps unique (job_id, key)); used in URLs, logs and edge endpoints, hence the tight alphabet.
 */
export const STEP_KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Maximum length of a step key (mirrors {@link STEP_KEY_RE}). */
export const STEP_KEY_MAX = 64;

/** The part of a step that the graph rules look at. */
export type DagStepRef = { key: string };

/** An edge between two step keys (`from` is the parent, `to` the child). */
export type DagEdgeRef = { from: string; to: string };

/** An edge with its dependency type, as stored in job_edges and sent over REST. */
export type DagEdge = DagEdgeRef & { type: DepType };

/** One validation problem; `path` is dotted into the input (`steps.2.key`, `edges.1.to`, `edges` for a cycle). */
export type DagError = { path: string; message: string };

/** Result of {@link validateDag}: a topological order when valid, else every problem found. */
export type DagValidation = { ok: true; order: string[] } | { ok: false; errors: DagError[] };
