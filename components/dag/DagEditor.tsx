'use client';
// The job's DAG editor: React Flow canvas with a handler palette, a side panel for the selected step/edge, typed
// drag-to-connect with cycle refusal, auto-layout, and an unsaved-changes guard. Its state lives in one pure
// reducer (model.ts editorReducer); the toolbar, banner, palette and side panel are sections of their own.
// It never touches the database: it receives the DAG as props and hands the new one to onSave.
import { useCallback, useEffect, useMemo, useReducer, useRef, useState, type DragEvent } from 'react';
import {
  Background,
  Controls,
  MiniMap,
  Panel,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Connection,
  type EdgeTypes,
  type IsValidConnection,
  type NodeTypes,
  type OnConnect,
  type OnConnectEnd,
  type OnEdgesChange,
  type OnNodesChange,
} from '@xyflow/react';
import { layoutDag, validateDag, type DepType } from '@/lib/dag';
import { FIT_VIEW_OPTIONS, MINIMAP_SIZE } from './canvas';
import { LegendOrConnectionHint } from './ConnectionHint';
import { DepEdgeView } from './DepEdgeView';
import { EditorBanner, type Banner } from './EditorBanner';
import { EditorToolbar } from './EditorToolbar';
import { EdgeLegend } from './Legend';
import {
  checkConnection,
  connectionRefusal,
  describeErrorPath,
  editorReducer,
  freeSpot,
  initEditor,
  isDirty,
  newStepAnchor,
  parseErrorPath,
  snapshot,
  stepDomAttributes,
  stepFieldErrors,
  stepToData,
  toDraft,
  toFlow,
  uniqueStepKey,
  type DagDraft,
  type DepEdge,
  type EdgeDraft,
  type FlowRect,
  type SaveDagResult,
  type StepDraft,
  type StepField,
  type StepNode,
  type StepNodeData,
} from './model';
import { Palette, PALETTE_MIME } from './Palette';
import { useHandlerCatalogue } from '../handlers/use-handler-catalogue';
import { useUnsavedChangesGuard } from '../unsaved-changes';
import { SelectionAside } from './SelectionAside';
import { StepNodeView } from './StepNodeView';

export type { DagDraft, EdgeDraft, SaveDagResult, StepDraft } from './model';

// Declared once at module level: a new object per render would make React Flow remount every node and edge.
const nodeTypes: NodeTypes = { step: StepNodeView };
const edgeTypes: EdgeTypes = { dep: DepEdgeView };

/**
 * Props of {@link DagEditor}.
 * - `steps` / `edges`: the saved DAG (positions in px; steps without positions are laid out on load).
 * - `handlers`: the palette — handler names the workers report (worker_nodes.handlers).
 * - `readOnly`: view only (viewer role, deleted job): no palette, no dragging/connecting/deleting, no Save.
 * - `onSave(dag)`: persist; resolve `{ ok: true }` or `{ ok: false, error, fields? }` (fields keyed by `steps.<i>.<field>`
 *   / `edges.<i>` / `edges`, indexes into the `dag` passed). A thrown error is shown as a failed save.
 * - `className`: size of the editor box (default 70vh tall).
 */
export type DagEditorProps = {
  steps: StepDraft[];
  edges: EdgeDraft[];
  handlers: string[];
  readOnly?: boolean;
  onSave(dag: DagDraft): Promise<SaveDagResult>;
  className?: string;
};

/** The DAG editor. Wraps its own ReactFlowProvider, so it can be dropped anywhere. */
export function DagEditor(props: DagEditorProps) {
  return (
    <ReactFlowProvider>
      <DagEditorInner {...props} />
    </ReactFlowProvider>
  );
}

let newNodeSeq = 0;
/** Ids of nodes added in this session: never reused, so an edge id can never point at a different step. */
const newNodeId = () => `n${Date.now().toString(36)}${(newNodeSeq++).toString(36)}`;

const LEAVE_MESSAGE = 'The graph has unsaved changes. Leave and discard them?';

/** Size of a new step card before React Flow has measured it (px). */
const NEW_STEP_SIZE = { width: 200, height: 64 };

