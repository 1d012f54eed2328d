'use client';
// The job's DAG editor: React Flow canvas with a handler palette, a side panel for the selected step/edge, typed
// drag-to-connect with cycle refusal, auto-layout, and an unsaved-changes guard. Its state lives in one pure
// reducer (model.ts editorReducer) behind use-dag-editor.ts; canvas gestures in use-canvas-edits.ts; the toolbar,
// banner, palette, canvas and side panel are sections of their own.
// It never touches the database: it receives the DAG as props and hands the new one to onSave.
import { useMemo, useRef, useState } from 'react';
import { ReactFlowProvider } from '@xyflow/react';
import type { DepType } from '@/lib/dag';
import { DagCanvas } from './DagCanvas';
import { EditorToolbar } from './EditorToolbar';
import type { DagDraft, EdgeDraft, SaveDagResult, StepDraft } from './model';
import { Palette } from './Palette';
import { SelectionAside } from './SelectionAside';
import { useCanvasEdits } from './use-canvas-edits';
import { useDagEditor } from './use-dag-editor';

export type { DagDraft, EdgeDraft, SaveDagResult, StepDraft } from './model';

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

function DagEditorInner({ steps, edges: edgeProps, handlers, readOnly = false, onSave, className }: DagEditorProps) {
  const editorRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLDivElement>(null);
  const [edgeType, setEdgeType] = useState<DepType>('hard');
  const ed = useDagEditor({ steps, edges: edgeProps, readOnly, onSave, editorRef });
  const { state, dispatch, nodes, edges, dirty } = ed;
  const edits = useCanvasEdits({ readOnly, edgeType, live: ed.live, dispatch, refuse: ed.refuse, setBanner: ed.setBanner, canvasRef });

  const selectedNode = nodes.find((n) => n.selected) ?? null;
  const selectedEdge = selectedNode ? null : (edges.find((e) => e.selected) ?? null);
  const keyOf = (id: string) => ed.live.current.nodes.find((n) => n.id === id)?.data.key ?? id;
  const palette = useMemo(() => [...new Set(handlers)].sort(), [handlers]);
  const selectedErrors = selectedNode ? (ed.fieldErrors.get(selectedNode.id) ?? {}) : {};

  return (
    <div ref={editorRef} className={`flex flex-col overflow-hidden rounded-lg border border-slate-200 bg-white ${className ?? 'h-[70vh] min-h-[480px] max-md:h-auto'}`} data-testid="dag-editor" data-dirty={dirty ? 'true' : 'false'}>
      <EditorToolbar
        readOnly={readOnly}
        edgeType={edgeType}
        onEdgeType={setEdgeType}
        dirty={dirty}
        saving={ed.saving}
        onLayout={edits.autoLayout}
        onFit={edits.fit}
        onDiscard={ed.discard}
        onSave={() => void ed.save()}
        canUndo={state.past.length > 0}
        canRedo={state.future.length > 0}
        onUndo={() => dispatch({ type: 'undo' })}
        onRedo={() => dispatch({ type: 'redo' })}
      />

      {/* below 768 px the palette, the canvas and the selection stack, so the canvas keeps the screen's width */}
      <div className="flex min-h-0 flex-1 max-md:flex-col">
        {!readOnly ? <Palette handlers={palette} onAdd={edits.addStep} /> : null}
        <DagCanvas nodes={ed.renderedNodes} edges={edges} readOnly={readOnly} edits={edits} banner={ed.banner} onDismissBanner={() => ed.setBanner(null)} canvasRef={canvasRef} />
        <SelectionAside selectedNode={selectedNode} selectedEdge={selectedEdge} errors={selectedErrors} handlers={palette} readOnly={readOnly} keyOf={keyOf} dispatch={dispatch} />
      </div>
    </div>
  );
}
