'use client';
// Canvas gestures of the DAG editor turned into reducer actions (model.ts editorReducer): node/edge changes, typed
// drag-to-connect with the cycle refusal, new steps from the palette (click or drop), auto-layout and fit.
// Must run inside a ReactFlowProvider (it uses useReactFlow).
import { useCallback, useRef, type Dispatch, type DragEvent, type RefObject } from 'react';
import {
  useReactFlow,
  useStore,
  type Connection,
  type IsValidConnection,
  type OnConnect,
  type OnConnectEnd,
  type OnEdgesChange,
  type OnNodesChange,
} from '@xyflow/react';
import { layoutDag, type DepType } from '@/lib/dag';
import { EDITOR_NARROW_BOTTOM, EDITOR_PADDING, fitPadding, fitViewOptionsFor, minZoomFor, panToShow } from './canvas';
import type { Banner } from './EditorBanner';
import {
  checkConnection,
  connectionRefusal,
  freeSpot,
  newStepSpot,
  stepDomAttributes,
  stepToData,
  uniqueStepKey,
  type DepEdge,
  type EditorAction,
  type FlowRect,
  type StepNode,
} from './model';
import { PALETTE_MIME } from './Palette';
import { useHandlerCatalogue } from '../handlers/use-handler-catalogue';
import type { LiveDoc } from './use-dag-editor';

let newNodeSeq = 0;
/** Ids of nodes added in this session: never reused, so an edge id can never point at a different step. */
const newNodeId = () => `n${Date.now().toString(36)}${(newNodeSeq++).toString(36)}`;

/** Size of a new step card before React Flow has measured it (px). */
const NEW_STEP_SIZE = { width: 200, height: 64 };

