// Pure model of the DAG editor: conversions between the job's steps/edges (props, onSave) and React Flow's
// nodes/edges, per-field validation, the connection rule used while dragging, the snapshot that drives the
// "Unsaved changes" indicator, and the editor's state reducer with undo/redo (editorReducer). No React components
// or DOM here, so it is unit-tested (model.test.ts) in node.
import { applyEdgeChanges, applyNodeChanges, type Edge, type EdgeChange, type MarkerType, type Node, type NodeChange } from '@xyflow/react';
import { layoutDag, STEP_KEY_RE, wouldCreateCycle, formatCycle, type DepType } from '@/lib/dag';
import { jsonTextProblem } from '@/lib/api/json-guard';

/**
 * A step as the editor receives and saves it (lib/jobs StepView / lib/api StepInput).
 * `payload` is merged into the task's payload at run time; `config` is the handler's settings (e.g. the sql
 * executor's connection). `timeoutSeconds` / `maxRetries` null = inherit the job's policy; `resourceKey` null = none.
 * `position` is the editor's top-left position in px (job_steps.position_x/y).
 */
export type StepDraft = {
  key: string;
  name?: string;
  handler: string;
  payload?: Record<string, unknown>;
  config?: Record<string, unknown>;
  timeoutSeconds?: number | null;
  maxRetries?: number | null;
  resourceKey?: string | null;
  position?: { x: number; y: number };
};

/** An edge as the editor receives and saves it: `from` (parent step key) -> `to` (child), dependency type (docs/design.md §4). */
export type EdgeDraft = { from: string; to: string; type: DepType };

/** What onSave receives: every step (with its position, in the editor's order) and every edge. */
export type DagDraft = {
  steps: (Required<Pick<StepDraft, 'key' | 'name' | 'handler' | 'payload' | 'config' | 'position'>> & {
    timeoutSeconds: number | null;
    maxRetries: number | null;
    resourceKey: string | null;
  })[];
  edges: EdgeDraft[];
};

/**
 * Result of onSave. `fields` maps dotted paths into the saved DagDraft (`steps.2.key`, `edges`, ...) to messages,
 * as lib/api zod errors and lib/dag validateDag report them; the editor shows them next to the matching field.
 * `newVersion: false`: the save stored the layout only (boxes moved), which makes no job version
 * (lib/jobs/layout-rule.ts); the editor says so instead of "Saved as a new job version".
 */
export type SaveDagResult = { ok: true; newVersion?: boolean } | { ok: false; error: string; fields?: Record<string, string> };

/**
 * The editable state of one step node. Number and JSON fields are kept as the text the operator typed, so a
 * half-typed value can be shown with its error instead of being lost; they are parsed on save.
 */
export type StepNodeData = {
  key: string;
  name: string;
  handler: string;
  payloadText: string;
  configText: string;
  timeoutText: string;
  retriesText: string;
  resourceKey: string;
  /** Client-side problems with this step, keyed by {@link StepField}; drawn on the card, listed in the panel. */
  errors?: Partial<Record<StepField, string>>;
};

/** Fields of the side panel that can carry an error. */
export type StepField = 'key' | 'name' | 'handler' | 'payload' | 'config' | 'timeoutSeconds' | 'maxRetries' | 'resourceKey';

/** Each step field's label in the side panel (SidePanel), which the banner's messages name it by too. */
export const STEP_FIELD_LABELS: Record<StepField, string> = {
  key: 'Key',
  name: 'Name',
  handler: 'Handler',
  payload: 'Payload (JSON object)',
  config: 'Config (JSON object)',
  timeoutSeconds: 'Timeout (s)',
  maxRetries: 'Max retries',
  resourceKey: 'Resource key',
};

/** A step field as an error message names it: `Step "load", Timeout (s)` (the panel's label, never `timeoutSeconds`). */
export function describeStepField(stepKey: string, field?: StepField): string {
  return `Step "${stepKey}"${field ? `, ${STEP_FIELD_LABELS[field]}` : ''}`;
}

/** The editor's node union (one kind today; a union keeps room for groups/notes later, as xyflow's AppNode does). */
export type StepNode = Node<StepNodeData, 'step'>;
/** Any node the editor renders. */
export type DagNode = StepNode;

/** Data of a dependency edge. */
/** `active`: the run graph's edge into a running task (drawn with a pulse, its type's look kept). */
export type DepEdgeData = { type: DepType; active?: boolean };
/** The editor's edge union: a typed dependency. */
export type DepEdge = Edge<DepEdgeData, 'dep'>;

