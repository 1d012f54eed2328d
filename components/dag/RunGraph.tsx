'use client';
// Read-only graph of a run (the run page): the job's DAG with each node coloured by its task's status,
// attempt count and duration. The parent owns live updates (it re-renders with new `tasks`); clicking a node
// calls onSelectTask so the page can open that task's log timeline.
import { memo, useCallback, useEffect, useMemo } from 'react';
import { Background, Controls, Handle, MiniMap, Panel, Position, ReactFlow, ReactFlowProvider, type EdgeTypes, type Node, type NodeMouseHandler, type NodeProps, type NodeTypes, useNodesState, useStore } from '@xyflow/react';
import { Ban, CircleCheck, CircleDashed, CircleX, Clock, LoaderCircle, Skull, TriangleAlert } from 'lucide-react';
import { MINIMAP_SIZE, RUN_NARROW_BOTTOM, cardHeight, cardTitle, RUN_PADDING, fitViewOptionsFor, isNarrowCanvas, runCanvasHeight } from './canvas';
import { DepEdgeView } from './DepEdgeView';
import { CompactKey, useCompactCard } from './CompactKey';
import { toFlow, type DepEdge, type EdgeDraft, type StepDraft } from './model';
import { useInitialView, useZoomFloor } from './use-initial-view';
import { attemptLabel, type AttemptFacts } from '@/lib/runs/run-view';
import { formatDuration } from '@/lib/time/format';

/** Task statuses (lib/engine/states.ts TASK_STATUSES; docs/design.md §4). */
export type RunTaskStatus = 'pending' | 'running' | 'success' | 'failed' | 'timeout' | 'cancelled' | 'dead' | 'skipped';

/** One task of the run, by step key, with what its attempt label needs (lib/runs/run-view.ts attemptLabel); `durationMs` null/absent while not started or unknown. */
export type RunGraphTask = AttemptFacts & { stepKey: string; status: RunTaskStatus | string; durationMs?: number | null };

/**
 * Props of {@link RunGraph}: the job version's `steps` / `edges` (positions in px; laid out if missing), the run's
 * `tasks` (a step without a task is shown as `untaskedStatus`, default pending), `selectedStepKey` to highlight the open task, and
 * `onSelectTask(stepKey)` called on node click. The box is as tall as the graph needs (canvas.ts runCanvasHeight);
 * `className` adds classes to it. The edge legend is not drawn inside, where it covered cards: the page puts it above (Legend.tsx).
 */
export type RunGraphProps = {
  steps: StepDraft[];
  edges: EdgeDraft[];
  tasks: RunGraphTask[];
  /** how a step without a task is shown: pending (not created yet) unless the run ended without creating any (skipped) */
  untaskedStatus?: RunTaskStatus;
  onSelectTask?(stepKey: string): void;
  selectedStepKey?: string | null;
  className?: string;
};

type RunNodeData = { key: string; name: string; handler: string; status: string; attempt: { short: string; title: string }; durationMs: number | null; selected: boolean };
type RunNode = Node<RunNodeData, 'run-step'>;

/** Look of each status: pending grey, running blue + pulse, success green, failed/timeout orange, dead red, skipped striped, cancelled dark grey. */
export const RUN_STATUS_STYLES: Record<RunTaskStatus, { box: string; text: string; label: string; minimap: string }> = {
  pending: { box: 'border-slate-300 bg-slate-100', text: 'text-slate-600', label: 'pending', minimap: '#cbd5e1' },
  running: { box: 'border-blue-500 bg-blue-50 shadow-[0_0_0_3px_rgb(59_130_246/0.25)]', text: 'text-blue-700', label: 'running', minimap: '#3b82f6' },
  success: { box: 'border-emerald-500 bg-emerald-50', text: 'text-emerald-700', label: 'success', minimap: '#10b981' },
  failed: { box: 'border-orange-500 bg-orange-50', text: 'text-orange-700', label: 'failed', minimap: '#f97316' },
  timeout: { box: 'border-orange-500 bg-orange-50', text: 'text-orange-700', label: 'timeout', minimap: '#f97316' },
  dead: { box: 'border-red-600 bg-red-50', text: 'text-red-700', label: 'dead', minimap: '#dc2626' },
  skipped: { box: 'border-dashed border-slate-300 bg-white', text: 'text-slate-400', label: 'skipped', minimap: '#e2e8f0' },
  cancelled: { box: 'border-slate-700 bg-slate-600', text: 'text-slate-100', label: 'cancelled', minimap: '#475569' },
};