/** The React Flow callbacks and editor commands of the canvas (see the file comment). */
export function useCanvasEdits(p: {
  readOnly: boolean;
  /** the edge type a new connection gets (the toolbar's choice) */
  edgeType: DepType;
  live: LiveDoc;
  dispatch: Dispatch<EditorAction>;
  refuse(reason: string): void;
  setBanner: Dispatch<React.SetStateAction<Banner | null>>;
  canvasRef: RefObject<HTMLDivElement | null>;
}) {
  const { readOnly, edgeType, live, dispatch, refuse, setBanner, canvasRef } = p;
  const { fitView, getNodes, getNodesBounds, screenToFlowPosition, getViewport, setViewport } = useReactFlow<StepNode, DepEdge>();
  const catalogue = useHandlerCatalogue();

  const onNodesChange = useCallback<OnNodesChange<StepNode>>((changes) => dispatch({ type: 'nodeChanges', changes }), [dispatch]);
  const onEdgesChange = useCallback<OnEdgesChange<DepEdge>>((changes) => dispatch({ type: 'edgeChanges', changes }), [dispatch]);

  // The rule while dragging (React Flow marks the hovered handle valid/invalid and draws the line accordingly).
  // Pure: it runs on every pointer move; the reason is shown live by <LegendOrConnectionHint> and on drop by onConnectEnd.
  const isValidConnection = useCallback<IsValidConnection<DepEdge>>(
    (c) => !readOnly && checkConnection(live.current.nodes, live.current.edges, c.source, c.target).ok,
    [readOnly, live],
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
    [edgeType, refuse, live, dispatch, setBanner],
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
    [readOnly, refuse, live],
  );

  const onConnectStart = useCallback(() => {
    // A new drag starts with a clean slate: an old refusal must not be mistaken for this drag's.
    setBanner((b) => (b?.kind === 'error' && b.message.startsWith('Refused:') ? null : b));
  }, [setBanner]);

  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const fit = useCallback(() => {
    // as far down as the whole graph needs, the floor DagCanvas gives React Flow (canvas.ts minZoomFor)
    const nodes = getNodes();
    const minZoom = minZoomFor(nodes.length ? getNodesBounds(nodes) : null, { width, height }, fitPadding(width, EDITOR_PADDING, EDITOR_NARROW_BOTTOM));
    void fitView({ ...fitViewOptionsFor(width, EDITOR_PADDING, EDITOR_NARROW_BOTTOM, minZoom), duration: 250 });
  }, [fitView, getNodes, getNodesBounds, width, height]);

  // The step added last in this session: a click with nothing selected puts the next one beside it.
  const lastAdded = useRef<string | null>(null);
  /**
   * Adds a step of `handler`: at `drop` (screen px, from a palette drag), moved to the nearest spot that covers no
   * other step, or from a click where {@link newStepSpot} puts it (beside the selected or last added step, on screen
   * when there is free room there), the view panned only when it had to go off screen.
   */
  const addStep = useCallback(
    (handler: string, drop?: { x: number; y: number }) => {
      const ns = live.current.nodes;
      const key = uniqueStepKey(handler, ns.map((n) => n.data.key));
      const box = canvasRef.current?.getBoundingClientRect();
      const size = NEW_STEP_SIZE;
      const rectOf = (n: StepNode): FlowRect => ({ x: n.position.x, y: n.position.y, width: n.measured?.width ?? size.width, height: n.measured?.height ?? size.height });
      const pad = EDITOR_PADDING;
      const visible = box
        ? (() => {
            const tl = screenToFlowPosition({ x: box.left + pad.left, y: box.top + pad.top });
            const br = screenToFlowPosition({ x: box.right - pad.right, y: box.bottom - pad.bottom });
            return { x: tl.x, y: tl.y, width: br.x - tl.x, height: br.y - tl.y };
          })()
        : undefined;
      const beside = ns.find((n) => n.selected) ?? ns.find((n) => n.id === lastAdded.current);
      const taken = ns.map(rectOf);
      let spot: { x: number; y: number };
      if (drop) {
        // where the operator dropped it, even off the padded area
        const at = screenToFlowPosition(drop);
        spot = freeSpot({ x: at.x - size.width / 2, y: at.y - size.height / 2 }, size, taken);
      } else {
        const centre = box ? screenToFlowPosition({ x: box.left + box.width / 2, y: box.top + box.height / 2 }) : { x: 0, y: 0 };
        spot = newStepSpot(beside ? rectOf(beside) : null, centre, size, taken, visible);
      }
      const node: StepNode = {
        id: newNodeId(),
        type: 'step',
        position: { x: spot.x, y: spot.y },
        // A handler's advertised defaults (timeoutSeconds, retry) become the new step's own Timeout / Max retries.
        data: stepToData({ key, handler, payload: {}, config: {}, timeoutSeconds: catalogue.get(handler)?.timeoutSeconds, maxRetries: catalogue.get(handler)?.maxRetries }),
        domAttributes: stepDomAttributes(key),
        selected: true,
      };
      lastAdded.current = node.id;
      dispatch({ type: 'addStep', node });
      // Off screen: pan (at the same zoom, so the text stays legible) just enough to show it.
      if (box && !drop) {
        const to = panToShow(getViewport(), { ...spot, ...size }, { width: box.width, height: box.height }, pad);
        if (to) void setViewport(to, { duration: 200 });
      }
    },
    [screenToFlowPosition, getViewport, setViewport, catalogue, live, canvasRef, dispatch],
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
    const positions = layoutDag(
      live.current.nodes.map((n) => ({ id: n.id, width: n.measured?.width, height: n.measured?.height })),
      live.current.edges.map((e) => ({ source: e.source, target: e.target })),
      { direction: 'LR' },
    );
    dispatch({ type: 'layout', positions });
    // Fit after React Flow has applied the new positions.
    window.requestAnimationFrame(fit);
  }, [fit, live, dispatch]);

  return {
    /** the callbacks <ReactFlow> takes as they are */
    flow: { onNodesChange, onEdgesChange, isValidConnection, onConnect, onConnectEnd, onConnectStart },
    addStep, onDragOver, onDrop, autoLayout, fit,
  };
}

/** The callbacks {@link useCanvasEdits} returns. */
export type CanvasEdits = ReturnType<typeof useCanvasEdits>;