/** Look and label of each dependency type: hard = solid dark, soft = dashed, on_failure = red dotted. */
export const EDGE_STYLES: Record<DepType, { label: string; stroke: string; dash?: string; hint: string }> = {
  hard: { label: 'hard', stroke: 'var(--color-slate-700, #334155)', hint: 'runs after the parent succeeds; skipped if it fails for good' },
  soft: { label: 'soft', stroke: '#64748b', dash: '7 5', hint: 'runs after the parent finishes, whatever the outcome' },
  on_failure: { label: 'on failure', stroke: '#dc2626', dash: '1.5 5', hint: 'runs only if the parent fails (rollback / compensation)' },
};

const ROUND = (n: number) => Math.round(n);

/** Pretty JSON for a textarea (2-space indent; `{}` stays on one line). */
export function jsonText(value: unknown): string {
  if (value === undefined || value === null) return '{}';
  if (typeof value === 'object' && Object.keys(value as object).length === 0) return '{}';
  return JSON.stringify(value, null, 2);
}

/** Parses a JSON object (not an array, not null, no key written twice). Empty text is `{}`. */
export function parseJsonObject(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `Invalid JSON: ${(e as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, error: 'Must be a JSON object, e.g. {"x": 1}' };
  const duplicate = jsonTextProblem(text);
  if (duplicate) return { ok: false, error: duplicate };
  return { ok: true, value: value as Record<string, unknown> };
}

/** Parses an optional integer field: blank = null (inherit); else an integer within [min, max]. */
export function parseOptionalInt(text: string, min: number, max: number, what: string): { ok: true; value: number | null } | { ok: false; error: string } {
  const t = text.trim();
  if (t === '') return { ok: true, value: null };
  if (!/^-?\d+$/.test(t)) return { ok: false, error: `${what} must be a whole number` };
  const n = Number(t);
  if (n < min || n > max) return { ok: false, error: `${what} must be between ${min} and ${max}` };
  return { ok: true, value: n };
}

/** Limits mirrored from lib/api StepInput so the panel shows the server's rule before saving. */
export const STEP_LIMITS = { timeoutMax: 7 * 86400, retriesMax: 100, nameMax: 200, handlerMax: 200, resourceKeyMax: 200 } as const;

/**
 * Problems with one step's fields. `otherKeys` = keys of the other steps (for uniqueness).
 * Messages match lib/api StepInput / lib/dag validateDag.
 */
export function stepFieldErrors(d: StepNodeData, otherKeys: ReadonlySet<string>): Partial<Record<StepField, string>> {
  const errors: Partial<Record<StepField, string>> = {};
  if (!STEP_KEY_RE.test(d.key)) errors.key = 'Step key must be 1-64 characters: letters, digits, ".", "_" or "-", starting with a letter or digit';
  else if (otherKeys.has(d.key)) errors.key = `Duplicate step key "${d.key}"`;
  if (d.name.length > STEP_LIMITS.nameMax) errors.name = `At most ${STEP_LIMITS.nameMax} characters`;
  if (d.handler.trim() === '') errors.handler = 'Handler is required';
  else if (d.handler.length > STEP_LIMITS.handlerMax) errors.handler = `At most ${STEP_LIMITS.handlerMax} characters`;
  const p = parseJsonObject(d.payloadText);
  if (!p.ok) errors.payload = p.error;
  const c = parseJsonObject(d.configText);
  if (!c.ok) errors.config = c.error;
  const t = parseOptionalInt(d.timeoutText, 1, STEP_LIMITS.timeoutMax, 'Timeout');
  if (!t.ok) errors.timeoutSeconds = t.error;
  const r = parseOptionalInt(d.retriesText, 0, STEP_LIMITS.retriesMax, 'Retries');
  if (!r.ok) errors.maxRetries = r.error;
  if (d.resourceKey.trim().length > STEP_LIMITS.resourceKeyMax) errors.resourceKey = `At most ${STEP_LIMITS.resourceKeyMax} characters`;
  return errors;
}

/** The test id of a step node's root (`dag-node-<key>`), set through React Flow's `domAttributes`. */
export function stepDomAttributes(key: string): StepNode['domAttributes'] {
  return { 'data-testid': `dag-node-${key}` } as StepNode['domAttributes'];
}

/** Node data from a step draft. */
export function stepToData(s: StepDraft): StepNodeData {
  return {
    key: s.key,
    name: s.name ?? '',
    handler: s.handler,
    payloadText: jsonText(s.payload),
    configText: jsonText(s.config),
    timeoutText: s.timeoutSeconds == null ? '' : String(s.timeoutSeconds),
    retriesText: s.maxRetries == null ? '' : String(s.maxRetries),
    resourceKey: s.resourceKey ?? '',
  };
}

/**
 * True when the steps carry no usable layout: more than one step and every position missing or stacked on the
 * same point (rows created before the editor existed default to 0,0). The editor then lays them out with dagre.
 */
export function needsLayout(steps: readonly StepDraft[]): boolean {
  if (steps.length < 2) return false;
  const seen = new Set(steps.map((s) => (s.position ? `${ROUND(s.position.x)},${ROUND(s.position.y)}` : 'none')));
  return seen.size === 1 || seen.has('none');
}

/** Node id for the i-th step of the props (`s<i>:<key>`): stable across renders of the same props. */
export const initialNodeId = (i: number, key: string) => `s${i}:${key}`;
/** Edge id between two node ids. */
export const edgeId = (source: string, target: string) => `e:${source}->${target}`;

/**
 * React Flow nodes and edges for the given steps/edges (edges to unknown keys are dropped: the server never stores
 * them). Lays out left to right (layoutDag: dagre, or its linear fallback for large graphs) when {@link needsLayout}.
 */
export function toFlow(steps: readonly StepDraft[], edges: readonly EdgeDraft[]): { nodes: StepNode[]; edges: DepEdge[] } {
  const ids = new Map<string, string>();
  steps.forEach((s, i) => {
    if (!ids.has(s.key)) ids.set(s.key, initialNodeId(i, s.key));
  });
  const layout = needsLayout(steps)
    ? layoutDag(
        steps.map((s) => ({ id: s.key })),
        edges.map((e) => ({ source: e.from, target: e.to })),
        { direction: 'LR' },
      )
    : null;
  const nodes: StepNode[] = steps.map((s, i) => ({
    id: initialNodeId(i, s.key),
    type: 'step',
    position: layout?.[s.key] ?? { x: s.position?.x ?? 0, y: s.position?.y ?? 0 },
    data: stepToData(s),
    domAttributes: stepDomAttributes(s.key),
  }));
  const flowEdges: DepEdge[] = [];
  for (const e of edges) {
    const source = ids.get(e.from);
    const target = ids.get(e.to);
    if (!source || !target) continue;
    flowEdges.push(makeEdge(source, target, e.type));
  }
  return { nodes, edges: flowEdges };
}

/** A new dependency edge between two node ids. */
export function makeEdge(source: string, target: string, type: DepType): DepEdge {
  return withEdgeType({ id: edgeId(source, target), source, target, type: 'dep', data: { type } }, type);
}

/** The same edge with another dependency type (data and arrow colour follow). */
export function withEdgeType(edge: DepEdge, type: DepType): DepEdge {
  // 'arrowclosed' is MarkerType.ArrowClosed; the literal keeps this module free of xyflow runtime imports.
  return { ...edge, data: { ...edge.data, type }, markerEnd: { type: 'arrowclosed' as MarkerType, color: EDGE_STYLES[type].stroke, width: 18, height: 18 } };
}

/**
 * The DagDraft to save, built from the editor state, plus every field problem found (`problems` keyed by node id).
 * Steps keep the node order, so `steps.<i>` paths in a server answer point back at nodes[i].
 */
export function toDraft(nodes: readonly StepNode[], edges: readonly DepEdge[]): { dag: DagDraft; problems: Map<string, Partial<Record<StepField, string>>> } {
  const problems = new Map<string, Partial<Record<StepField, string>>>();
  const keyCount = new Map<string, number>();
  for (const n of nodes) keyCount.set(n.data.key, (keyCount.get(n.data.key) ?? 0) + 1);
  const keyById = new Map(nodes.map((n) => [n.id, n.data.key]));
  const steps: DagDraft['steps'] = nodes.map((n) => {
    const d = n.data;
    const others = new Set(keyCount.get(d.key)! > 1 ? [d.key] : []);
    const errs = stepFieldErrors(d, others);
    if (Object.keys(errs).length > 0) problems.set(n.id, errs);
    const payload = parseJsonObject(d.payloadText);
    const config = parseJsonObject(d.configText);
    const timeout = parseOptionalInt(d.timeoutText, 1, STEP_LIMITS.timeoutMax, 'Timeout');
    const retries = parseOptionalInt(d.retriesText, 0, STEP_LIMITS.retriesMax, 'Retries');
    return {
      key: d.key,
      name: d.name,
      handler: d.handler.trim(),
      payload: payload.ok ? payload.value : {},
      config: config.ok ? config.value : {},
      timeoutSeconds: timeout.ok ? timeout.value : null,
      maxRetries: retries.ok ? retries.value : null,
      resourceKey: d.resourceKey.trim() === '' ? null : d.resourceKey.trim(),
      position: { x: ROUND(n.position.x), y: ROUND(n.position.y) },
    };
  });
  const flowEdges: EdgeDraft[] = edges.map((e) => ({ from: keyById.get(e.source) ?? e.source, to: keyById.get(e.target) ?? e.target, type: e.data?.type ?? 'hard' }));
  return { dag: { steps, edges: flowEdges }, problems };
}

/**
 * A string that changes exactly when something that would be saved changes (fields as typed, rounded positions,
 * edges by key). Selection, measured sizes and node ids are left out, so clicking around never marks the editor dirty.
 */
export function snapshot(nodes: readonly StepNode[], edges: readonly DepEdge[]): string {
  const keyById = new Map(nodes.map((n) => [n.id, n.data.key]));
  return JSON.stringify({
    s: nodes.map((n) => {
      const d = n.data;
      return [d.key, d.name, d.handler, d.payloadText, d.configText, d.timeoutText, d.retriesText, d.resourceKey, ROUND(n.position.x), ROUND(n.position.y)];
    }),
    e: edges.map((e) => [keyById.get(e.source), keyById.get(e.target), e.data?.type ?? 'hard']).sort((a, b) => String(a).localeCompare(String(b))),
  });
}

/**
 * A key for a new step of `handler`, unique among `existing`: the handler's last segment made key-safe
 * (`builtin.echo` -> `echo`, `echo-2`, `echo-3`, ...). Always matches STEP_KEY_RE.
 */
export function uniqueStepKey(handler: string, existing: Iterable<string>): string {
  const taken = new Set(existing);
  const last = handler.split(/[./:]/).filter(Boolean).pop() ?? 'step';
  let base = last.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 56);
  if (base === '') base = 'step';
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) {
    const k = `${base}-${i}`;
    if (!taken.has(k)) return k;
  }
}

/**
 * The rule applied while dragging a connection (React Flow `isValidConnection`) and again in onConnect:
 * refuses a self edge, a duplicate of an existing edge (either type) and an edge that would close a cycle
 * (lib/dag wouldCreateCycle over node ids; the message names the cycle by step key, starting with the new edge).
 */
export function checkConnection(
  nodes: readonly { id: string; data: { key: string } }[],
  edges: readonly { source: string; target: string }[],
  source: string | null | undefined,
  target: string | null | undefined,
): { ok: true } | { ok: false; reason: string } {
  if (!source || !target) return { ok: false, reason: 'Refused: connect a step to another step' };
  const key = (id: string) => nodes.find((n) => n.id === id)?.data.key ?? id;
  if (source === target) return { ok: false, reason: `Refused: a step cannot depend on itself (${key(source)} -> ${key(source)})` };
  if (edges.some((e) => e.source === source && e.target === target)) {
    return { ok: false, reason: `Refused: ${key(source)} -> ${key(target)} already exists (change its type in the side panel)` };
  }
  const cycle = wouldCreateCycle(
    edges.map((e) => ({ from: e.source, to: e.target })),
    source,
    target,
  );
  if (cycle) return { ok: false, reason: `Refused: would create a cycle ${formatCycle(cycle.map(key))}` };
  return { ok: true };
}

/** One end of a connection being dragged: the node id and the kind of handle (`source` = right, `target` = left). */
export type ConnectionEnd = { nodeId: string; type: 'source' | 'target' };

/**
 * Why dropping a drag that started at `from` on the handle `to` adds no edge, or null when it would (or when there
 * is nothing to explain: dropped on empty canvas, or back on the handle it started from). React Flow never calls
 * onConnect for a connection isValidConnection refused, so onConnectEnd uses this to tell the operator why; the
 * connection is normalised to source -> target whichever end the drag started from.
 */
export function connectionRefusal(
  nodes: readonly { id: string; data: { key: string } }[],
  edges: readonly { source: string; target: string }[],
  from: ConnectionEnd | null | undefined,
  to: ConnectionEnd | null | undefined,
): string | null {
  if (!from || !to) return null;
  if (from.nodeId === to.nodeId && from.type === to.type) return null;
  if (from.type === to.type) {
    return from.type === 'source'
      ? "Refused: drop on a step's input (its left handle) to add a dependency"
      : "Refused: drop on a step's output (its right handle) to add a dependency";
  }
  const [source, target] = from.type === 'source' ? [from.nodeId, to.nodeId] : [to.nodeId, from.nodeId];
  const r = checkConnection(nodes, edges, source, target);
  return r.ok ? null : r.reason;
}

/** A node's box in flow coordinates (top-left position, size as measured or the card's default). */
export type FlowRect = { x: number; y: number; width: number; height: number };

/**
 * Where to drop a new step near `wanted` (top-left) without covering an existing one: the nearest free slot on a
 * grid of card-sized steps around `wanted` (rings of growing radius; `wanted` itself when free). With `visible` (the
 * part of the canvas on screen, flow coordinates) a free slot fully on screen wins over a nearer one off screen, so
 * the view need not move; `inView` says whether the returned spot is fully on screen.
 */
export function freeSpot(
  wanted: { x: number; y: number },
  size: { width: number; height: number },
  taken: readonly FlowRect[],
  visible?: FlowRect,
  gap = 24,
): { x: number; y: number; inView: boolean } {
  const overlaps = (x: number, y: number) =>
    taken.some((r) => x < r.x + r.width + gap && x + size.width + gap > r.x && y < r.y + r.height + gap && y + size.height + gap > r.y);
  const onScreen = (x: number, y: number) =>
    !visible || (x >= visible.x && y >= visible.y && x + size.width <= visible.x + visible.width && y + size.height <= visible.y + visible.height);
  const dx = size.width + gap;
  const dy = size.height + gap;
  let firstFree: { x: number; y: number } | null = null;
  for (let ring = 0; ring <= 12; ring++) {
    const slots: [number, number][] = [];
    for (let j = -ring; j <= ring; j++) for (let i = -ring; i <= ring; i++) if (Math.max(Math.abs(i), Math.abs(j)) === ring) slots.push([i, j]);
    // Closest first; ties prefer below/right of the wanted spot (where the eye expects a new card).
    slots.sort((a, b) => Math.hypot(a[0] * dx, a[1] * dy) - Math.hypot(b[0] * dx, b[1] * dy) || b[1] - a[1] || b[0] - a[0]);
    for (const [i, j] of slots) {
      const x = wanted.x + i * dx;
      const y = wanted.y + j * dy;
      if (overlaps(x, y)) continue;
      if (onScreen(x, y)) return { x: ROUND(x), y: ROUND(y), inView: true };
      firstFree ??= { x, y };
    }
  }
  const p = firstFree ?? wanted;
  return { x: ROUND(p.x), y: ROUND(p.y), inView: onScreen(p.x, p.y) };
}

/**
 * Where a server/validator path points: `steps.2.key` -> { stepIndex: 2, field: 'key' }, `edges.1.to` ->
 * { edgeIndex: 1 }, anything else -> {} (shown in the banner only).
 */
export function parseErrorPath(path: string): { stepIndex?: number; field?: StepField; edgeIndex?: number } {
  const m = /^steps\.(\d+)(?:\.(\w+))?/.exec(path);
  if (m) {
    const field = m[2] as StepField | undefined;
    const known: StepField[] = ['key', 'name', 'handler', 'payload', 'config', 'timeoutSeconds', 'maxRetries', 'resourceKey'];
    return { stepIndex: Number(m[1]), field: field && known.includes(field) ? field : undefined };
  }
  const e = /^edges\.(\d+)/.exec(path);
  if (e) return { edgeIndex: Number(e[1]) };
  return {};
}

/** A readable label for an error path against a draft: `steps.2.key` -> `Step "load", Key`, `edges.1` -> `Edge a -> b`. */
export function describeErrorPath(path: string, dag: DagDraft): string {
  const p = parseErrorPath(path);
  if (p.stepIndex !== undefined) {
    const s = dag.steps[p.stepIndex];
    return describeStepField(s?.key ?? `#${p.stepIndex + 1}`, p.field);
  }
  if (p.edgeIndex !== undefined) {
    const e = dag.edges[p.edgeIndex];
    return e ? `Edge ${e.from} -> ${e.to}` : `Edge #${p.edgeIndex + 1}`;
  }
  return path === 'edges' ? 'Edges' : path === 'steps' ? 'Steps' : path;
}

