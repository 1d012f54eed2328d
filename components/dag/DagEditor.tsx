'use client';
// The job's DAG editor (issue 4 "Editor"): React Flow canvas with a handler palette, a side panel for the selected
// step/edge, typed drag-to-connect with cycle refusal, auto-layout, and an unsaved-changes guard.
// It never touches the database: it receives the DAG as props and hands the new one to onSave.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  Background,
  Controls,
  MiniMap,
  Panel,
  ReactFlow,
  ReactFlowProvider,
  useEdgesState,
  useNodesState,
  useConnection,
  useReactFlow,
  type Connection,
  type EdgeTypes,
  type IsValidConnection,
  type NodeTypes,
  type OnConnect,
  type OnConnectEnd,
} from '@xyflow/react';
import { Check, CircleAlert, LoaderCircle, Maximize, Network, Plus, Save, Undo2, X } from 'lucide-react';
import { DEP_TYPES, layoutDag, validateDag, type DepType } from '@/lib/dag';
import { FIT_VIEW_OPTIONS, MINIMAP_SIZE } from './canvas';
import { DepEdgeView } from './DepEdgeView';
import { EdgeLegend } from './Legend';
import {
  checkConnection,
  connectionRefusal,
  describeErrorPath,
  EDGE_STYLES,
  freeSpot,
  makeEdge,
  parseErrorPath,
  snapshot,
  stepDomAttributes,
  stepFieldErrors,
  stepToData,
  toDraft,
  toFlow,
  uniqueStepKey,
  withEdgeType,
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
import { EdgePanel, StepPanel } from './SidePanel';
import { HandlerPaletteList } from '../handlers/handler-palette';
import { useHandlerCatalogue } from '../handlers/use-handler-catalogue';
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

type Banner = { kind: 'error'; message: string; details?: string[] } | { kind: 'success'; message: string };
type ServerErrors = Map<string, Partial<Record<StepField, string>>>;

/** The DAG editor. Wraps its own ReactFlowProvider, so it can be dropped anywhere. Test ids: see the README of issue 4. */
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

function DagEditorInner({ steps, edges: edgeProps, handlers, readOnly = false, onSave, className }: DagEditorProps) {
  const initial = useMemo(() => toFlow(steps, edgeProps), [steps, edgeProps]);
  const [nodes, setNodes, onNodesChange] = useNodesState<StepNode>(initial.nodes);
  const [edges, setEdges, onEdgesChange] = useEdgesState<DepEdge>(initial.edges);
  const [baseline, setBaseline] = useState(() => snapshot(initial.nodes, initial.edges));
  const [edgeType, setEdgeType] = useState<DepType>('hard');
  const [banner, setBanner] = useState<Banner | null>(null);
  const [serverErrors, setServerErrors] = useState<ServerErrors>(new Map());
  const [saving, setSaving] = useState(false);
  const { fitView, screenToFlowPosition } = useReactFlow<StepNode, DepEdge>();
  const catalogue = useHandlerCatalogue();
  const canvasRef = useRef<HTMLDivElement>(null);

  const current = useMemo(() => snapshot(nodes, edges), [nodes, edges]);
  const dirty = !readOnly && current !== baseline;

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
      setBaseline(propsSnapshot);
      return;
    }
    setNodes(initial.nodes);
    setEdges(initial.edges);
    setBaseline(propsSnapshot);
    setServerErrors(new Map());
  }, [propsSnapshot, initial, setNodes, setEdges]);

  // Client-side field errors, recomputed as the operator types; shown on the card and in the panel.
  const fieldErrors = useMemo(() => {
    const count = new Map<string, number>();
    for (const n of nodes) count.set(n.data.key, (count.get(n.data.key) ?? 0) + 1);
    const out = new Map<string, Partial<Record<StepField, string>>>();
    for (const n of nodes) {
      const errs = stepFieldErrors(n.data, new Set(count.get(n.data.key)! > 1 ? [n.data.key] : []));
      const server = serverErrors.get(n.id);
      const merged = { ...server, ...errs };
      if (Object.keys(merged).length > 0) out.set(n.id, merged);
    }
    return out;
  }, [nodes, serverErrors]);

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

  // Unsaved-changes guard: the browser's own prompt on reload/close, and a confirm on in-app link clicks
  // (Next's client navigation never fires beforeunload).
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    const onClick = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null;
      if (!a || a.target === '_blank' || a.getAttribute('href')?.startsWith('#')) return;
      if (!window.confirm('The graph has unsaved changes. Leave and discard them?')) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('click', onClick, true);
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('click', onClick, true);
    };
  }, [dirty]);

  const refuse = useCallback((reason: string) => {
    setBanner((b) => (b && b.kind === 'error' && b.message === reason ? b : { kind: 'error', message: reason }));
  }, []);

  // The rule while dragging (React Flow marks the hovered handle valid/invalid and draws the line accordingly).
  // Pure: it runs on every pointer move; the reason is shown live by <ConnectionHint> and on drop by onConnectEnd.
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
      setEdges((es) => [...es.map((e) => (e.selected ? { ...e, selected: false } : e)), makeEdge(c.source, c.target, edgeType)]);
    },
    [edgeType, refuse, setEdges],
  );

  // React Flow calls onConnect only for valid connections: a drop on a handle isValidConnection refused ends here,
  // and the operator gets the reason (the cycle, by step key) in the alert banner.
  const onConnectEnd = useCallback<OnConnectEnd>(
    (_event, state) => {
      if (readOnly || state.isValid === true || !state.fromNode || !state.fromHandle || !state.toNode || !state.toHandle) return;
      const reason = connectionRefusal(
        live.current.nodes,
        live.current.edges,
        { nodeId: state.fromNode.id, type: state.fromHandle.type },
        { nodeId: state.toNode.id, type: state.toHandle.type },
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

  const updateStep = useCallback(
    (id: string, patch: Partial<StepNodeData>) => {
      setNodes((ns) => ns.map((n) => (n.id === id ? { ...n, data: { ...n.data, ...patch }, domAttributes: patch.key !== undefined ? stepDomAttributes(patch.key) : n.domAttributes } : n)));
      // Editing a field clears the server's complaint about it (it may no longer hold).
      setServerErrors((m) => {
        const cur = m.get(id);
        if (!cur) return m;
        const next = new Map(m);
        const rest = { ...cur };
        for (const k of Object.keys(patch)) {
          const field = ({ payloadText: 'payload', configText: 'config', timeoutText: 'timeoutSeconds', retriesText: 'maxRetries' } as Record<string, StepField>)[k] ?? (k as StepField);
          delete rest[field];
        }
        if (Object.keys(rest).length === 0) next.delete(id);
        else next.set(id, rest);
        return next;
      });
    },
    [setNodes],
  );

  const deleteStep = useCallback(
    (id: string) => {
      setNodes((ns) => ns.filter((n) => n.id !== id));
      setEdges((es) => es.filter((e) => e.source !== id && e.target !== id));
    },
    [setNodes, setEdges],
  );

  const addStep = useCallback(
    (handler: string) => {
      const ns = live.current.nodes;
      const key = uniqueStepKey(handler, ns.map((n) => n.data.key));
      // Drop it in the middle of what the operator is looking at, on the nearest spot that covers no other step
      // (preferably one on screen: the canvas edges are cut by the fitView padding, where the overlays are).
      const box = canvasRef.current?.getBoundingClientRect();
      const size = { width: 200, height: 64 };
      let wanted = { x: 0, y: 0 };
      let visible: FlowRect | undefined;
      if (box) {
        const centre = screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 });
        wanted = { x: centre.x - size.width / 2, y: centre.y - size.height / 2 };
        const p = FIT_VIEW_OPTIONS.padding;
        const tl = screenToFlowPosition({ x: box.left + parseFloat(p.left), y: box.top + parseFloat(p.top) });
        const br = screenToFlowPosition({ x: box.right - parseFloat(p.right), y: box.bottom - parseFloat(p.bottom) });
        visible = { x: tl.x, y: tl.y, width: br.x - tl.x, height: br.y - tl.y };
      }
      const taken = ns.map((n) => ({ x: n.position.x, y: n.position.y, width: n.measured?.width ?? size.width, height: n.measured?.height ?? size.height }));
      const spot = freeSpot(wanted, size, taken, visible);
      const node: StepNode = {
        id: newNodeId(),
        type: 'step',
        position: { x: spot.x, y: spot.y },
        // A handler's advertised defaults (timeoutSeconds, retry) become the new step's own Timeout / Max retries.
        data: stepToData({ key, handler, payload: {}, config: {}, timeoutSeconds: catalogue.get(handler)?.timeoutSeconds, maxRetries: catalogue.get(handler)?.maxRetries }),
        domAttributes: stepDomAttributes(key),
        selected: true,
      };
      setNodes((cur) => [...cur.map((n) => (n.selected ? { ...n, selected: false } : n)), node]);
      setEdges((es) => es.map((e) => (e.selected ? { ...e, selected: false } : e)));
      // No room on screen: fit the whole graph once React Flow has the new node, so the operator sees where it went.
      if (!spot.inView) window.requestAnimationFrame(() => void fitView({ ...FIT_VIEW_OPTIONS, duration: 250 }));
    },
    [screenToFlowPosition, fitView, setNodes, setEdges, catalogue],
  );

  const autoLayout = useCallback(() => {
    const ns = live.current.nodes;
    const pos = layoutDag(
      ns.map((n) => ({ id: n.id, width: n.measured?.width, height: n.measured?.height })),
      live.current.edges.map((e) => ({ source: e.source, target: e.target })),
      { direction: 'LR' },
    );
    setNodes((cur) => cur.map((n) => (pos[n.id] ? { ...n, position: pos[n.id]! } : n)));
    // Fit after React Flow has applied the new positions.
    window.requestAnimationFrame(() => void fitView({ ...FIT_VIEW_OPTIONS, duration: 250 }));
  }, [fitView, setNodes]);

  const discard = useCallback(() => {
    setNodes(initial.nodes);
    setEdges(initial.edges);
    setBaseline(propsSnapshot);
    setServerErrors(new Map());
    setBanner(null);
  }, [initial, propsSnapshot, setNodes, setEdges]);

  const save = useCallback(async () => {
    const { nodes: ns, edges: es } = live.current;
    const { dag, problems } = toDraft(ns, es);
    const selectFirstProblem = (id: string | undefined) => {
      if (id) setNodes((cur) => cur.map((n) => ({ ...n, selected: n.id === id })));
    };
    if (problems.size > 0) {
      const details = [...problems].flatMap(([id, errs]) => Object.entries(errs).map(([f, m]) => `Step "${ns.find((n) => n.id === id)?.data.key}" (${f}): ${m}`));
      setBanner({ kind: 'error', message: 'Fix the highlighted fields before saving', details });
      selectFirstProblem([...problems.keys()][0]);
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
        setBaseline(saved);
        setServerErrors(new Map());
        setBanner({ kind: 'success', message: 'Saved as a new job version' });
        return;
      }
      const fields = r.fields ?? {};
      const next: ServerErrors = new Map();
      for (const [path, message] of Object.entries(fields)) {
        const p = parseErrorPath(path);
        const node = p.stepIndex !== undefined ? ns[p.stepIndex] : undefined;
        if (node && p.field) next.set(node.id, { ...next.get(node.id), [p.field]: message });
      }
      setServerErrors(next);
      const details = Object.entries(fields).map(([path, m]) => `${describeErrorPath(path, dag)}: ${m}`);
      setBanner({ kind: 'error', message: r.error || 'Save failed', details: details.length ? details : undefined });
    } catch (e) {
      setBanner({ kind: 'error', message: `Save failed: ${e instanceof Error ? e.message : String(e)}` });
    } finally {
      setSaving(false);
    }
  }, [onSave, setNodes]);

  // A success note fades; errors stay until dismissed or replaced (an operator may be reading a long cycle).
  useEffect(() => {
    if (banner?.kind !== 'success') return;
    const t = window.setTimeout(() => setBanner((b) => (b === banner ? null : b)), 4000);
    return () => window.clearTimeout(t);
  }, [banner]);

  const palette = useMemo(() => [...new Set(handlers)].sort(), [handlers]);
  const selectedErrors = selectedNode ? (fieldErrors.get(selectedNode.id) ?? {}) : {};

  return (
    <div className={`flex flex-col overflow-hidden rounded-lg border border-slate-200 bg-white ${className ?? 'h-[70vh] min-h-[480px]'}`} data-testid="dag-editor" data-dirty={dirty ? 'true' : 'false'}>
      {/* Toolbar */}
      <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-2">
        {!readOnly ? (
          <div className="flex items-center gap-1" role="group" aria-label="Type of new dependencies">
            <span className="mr-1 text-xs text-slate-500">New edges:</span>
            {DEP_TYPES.map((t) => (
              <button
                key={t}
                type="button"
                aria-pressed={edgeType === t}
                onClick={() => setEdgeType(t)}
                data-testid={`dag-edge-type-${t}`}
                title={EDGE_STYLES[t].hint}
                className={`inline-flex items-center gap-1.5 rounded-md border px-2 py-1 font-mono text-xs ${edgeType === t ? 'border-indigo-500 bg-indigo-50 text-indigo-900' : 'border-slate-200 text-slate-600 hover:bg-slate-50'}`}
              >
                <svg width="18" height="6" aria-hidden="true">
                  <line x1="1" y1="3" x2="17" y2="3" stroke={EDGE_STYLES[t].stroke} strokeWidth="2" strokeDasharray={EDGE_STYLES[t].dash} strokeLinecap={t === 'on_failure' ? 'round' : undefined} />
                </svg>
                {EDGE_STYLES[t].label}
              </button>
            ))}
          </div>
        ) : (
          <span className="text-xs text-slate-500">Read-only view</span>
        )}
        <div className="ml-auto flex items-center gap-2">
          {!readOnly ? (
            <button type="button" onClick={autoLayout} data-testid="dag-layout" className="inline-flex items-center gap-1 rounded-md border border-slate-200 px-2 py-1 text-xs text-slate-700 hover:bg-slate-50" title="Lay out left to right">
              <Network className="size-3.5" /> Auto layout
            </button>
          ) : null}
          <button type="button" onClick={() => void fitView({ ...FIT_VIEW_OPTIONS, duration: 250 })} data-testid="dag-fit" className="inline-flex items-center gap-1 rounded-md border border-slate-200 px-2 py-1 text-xs text-slate-700 hover:bg-slate-50">
            <Maximize className="size-3.5" /> Fit
          </button>
          {dirty ? (
            <span className="inline-flex items-center gap-1 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900" data-testid="dag-dirty" role="status">
              <span className="size-1.5 rounded-full bg-amber-500" /> Unsaved changes
            </span>
          ) : null}
          {!readOnly ? (
            <>
              <button type="button" onClick={discard} disabled={!dirty || saving} data-testid="dag-discard" className="inline-flex items-center gap-1 rounded-md border border-slate-200 px-2 py-1 text-xs text-slate-700 hover:bg-slate-50 disabled:opacity-40">
                <Undo2 className="size-3.5" /> Discard
              </button>
              <button type="button" onClick={() => void save()} disabled={!dirty || saving} data-testid="dag-save" className="inline-flex items-center gap-1 rounded-md bg-indigo-600 px-2.5 py-1 text-xs font-medium text-white hover:bg-indigo-500 disabled:opacity-40">
                {saving ? <LoaderCircle className="size-3.5 animate-spin" /> : <Save className="size-3.5" />} Save
              </button>
            </>
          ) : null}
        </div>
      </div>

      {banner ? (
        banner.kind === 'error' ? (
          <div role="alert" data-testid="dag-alert" className="flex items-start gap-2 border-b border-red-200 bg-red-50 px-3 py-2 text-[13px] text-red-900">
            <CircleAlert className="mt-0.5 size-4 shrink-0" />
            <div className="min-w-0 flex-1">
              <div className="font-medium">{banner.message}</div>
              {banner.details?.length ? (
                <ul className="mt-0.5 list-disc pl-4 text-xs">
                  {banner.details.map((d) => (
                    <li key={d}>{d}</li>
                  ))}
                </ul>
              ) : null}
            </div>
            <button type="button" onClick={() => setBanner(null)} aria-label="Dismiss" className="rounded p-0.5 hover:bg-red-100">
              <X className="size-4" />
            </button>
          </div>
        ) : (
          <div role="status" data-testid="dag-status" className="flex items-center gap-2 border-b border-emerald-200 bg-emerald-50 px-3 py-2 text-[13px] text-emerald-900">
            <Check className="size-4" /> {banner.message}
          </div>
        )
      ) : null}

      <div className="flex min-h-0 flex-1">
        {!readOnly ? (
          <aside className="w-44 shrink-0 overflow-y-auto border-r border-slate-200 bg-slate-50 p-2" aria-label="Handlers" data-testid="dag-palette">
            <div className="mb-1.5 px-1 text-xs font-semibold text-slate-700">Add a step</div>
            {palette.length === 0 ? <p className="px-1 text-xs text-slate-500">No worker has reported a handler yet. Start a worker to fill this list.</p> : null}
            <HandlerPaletteList names={palette} onAdd={addStep} />
          </aside>
        ) : null}

        <div className="relative min-w-0 flex-1" ref={canvasRef}>
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
            <Background gap={20} size={1} color="#cbd5e1" />
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

        <aside className="w-72 shrink-0 overflow-y-auto border-l border-slate-200 p-3" aria-label="Selection">
          {selectedNode ? (
            <StepPanel
              key={selectedNode.id}
              data={selectedNode.data}
              errors={selectedErrors}
              handlers={palette}
              readOnly={readOnly}
              onChange={(patch) => updateStep(selectedNode.id, patch)}
              onDelete={() => deleteStep(selectedNode.id)}
            />
          ) : selectedEdge ? (
            <EdgePanel
              key={selectedEdge.id}
              from={keyOf(selectedEdge.source)}
              to={keyOf(selectedEdge.target)}
              type={selectedEdge.data?.type ?? 'hard'}
              readOnly={readOnly}
              onType={(t) => setEdges((es) => es.map((e) => (e.id === selectedEdge.id ? withEdgeType(e, t) : e)))}
              onDelete={() => setEdges((es) => es.filter((e) => e.id !== selectedEdge.id))}
            />
          ) : (
            <div className="space-y-2 text-xs text-slate-500">
              <p className="font-medium text-slate-700">Nothing selected</p>
              {readOnly ? (
                <p>Click a step or a dependency to see its settings.</p>
              ) : (
                <>
                  <p>Click a step or a dependency to edit it.</p>
                  <p>Drag from a step&apos;s right handle to another step&apos;s left handle to add a dependency of the type chosen in the toolbar.</p>
                  <p>Delete or Backspace removes the selection.</p>
                </>
              )}
            </div>
          )}
        </aside>
      </div>
    </div>
  );
}

/**
 * The edge legend; while a connection is dragged over a handle it may not end on, the reason instead (the cycle it
 * would close, by step key), in the same spot below the graph so it never covers a step. Back to the legend as
 * soon as the pointer leaves that handle or the drag ends (a drop there also puts the reason in the alert banner).
 * Must render inside <ReactFlow> (useConnection reads its store).
 */
function LegendOrConnectionHint() {
  const { getNodes, getEdges } = useReactFlow<StepNode, DepEdge>();
  const reason = useConnection((c) => {
    if (!c.inProgress || c.isValid !== false || !c.toNode || !c.toHandle) return null;
    return connectionRefusal(getNodes(), getEdges(), { nodeId: c.fromNode.id, type: c.fromHandle.type }, { nodeId: c.toNode.id, type: c.toHandle.type });
  });
  if (!reason) return <EdgeLegend />;
  return (
    <div role="status" data-testid="dag-connection-hint" className="pointer-events-none flex items-center gap-1.5 rounded-md border border-red-300 bg-red-50 px-2.5 py-1.5 text-xs font-medium text-red-900 shadow-sm">
      <CircleAlert className="size-3.5 shrink-0" /> {reason}
    </div>
  );
}