const STATUS_ICON: Record<RunTaskStatus, typeof Clock> = {
  pending: CircleDashed,
  running: LoaderCircle,
  success: CircleCheck,
  failed: TriangleAlert,
  timeout: Clock,
  dead: Skull,
  skipped: CircleX,
  cancelled: Ban,
};

const styleOf = (status: string) => RUN_STATUS_STYLES[status as RunTaskStatus] ?? RUN_STATUS_STYLES.pending;

const RunStepNodeView = memo(function RunStepNodeView({ data }: NodeProps<RunNode>) {
  const look = styleOf(data.status);
  const Icon = STATUS_ICON[data.status as RunTaskStatus] ?? CircleDashed;
  const dark = data.status === 'cancelled';
  // zoomed out, the key alone, large, on the status colour (canvas.ts compactCard); the details keep the card's size
  const compact = useCompactCard(cardHeight(data.name), data.key);
  const detail = compact ? 'invisible' : '';
  return (
    <div
      className={`relative w-[200px] cursor-pointer rounded-lg border-2 px-3 py-2 text-left ${look.box} ${data.selected ? 'ring-2 ring-indigo-500 ring-offset-2' : ''}`}
      title={cardTitle(data.key, data.name, look.label)}
      // Skipped = "light striped": a diagonal hatch, which also reads in greyscale.
      style={data.status === 'skipped' ? { backgroundImage: 'repeating-linear-gradient(135deg, var(--color-slate-50, #f8fafc) 0 6px, var(--color-slate-200, #e2e8f0) 6px 8px)' } : undefined}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} className="!h-2 !w-2 !border-0 !bg-slate-400" />
      {data.status === 'running' ? <span className="absolute -top-1 -right-1 size-3 animate-ping rounded-full bg-blue-500/70" aria-hidden="true" /> : null}
      <div className={`flex items-center gap-1.5 ${detail}`}>
        <Icon className={`size-3.5 shrink-0 ${look.text} ${data.status === 'running' ? 'animate-spin' : ''}`} aria-hidden="true" />
        <span className={`truncate font-mono text-[14px] font-semibold ${dark ? 'text-white' : 'text-slate-900'}`}>{data.key}</span>
      </div>
      {data.name ? <div className={`truncate text-xs ${dark ? 'text-slate-200' : 'text-slate-600'} ${detail}`}>{data.name}</div> : null}
      <div className={`mt-1 flex items-center justify-between gap-2 text-[12px] ${look.text} ${detail}`}>
        <span className="font-medium" data-testid={`run-node-status-${data.key}`}>
          {look.label}
        </span>
        <span className="flex items-center gap-2 tabular-nums">
          <span title={data.attempt.title} className="opacity-70" data-testid={`run-node-attempt-${data.key}`}>
            {data.attempt.short}
          </span>
          {data.durationMs != null ? <span title="Duration">{formatDuration(data.durationMs)}</span> : null}
        </span>
      </div>
      {compact ? <CompactKey text={data.key} compact={compact} className={dark ? 'text-white' : look.text} /> : null}
      <Handle type="source" position={Position.Right} isConnectable={false} className="!h-2 !w-2 !border-0 !bg-slate-400" />
    </div>
  );
});

// Module level, as in the editor: stable identities keep React Flow from remounting nodes on every update.
const nodeTypes: NodeTypes = { 'run-step': RunStepNodeView };
const edgeTypes: EdgeTypes = { dep: DepEdgeView };

/** Read-only run graph. Node roots carry `data-testid="run-node-<key>"` and `data-status="<task status>"`. */
export function RunGraph(props: RunGraphProps) {
  return (
    <ReactFlowProvider>
      <RunGraphInner {...props} />
    </ReactFlowProvider>
  );
}