// ---------------------------------------------------------------------------------------------------------------
// Editor state: the document (nodes + edges) with undo/redo history, the saved baseline and the server's field errors.

/** What one undo step restores: the nodes and edges as they were. */
export type EditorDoc = { nodes: StepNode[]; edges: DepEdge[] };

/** Field errors from the last refused save, keyed by node id. */
export type ServerErrors = ReadonlyMap<string, Partial<Record<StepField, string>>>;

/**
 * The DAG editor's state. `doc` is what is on screen; `past` / `future` are the undo / redo stacks (most recent
 * last / first); `baseline` is the {@link snapshot} of the last loaded or saved DAG (dirty = snapshot(doc) differs);
 * `gesture` names the edit in progress so that one drag, one run of typing in a field or one Delete press is one
 * undo step.
 */
export type EditorState = {
  doc: EditorDoc;
  past: EditorDoc[];
  future: EditorDoc[];
  baseline: string;
  serverErrors: ServerErrors;
  gesture: string | null;
};

/** At most this many undo steps are kept (the oldest are dropped). */
export const UNDO_LIMIT = 100;

/** Every change the editor makes goes through one of these. */
export type EditorAction =
  | { type: 'load'; doc: EditorDoc }
  | { type: 'baseline'; snapshot: string }
  | { type: 'saved'; snapshot: string }
  | { type: 'nodeChanges'; changes: NodeChange<StepNode>[] }
  | { type: 'edgeChanges'; changes: EdgeChange<DepEdge>[] }
  | { type: 'connect'; source: string; target: string; edgeType: DepType }
  | { type: 'addStep'; node: StepNode }
  | { type: 'updateStep'; id: string; patch: Partial<StepNodeData> }
  | { type: 'deleteStep'; id: string }
  | { type: 'setEdgeType'; id: string; edgeType: DepType }
  | { type: 'deleteEdge'; id: string }
  | { type: 'layout'; positions: Record<string, { x: number; y: number }> }
  | { type: 'discard'; doc: EditorDoc }
  | { type: 'select'; id: string }
  | { type: 'serverErrors'; errors: ServerErrors }
  | { type: 'undo' }
  | { type: 'redo' };