function DagEditorInner({ steps, edges: edgeProps, handlers, readOnly = false, onSave, className }: DagEditorProps) {
  const initial = useMemo(() => toFlow(steps, edgeProps), [steps, edgeProps]);
  const [state, dispatch] = useReducer(editorReducer, initial, initEditor);
  const { nodes, edges } = state.doc;
  const [edgeType, setEdgeType] = useState<DepType>('hard');
  const [banner, setBanner] = useState<Banner | null>(null);
  const [saving, setSaving] = useState(false);
  const { fitView, screenToFlowPosition } = useReactFlow<StepNode, DepEdge>();
  const canvasRef = useRef<HTMLDivElement>(null);
  const editorRef = useRef<HTMLDivElement>(null);

  const dirty = !readOnly && isDirty(state);

  // Latest state for callbacks React Flow keeps (isValidConnection runs on every pointer move of a drag).
  const live = useRef({ nodes, edges, dirty });
  live.current = { nodes, edges, dirty };

  // New props (e.g. after a save and router.refresh(), or another tab's save): adopt them unless the operator has
  // unsaved edits, which win. Skipped when the props already equal what is on screen, so selection survives a save.
  const propsSnapshot = useMemo(() => snapshot(initial.nodes, initial.edges), [initial]);
  const adopted = useRef(propsSnapshot);
  useEffect(() => {
    if (propsSnapshot === adopted.current) return;
    adopted.current = propsSnapshot;
    if (live.current.dirty) return;
    if (propsSnapshot === snapshot(live.current.nodes, live.current.edges)) {
      dispatch({ type: 'baseline', snapshot: propsSnapshot });
      return;
    }
    dispatch({ type: 'load', doc: initial });
  }, [propsSnapshot, initial]);

  // Client-side field errors, recomputed as the operator types; shown on the card and in the panel.
  const fieldErrors = useMemo(() => {
    const count = new Map<string, number>();
    for (const n of nodes) count.set(n.data.key, (count.get(n.data.key) ?? 0) + 1);
    const out = new Map<string, Partial<Record<StepField, string>>>();
    for (const n of nodes) {
      const errs = stepFieldErrors(n.data, new Set(count.get(n.data.key)! > 1 ? [n.data.key] : []));
      const server = state.serverErrors.get(n.id);
      const merged = { ...server, ...errs };
      if (Object.keys(merged).length > 0) out.set(n.id, merged);
    }
    return out;
  }, [nodes, state.serverErrors]);

  // Nodes as rendered: the errors ride along in data so the card can show them (same object when unchanged).
  const renderedNodes = useMemo(
    () =>
      nodes.map((n) => {
        const errs = fieldErrors.get(n.id);
        if (!errs && !n.data.errors) return n;
        if (errs && n.data.errors && JSON.stringify(errs) === JSON.stringify(n.data.errors)) return n;
        return { ...n, data: { ...n.data, errors: errs } };
      }),
    [nodes, fieldErrors],
  );

  // Unsaved-changes guard on every way out: reload/close, links, Back, the job page's tabs (components/unsaved-changes).
  useUnsavedChangesGuard(dirty, LEAVE_MESSAGE);

  // Undo / redo over every edit: Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y (Cmd on macOS). Inside the editor's own fields too
  // (one run of typing is one step); text fields elsewhere on the page keep the browser's own undo.
  useEffect(() => {
    if (readOnly) return;
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      const k = e.key.toLowerCase();
      const redo = (k === 'z' && e.shiftKey) || (k === 'y' && !e.shiftKey);
      const undo = k === 'z' && !e.shiftKey;
      if (!undo && !redo) return;
      const t = e.target as HTMLElement | null;
      const inField = !!t?.closest?.('input, textarea, select, [contenteditable="true"]');
      if (inField && !editorRef.current?.contains(t)) return;
      e.preventDefault();
      dispatch({ type: redo ? 'redo' : 'undo' });
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [readOnly]);

  const refuse = useCallback((reason: string) => {
    setBanner((b) => (b && b.kind === 'error' && b.message === reason ? b : { kind: 'error', message: reason }));
  }, []);

  const onNodesChange = useCallback<OnNodesChange<StepNode>>((changes) => dispatch({ type: 'nodeChanges', changes }), []);
  const onEdgesChange = useCallback<OnEdgesChange<DepEdge>>((changes) => dispatch({ type: 'edgeChanges', changes }), []);

  // The rule while dragging (React Flow marks the hovered handle valid/invalid and draws the line accordingly).
  // Pure: it runs on every pointer move; the reason is shown live by <LegendOrConnectionHint> and on drop by onConnectEnd.
  const isValidConnection = useCallback<IsValidConnection<DepEdge>>(
    (c) => !readOnly && checkConnection(live.current.nodes, live.current.edges, c.source, c.target).ok,
    [readOnly],
  );

  const onConnect = useCallback<OnConnect>(
    (c: Connection) => {
      const r = checkConnection(live.current.nodes, live.current.edges, c.source, c.target);
      if (!r.ok) {
        refuse(r.reason);
        return;
      }
      setBanner(null);
      dispatch({ type: 'connect', source: c.source, target: c.target, edgeType });
    },
    [edgeType, refuse],
  );

  // React Flow calls onConnect only for valid connections: a drop on a handle isValidConnection refused ends here,
  // and the operator gets the reason (the cycle, by step key) in the alert banner.
  const onConnectEnd = useCallback<OnConnectEnd>(
    (_event, cs) => {
      if (readOnly || cs.isValid === true || !cs.fromNode || !cs.fromHandle || !cs.toNode || !cs.toHandle) return;
      const reason = connectionRefusal(
        live.current.nodes,
        live.current.edges,
        { nodeId: cs.fromNode.id, type: cs.fromHandle.type },
        { nodeId: cs.toNode.id, type: cs.toHandle.type },
      );
      if (reason) refuse(reason);
    },
    [readOnly, refuse],
  );

  const onConnectStart = useCallback(() => {
    // A new drag starts with a clean slate: an old refusal must not be mistaken for this drag's.
    setBanner((b) => (b?.kind === 'error' && b.message.startsWith('Refused:') ? null : b));
  }, []);

  const selectedNode = nodes.find((n) => n.selected) ?? null;
  const selectedEdge = selectedNode ? null : (edges.find((e) => e.selected) ?? null);
  const keyOf = useCallback((id: string) => live.current.nodes.find((n) => n.id === id)?.data.key ?? id, []);

  /**
   * Adds a step of `handler`: at `drop` (screen px, from a palette drag) or, from a click, right of the selected
   * step (else the middle of the view); moved to the nearest spot that covers no other step, preferably on screen
   * (the canvas edges are cut by the fitView padding, where the overlays are).
   */
  const catalogue = useHandlerCatalogue();
  const addStep = useCallback(
    (handler: string, drop?: { x: number; y: number }) => {
      const ns = live.current.nodes;
      const key = uniqueStepKey(handler, ns.map((n) => n.data.key));
      const box = canvasRef.current?.getBoundingClientRect();
      const size = NEW_STEP_SIZE;
      const rectOf = (n: StepNode): FlowRect => ({ x: n.position.x, y: n.position.y, width: n.measured?.width ?? size.width, height: n.measured?.height ?? size.height });
      let wanted = { x: 0, y: 0 };
      let visible: FlowRect | undefined;
      if (box) {
        const p = FIT_VIEW_OPTIONS.padding;
        const tl = screenToFlowPosition({ x: box.left + parseFloat(p.left), y: box.top + parseFloat(p.top) });
        const br = screenToFlowPosition({ x: box.right - parseFloat(p.right), y: box.bottom - parseFloat(p.bottom) });
        visible = { x: tl.x, y: tl.y, width: br.x - tl.x, height: br.y - tl.y };
        const centre = screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 });
        const selected = ns.find((n) => n.selected);
        wanted = newStepAnchor(selected ? rectOf(selected) : null, centre, size);
      }
      if (drop) {
        const at = screenToFlowPosition(drop);
        wanted = { x: at.x - size.width / 2, y: at.y - size.height / 2 };
        visible = undefined; // where the operator dropped it, even off the padded area
      }
      const spot = freeSpot(wanted, size, ns.map(rectOf), visible);
      const node: StepNode = {
        id: newNodeId(),
        type: 'step',
        position: { x: spot.x, y: spot.y },
        // A handler's advertised defaults (timeoutSeconds, retry) become the new step's own Timeout / Max retries.
        data: stepToData({ key, handler, payload: {}, config: {}, timeoutSeconds: catalogue.get(handler)?.timeoutSeconds, maxRetries: catalogue.get(handler)?.maxRetries }),
        domAttributes: stepDomAttributes(key),
        selected: true,
      };
      dispatch({ type: 'addStep', node });
      // No room on screen: fit the whole graph once React Flow has the new node, so the operator sees where it went.
      if (!drop && !spot.inView) window.requestAnimationFrame(() => void fitView({ ...FIT_VIEW_OPTIONS, duration: 250 }));
    },
    [screenToFlowPosition, fitView, catalogue],
  );

  // A handler dragged from the palette (Palette sets PALETTE_MIME) and dropped on the canvas.
  const onDragOver = useCallback((e: DragEvent) => {
    if (readOnly || !e.dataTransfer.types.includes(PALETTE_MIME)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  }, [readOnly]);
  const onDrop = useCallback(
    (e: DragEvent) => {
      const handler = e.dataTransfer.getData(PALETTE_MIME);
      if (readOnly || !handler) return;
      e.preventDefault();
      addStep(handler, { x: e.clientX, y: e.clientY });
    },
    [readOnly, addStep],
  );

  const autoLayout = useCallback(() => {
    const ns = live.current.nodes;
    const positions = layoutDag(
      ns.map((n) => ({ id: n.id, width: n.measured?.width, height: n.measured?.height })),
      live.current.edges.map((e) => ({ source: e.source, target: e.target })),
      { direction: 'LR' },
    );
    dispatch({ type: 'layout', positions });
    // Fit after React Flow has applied the new positions.
    window.requestAnimationFrame(() => void fitView({ ...FIT_VIEW_OPTIONS, duration: 250 }));
  }, [fitView]);

  const discard = useCallback(() => {
    if (!window.confirm('Discard your unsaved changes to the graph? (Ctrl+Z brings them back.)')) return;
    dispatch({ type: 'discard', doc: initial });
    setBanner(null);
  }, [initial]);

  const save = useCallback(async () => {
    const { nodes: ns, edges: es } = live.current;
    const { dag, problems } = toDraft(ns, es);
    if (problems.size > 0) {
      const details = [...problems].flatMap(([id, errs]) => Object.entries(errs).map(([f, m]) => `Step "${ns.find((n) => n.id === id)?.data.key}" (${f}): ${m}`));
      setBanner({ kind: 'error', message: 'Fix the highlighted fields before saving', details });
      const first = [...problems.keys()][0];
      if (first) dispatch({ type: 'select', id: first });
      return;
    }
    const v = validateDag(dag);
    if (!v.ok) {
      setBanner({ kind: 'error', message: 'The graph is not valid', details: v.errors.map((e) => `${describeErrorPath(e.path, dag)}: ${e.message}`) });
      return;
    }
    const saved = snapshot(ns, es);
    setSaving(true);
    try {
      const r = await onSave(dag);
      if (r.ok) {
        dispatch({ type: 'saved', snapshot: saved });
        setBanner({ kind: 'success', message: 'Saved as a new job version' });
        return;
      }
      const fields = r.fields ?? {};
      const next = new Map<string, Partial<Record<StepField, string>>>();
      for (const [path, message] of Object.entries(fields)) {
        const p = parseErrorPath(path);
        const node = p.stepIndex !== undefined ? ns[p.stepIndex] : undefined;
        if (node && p.field) next.set(node.id, { ...next.get(node.id), [p.field]: message });
      }
      dispatch({ type: 'serverErrors', errors: next });
      const details = Object.entries(fields).map(([path, m]) => `${describeErrorPath(path, dag)}: ${m}`);
      setBanner({ kind: 'error', message: r.error || 'Save failed', details: details.length ? details : undefined });
    } catch (e) {
      setBanner({ kind: 'error', message: `Save failed: ${e instanceof Error ? e.message : String(e)}` });
    } finally {
      setSaving(false);
    }
  }, [onSave]);

  // A success note fades; errors stay until dismissed or replaced (an operator may be reading a long cycle).
  useEffect(() => {
    if (banner?.kind !== 'success') return;
    const t = window.setTimeout(() => setBanner((b) => (b === banner ? null : b)), 4000);
    return () => window.clearTimeout(t);
  }, [banner]);

  const palette = useMemo(() => [...new Set(handlers)].sort(), [handlers]);
  const selectedErrors = selectedNode ? (fieldErrors.get(selectedNode.id) ?? {}) : {};

  return (
    <div ref={editorRef} className={`flex flex-col overflow-hidden rounded-lg border border-slate-200 bg-white ${className ?? 'h-[70vh] min-h-[480px]'}`} data-testid="dag-editor" data-dirty={dirty ? 'true' : 'false'}>
      <EditorToolbar
        readOnly={readOnly}
        edgeType={edgeType}
        onEdgeType={setEdgeType}
        dirty={dirty}
        saving={saving}
        onLayout={autoLayout}
        onFit={() => void fitView({ ...FIT_VIEW_OPTIONS, duration: 250 })}
        onDiscard={discard}
        onSave={() => void save()}
        canUndo={state.past.length > 0}
        canRedo={state.future.length > 0}
        onUndo={() => dispatch({ type: 'undo' })}
        onRedo={() => dispatch({ type: 'redo' })}
      />

      <div className="flex min-h-0 flex-1">
        {!readOnly ? <Palette handlers={palette} onAdd={addStep} /> : null}

        <div className="relative min-w-0 flex-1" ref={canvasRef} onDragOver={onDragOver} onDrop={onDrop}>
          {/* Over the canvas, never above it: showing or clearing a message must not move the graph under the pointer. */}
          <EditorBanner banner={banner} onDismiss={() => setBanner(null)} className="absolute inset-x-2 top-2 z-10" />
          <ReactFlow<StepNode, DepEdge>
            nodes={renderedNodes}
            edges={edges}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={onConnect}
            onConnectStart={onConnectStart}
            onConnectEnd={onConnectEnd}
            isValidConnection={isValidConnection}
            nodeTypes={nodeTypes}
            edgeTypes={edgeTypes}
            nodesDraggable={!readOnly}
            nodesConnectable={!readOnly}
            edgesReconnectable={false}
            // Delete and Backspace both delete; React Flow ignores them while focus is in an input/textarea/select.
            deleteKeyCode={readOnly ? null : ['Delete', 'Backspace']}
            fitView
            fitViewOptions={FIT_VIEW_OPTIONS}
            minZoom={0.1}
            maxZoom={2}
            connectionRadius={28}
            attributionPosition="top-right"
          >
            <Background gap={20} size={1} color="var(--color-slate-300, #cbd5e1)" />
            <Controls showInteractive={false} fitViewOptions={FIT_VIEW_OPTIONS} />
            <MiniMap pannable zoomable style={MINIMAP_SIZE} nodeStrokeWidth={3} nodeColor={(n) => ((n.data as StepNodeData).errors ? '#fca5a5' : '#c7d2fe')} />
            <Panel position="bottom-center">{readOnly ? <EdgeLegend /> : <LegendOrConnectionHint />}</Panel>
          </ReactFlow>
          {nodes.length === 0 ? (
            <div className="pointer-events-none absolute inset-0 flex items-center justify-center text-sm text-slate-500">
              {readOnly ? 'This job has no steps.' : 'Add a step from the palette on the left.'}
            </div>
          ) : null}
        </div>

        <SelectionAside selectedNode={selectedNode} selectedEdge={selectedEdge} errors={selectedErrors} handlers={palette} readOnly={readOnly} keyOf={keyOf} dispatch={dispatch} />
      </div>
    </div>
  );
}