function RunGraphInner({ steps, edges, tasks, untaskedStatus = 'pending', onSelectTask, selectedStepKey, className }: RunGraphProps) {
  // Layout depends only on the graph, never on task updates, so nodes do not jump while a run progresses.
  const base = useMemo(() => toFlow(steps, edges), [steps, edges]);
  const byKey = useMemo(() => new Map(tasks.map((t) => [t.stepKey, t])), [tasks]);
  const derived = useMemo<RunNode[]>(
    () =>
      base.nodes.map((n) => {
        const t = byKey.get(n.data.key);
        const status = t?.status ?? untaskedStatus;
        return {
          id: n.id,
          type: 'run-step',
          position: n.position,
          draggable: false,
          connectable: false,
          selectable: true,
          // Size before the first measurement (the MiniMap and the Fit button use it); matches the card below.
          initialWidth: 200,
          initialHeight: cardHeight(n.data.name),
          data: { key: n.data.key, name: n.data.name, handler: n.data.handler, status, attempt: attemptLabel(t ?? null), durationMs: t?.durationMs ?? null, selected: selectedStepKey === n.data.key },
          domAttributes: { 'data-testid': `run-node-${n.data.key}`, 'data-status': status } as RunNode['domAttributes'],
          ariaLabel: `${n.data.key}: ${status}`,
        };
      }),
    [base, byKey, selectedStepKey, untaskedStatus],
  );
  // Controlled nodes with onNodesChange, and every task update merged into the previous node objects keeping
  // their `measured` size: a fresh node object without it would make React Flow re-measure (and edges flicker)
  // on every live update of a running run.
  const [nodes, setNodes, onNodesChange] = useNodesState<RunNode>(derived);
  useEffect(() => {
    setNodes((prev) => {
      const prevById = new Map(prev.map((n) => [n.id, n]));
      return derived.map((d) => {
        const p = prevById.get(d.id);
        return p ? { ...d, measured: p.measured, selected: p.selected } : d;
      });
    });
  }, [derived, setNodes]);
  const flowEdges = useMemo<DepEdge[]>(() => {
    // An edge into a running task pulses, so the eye finds the active frontier. Not React Flow's
    // `animated`, whose moving dashes would draw a hard edge like a soft one (EDGE_STYLES).
    const statusById = new Map(nodes.map((n) => [n.id, n.data.status]));
    return base.edges.map((e) => ({ ...e, selectable: false, data: { type: e.data?.type ?? 'hard', active: statusById.get(e.target) === 'running' } }));
  }, [base, nodes]);

  useInitialView(RUN_PADDING);
  const width = useStore((s) => s.width);
  // On a phone's canvas the MiniMap is left out and Fit shows the whole graph (canvas.ts isNarrowCanvas).
  const narrow = isNarrowCanvas(width);
  // Fit and zooming out reach the whole graph, however big (canvas.ts minZoomFor)
  const minZoom = useZoomFloor(nodes, RUN_PADDING, RUN_NARROW_BOTTOM);
  // From the layout, not from measured cards: the box has its height at the first render, on the server too.
  const height = useMemo(() => {
    if (base.nodes.length === 0) return runCanvasHeight(0);
    const top = Math.min(...base.nodes.map((n) => n.position.y));
    const bottom = Math.max(...base.nodes.map((n) => n.position.y + cardHeight(n.data.name)));
    return runCanvasHeight(bottom - top);
  }, [base]);

  const onNodeClick = useCallback<NodeMouseHandler<RunNode>>((_, node) => onSelectTask?.(node.data.key), [onSelectTask]);
  const counts = useMemo(() => {
    const c = new Map<string, number>();
    for (const n of nodes) c.set(n.data.status, (c.get(n.data.status) ?? 0) + 1);
    return [...c];
  }, [nodes]);

  return (
    <div className={`relative overflow-hidden rounded-lg border border-slate-200 bg-white ${className ?? ''}`} style={{ height }} data-testid="run-graph">
      <ReactFlow<RunNode, DepEdge>
        nodes={nodes}
        edges={flowEdges}
        onNodesChange={onNodesChange}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodeClick={onNodeClick}
        nodesDraggable={false}
        nodesConnectable={false}
        edgesFocusable={false}
        deleteKeyCode={null}
        // The wheel scrolls the page past the graph (it sits in a long page); Ctrl+wheel and pinch zoom it.
        zoomOnScroll={false}
        preventScrolling={false}
        zoomActivationKeyCode="Control"
        zoomOnPinch
        minZoom={minZoom}
        attributionPosition="top-right"
      >
        <Background gap={20} size={1} color="var(--color-slate-200, #e2e8f0)" />
        <Controls showInteractive={false} fitViewOptions={fitViewOptionsFor(width, RUN_PADDING, RUN_NARROW_BOTTOM, minZoom)} />
        {narrow ? null : <MiniMap pannable zoomable style={MINIMAP_SIZE} nodeColor={(n) => styleOf((n.data as RunNodeData).status).minimap} />}
        <Panel position="top-left">
          <div className="flex flex-wrap gap-1.5 text-[11px]" data-testid="run-graph-summary">
            {counts.map(([s, n]) => (
              <span key={s} className={`rounded-full border px-2 py-0.5 ${styleOf(s).box} ${styleOf(s).text}`}>
                {n} {styleOf(s).label}
              </span>
            ))}
          </div>
        </Panel>
      </ReactFlow>
    </div>
  );
}