/** The state of a freshly loaded editor: `doc` on screen, nothing to undo, not dirty. */
export function initEditor(doc: EditorDoc): EditorState {
  return { doc, past: [], future: [], baseline: snapshot(doc.nodes, doc.edges), serverErrors: new Map(), gesture: null };
}

/** True when the document differs from the last loaded or saved DAG. */
export const isDirty = (s: EditorState) => snapshot(s.doc.nodes, s.doc.edges) !== s.baseline;

// Side-panel field name of a node-data key (the server reports `payload`, the panel edits `payloadText`).
const FIELD_OF: Record<string, StepField> = { payloadText: 'payload', configText: 'config', timeoutText: 'timeoutSeconds', retriesText: 'maxRetries' };

/**
 * The DAG editor's reducer (pure). Edits push the previous document on the undo stack and clear redo; selection and
 * measured sizes never do (they are not work). A drag records once when it starts; consecutive changes to the same
 * field(s) of one step record once; removing a step also removes its edges, in the same undo step.
 */
export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  const edit = (doc: EditorDoc, gesture: string | null = null, extra: Partial<EditorState> = {}): EditorState => {
    const coalesce = gesture !== null && gesture === state.gesture;
    return {
      ...state,
      ...extra,
      doc,
      past: coalesce ? state.past : [...state.past, state.doc].slice(-UNDO_LIMIT),
      future: coalesce ? state.future : [],
      gesture,
    };
  };
  const { nodes, edges } = state.doc;
  switch (action.type) {
    case 'load':
      return initEditor(action.doc);
    case 'baseline':
      return { ...state, baseline: action.snapshot };
    case 'saved':
      return { ...state, baseline: action.snapshot, serverErrors: new Map(), gesture: null };
    case 'nodeChanges': {
      const cs = action.changes;
      if (cs.length === 0) return state;
      const next = applyNodeChanges(cs, nodes);
      // Measured sizes follow an edit (a longer name widens the card): they neither record nor end the gesture.
      if (cs.every((c) => c.type === 'dimensions')) return { ...state, doc: { nodes: next, edges } };
      if (cs.every((c) => c.type === 'select' || c.type === 'dimensions')) return { ...state, doc: { nodes: next, edges }, gesture: null };
      const removed = new Set(cs.flatMap((c) => (c.type === 'remove' ? [c.id] : [])));
      const nextEdges = removed.size ? edges.filter((e) => !removed.has(e.source) && !removed.has(e.target)) : edges;
      if (removed.size) return edit({ nodes: next, edges: nextEdges }, 'remove');
      const positions = cs.filter((c) => c.type === 'position');
      if (positions.length === cs.length) {
        const dragging = positions.some((c) => c.dragging);
        const byId = new Map(nodes.map((n) => [n.id, n.position]));
        const moves = positions.some((c) => {
          const was = c.type === 'position' && c.position ? byId.get(c.id) : undefined;
          return !!was && c.type === 'position' && !!c.position && (was.x !== c.position.x || was.y !== c.position.y);
        });
        // A click on a card reports its position unchanged (drag start/end without a move): not an edit.
        if (!moves) return { ...state, doc: { nodes: next, edges }, gesture: state.gesture === 'drag' && !dragging ? null : state.gesture };
        // The pointer moved or was released: part of the drag that started earlier (recorded once, at its start).
        if (state.gesture === 'drag') return { ...state, doc: { nodes: next, edges }, gesture: dragging ? 'drag' : null };
        return edit({ nodes: next, edges }, dragging ? 'drag' : null);
      }
      return edit({ nodes: next, edges });
    }
    case 'edgeChanges': {
      const cs = action.changes;
      if (cs.length === 0) return state;
      const known = new Set(edges.map((e) => e.id));
      // Removals of edges already gone (they went with their step) change nothing.
      const live = cs.filter((c) => c.type !== 'remove' || known.has(c.id));
      if (live.length === 0) return state;
      const next = applyEdgeChanges(live, edges);
      if (live.every((c) => c.type === 'select')) return { ...state, doc: { nodes, edges: next }, gesture: null };
      // A Delete press removing selected steps and edges together is one undo step.
      return edit({ nodes, edges: next }, live.every((c) => c.type === 'remove') ? 'remove' : null);
    }
    case 'connect': {
      if (!checkConnection(nodes, edges, action.source, action.target).ok) return state;
      return edit({ nodes, edges: [...edges.map((e) => (e.selected ? { ...e, selected: false } : e)), makeEdge(action.source, action.target, action.edgeType)] });
    }
    case 'addStep':
      return edit({
        nodes: [...nodes.map((n) => (n.selected ? { ...n, selected: false } : n)), { ...action.node, selected: true }],
        edges: edges.map((e) => (e.selected ? { ...e, selected: false } : e)),
      });
    case 'updateStep': {
      const { id, patch } = action;
      if (!nodes.some((n) => n.id === id)) return state;
      const next = nodes.map((n) => (n.id === id ? { ...n, data: { ...n.data, ...patch }, domAttributes: patch.key !== undefined ? stepDomAttributes(patch.key) : n.domAttributes } : n));
      // Editing a field clears the server's complaint about it (it may no longer hold).
      let serverErrors = state.serverErrors;
      const cur = serverErrors.get(id);
      if (cur) {
        const rest = { ...cur };
        for (const k of Object.keys(patch)) delete rest[FIELD_OF[k] ?? (k as StepField)];
        const m = new Map(serverErrors);
        if (Object.keys(rest).length === 0) m.delete(id);
        else m.set(id, rest);
        serverErrors = m;
      }
      return edit({ nodes: next, edges }, `field:${id}:${Object.keys(patch).sort().join(',')}`, { serverErrors });
    }
    case 'deleteStep':
      if (!nodes.some((n) => n.id === action.id)) return state;
      return edit({ nodes: nodes.filter((n) => n.id !== action.id), edges: edges.filter((e) => e.source !== action.id && e.target !== action.id) });
    case 'setEdgeType':
      return edit({ nodes, edges: edges.map((e) => (e.id === action.id ? withEdgeType(e, action.edgeType) : e)) });
    case 'deleteEdge':
      if (!edges.some((e) => e.id === action.id)) return state;
      return edit({ nodes, edges: edges.filter((e) => e.id !== action.id) });
    case 'layout':
      return edit({ nodes: nodes.map((n) => (action.positions[n.id] ? { ...n, position: action.positions[n.id]! } : n)), edges });
    case 'discard':
      // Undoable: a Discard clicked by mistake can be taken back with Ctrl+Z.
      return edit(action.doc, null, { serverErrors: new Map() });
    case 'select':
      return { ...state, doc: { nodes: nodes.map((n) => ({ ...n, selected: n.id === action.id })), edges: edges.map((e) => (e.selected ? { ...e, selected: false } : e)) }, gesture: null };
    case 'serverErrors':
      return { ...state, serverErrors: action.errors };
    case 'undo': {
      const prev = state.past[state.past.length - 1];
      if (!prev) return state;
      return { ...state, doc: prev, past: state.past.slice(0, -1), future: [state.doc, ...state.future], gesture: null };
    }
    case 'redo': {
      const [next, ...rest] = state.future;
      if (!next) return state;
      return { ...state, doc: next, past: [...state.past, state.doc], future: rest, gesture: null };
    }
  }
}

/**
 * Where a new step goes when added from the palette by a click: right of the selected step (same row, tops aligned:
 * centring on a card of another height drifted each new step by a pixel or two), else the centre of the view; then {@link freeSpot} moves it to the nearest place that covers no other step.
 * `selected` is the selected step's box; `centre` the view's centre (flow coordinates); sizes in px.
 */
export function newStepAnchor(selected: FlowRect | null, centre: { x: number; y: number }, size: { width: number; height: number }, gap = 64): { x: number; y: number } {
  if (selected) return { x: selected.x + selected.width + gap, y: selected.y };
  return { x: centre.x - size.width / 2, y: centre.y - size.height / 2 };
}

/**
 * The top-left of a step added by a palette click, on screen whenever there is free room there, so adding steps never
 * moves the view away from the steps already seen (lining them up to the right and panning there pushed the first
 * ones off the canvas). `beside`: the selected step, else the one added last (null if neither): the new step goes to
 * its right when that is free and on screen (`visible`), else to the nearest free room on screen
 * ({@link freeRoomOnScreen}); without `beside` the same around the view's `centre`. Only with no free room on
 * screen does it go off screen, beside the step (the editor then pans to it). Without `visible` the nearest free spot
 * to the anchor wins.
 */
export function newStepSpot(
  beside: FlowRect | null,
  centre: { x: number; y: number },
  size: { width: number; height: number },
  taken: readonly FlowRect[],
  visible?: FlowRect,
): { x: number; y: number } {
  const anchor = newStepAnchor(beside, centre, size);
  // A fine scan of the screen, not freeSpot's card-sized grid: that grid missed room offset by less than a card.
  const room = visible ? freeRoomOnScreen(anchor, size, taken, visible) : null;
  if (room) return room;
  const { x, y } = freeSpot(anchor, size, taken);
  return { x, y };
}

/**
 * The free spot fully inside `visible` (flow px) nearest to `wanted` (top-left), on a fine grid of `step` px through
 * `wanted`, keeping `gap` px from every `taken` box; null when `visible` has no such room.
 */
export function freeRoomOnScreen(
  wanted: { x: number; y: number },
  size: { width: number; height: number },
  taken: readonly FlowRect[],
  visible: FlowRect,
  gap = 24,
  // at most about 200 x 200 candidates, however far out the view is zoomed
  step = Math.max(8, Math.ceil(Math.max(visible.width, visible.height) / 200)),
): { x: number; y: number } | null {
  // The grid runs through `wanted`, so a step beside another keeps its row (tops aligned) when it can.
  const first = (w: number, v: number) => w - Math.floor((w - v) / step) * step;
  let best: { x: number; y: number; d: number } | null = null;
  for (let y = first(wanted.y, visible.y); y + size.height <= visible.y + visible.height; y += step)
    for (let x = first(wanted.x, visible.x); x + size.width <= visible.x + visible.width; x += step) {
      if (taken.some((r) => x < r.x + r.width + gap && x + size.width + gap > r.x && y < r.y + r.height + gap && y + size.height + gap > r.y)) continue;
      const d = Math.hypot(x - wanted.x, y - wanted.y);
      // ties go below, then right: where the eye expects a new card (as in freeSpot)
      if (!best || d < best.d || (d === best.d && (y > best.y || (y === best.y && x > best.x)))) best = { x, y, d };
    }
  return best ? { x: ROUND(best.x), y: ROUND(best.y) } : null;
}
