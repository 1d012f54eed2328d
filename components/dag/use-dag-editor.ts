'use client';
// The DAG editor's state: the pure reducer (model.ts editorReducer) plus what lives around it — adopting new
// props, field errors, undo/redo keys, the unsaved-changes guard, the banner, save and discard. No React Flow here:
// components/dag/use-canvas-edits.ts turns canvas gestures into reducer actions.
import { useCallback, useEffect, useMemo, useReducer, useRef, useState, type Dispatch, type RefObject } from 'react';
import { validateDag } from '@/lib/dag';
import type { Banner } from './EditorBanner';
import {
  describeErrorPath,
  describeStepField,
  editorReducer,
  initEditor,
  isDirty,
  parseErrorPath,
  snapshot,
  stepFieldErrors,
  toDraft,
  toFlow,
  type DagDraft,
  type DepEdge,
  type EdgeDraft,
  type EditorAction,
  type EditorState,
  type SaveDagResult,
  type StepDraft,
  type StepField,
  type StepNode,
} from './model';
import { ask, useUnsavedChangesGuard } from '../unsaved-changes';

const LEAVE_MESSAGE = 'The graph has unsaved changes. Leave and discard them?';

/** Field errors per node id (client checks merged with the server's answer to the last save). */
export type FieldErrors = Map<string, Partial<Record<StepField, string>>>;

/** The latest nodes and edges, for callbacks React Flow keeps (isValidConnection runs on every pointer move of a drag). */
export type LiveDoc = RefObject<{ nodes: StepNode[]; edges: DepEdge[]; dirty: boolean }>;

/** What {@link useDagEditor} gives the editor's sections. */
export type DagEditorState = {
  state: EditorState;
  dispatch: Dispatch<EditorAction>;
  nodes: StepNode[];
  edges: DepEdge[];
  /** nodes as rendered: their field errors ride along in data */
  renderedNodes: StepNode[];
  fieldErrors: FieldErrors;
  live: LiveDoc;
  dirty: boolean;
  saving: boolean;
  banner: Banner | null;
  setBanner: Dispatch<React.SetStateAction<Banner | null>>;
  /** shows `reason` as the error banner (the same reason twice keeps one banner) */
  refuse(reason: string): void;
  save(): Promise<void>;
  discard(): void;
};

/**
 * The editor's state for the saved DAG `steps` / `edges` (props of DagEditor): undo/redo keys on `editorRef`'s
 * fields and the page, the unsaved-changes guard, and `onSave` (see DagEditorProps) behind `save`.
 */
export function useDagEditor(p: {
  steps: StepDraft[];
  edges: EdgeDraft[];
  readOnly: boolean;
  onSave(dag: DagDraft): Promise<SaveDagResult>;
  editorRef: RefObject<HTMLDivElement | null>;
}): DagEditorState {
  const { steps, edges: edgeProps, readOnly, onSave, editorRef } = p;
  const initial = useMemo(() => toFlow(steps, edgeProps), [steps, edgeProps]);
  const [state, dispatch] = useReducer(editorReducer, initial, initEditor);
  const { nodes, edges } = state.doc;
  const [banner, setBanner] = useState<Banner | null>(null);
  const [saving, setSaving] = useState(false);
  const dirty = !readOnly && isDirty(state);

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

  const fieldErrors = useMemo(() => mergeFieldErrors(nodes, state.serverErrors), [nodes, state.serverErrors]);

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
  useUndoKeys(readOnly, editorRef, dispatch);

  const refuse = useCallback((reason: string) => {
    setBanner((b) => (b && b.kind === 'error' && b.message === reason ? b : { kind: 'error', message: reason }));
  }, []);

  const discard = useCallback(() => {
    void ask({ title: 'Discard your unsaved changes to the graph?', message: 'Ctrl+Z brings them back.', confirmLabel: 'Discard', cancelLabel: 'Keep editing' }).then((ok) => {
      if (!ok) return;
      dispatch({ type: 'discard', doc: initial });
      setBanner(null);
    });
  }, [initial]);

  const save = useCallback(async () => {
    const { nodes: ns, edges: es } = live.current;
    const { dag, problems } = toDraft(ns, es);
    if (problems.size > 0) {
      const details = [...problems].flatMap(([id, errs]) => Object.entries(errs).map(([f, m]) => `${describeStepField(ns.find((n) => n.id === id)?.data.key ?? '', f as StepField)}: ${m}`));
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
        setBanner({ kind: 'success', message: r.newVersion === false ? 'Saved the layout (moving steps makes no new job version)' : 'Saved as a new job version' });
        return;
      }
      const fields = r.fields ?? {};
      dispatch({ type: 'serverErrors', errors: serverFieldErrors(fields, ns) });
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

  return { state, dispatch, nodes, edges, renderedNodes, fieldErrors, live, dirty, saving, banner, setBanner, refuse, save, discard };
}

/** Client-side field errors (duplicate keys included) over the server's, per node id; recomputed as the operator types. */
function mergeFieldErrors(nodes: StepNode[], serverErrors: EditorState['serverErrors']): FieldErrors {
  const count = new Map<string, number>();
  for (const n of nodes) count.set(n.data.key, (count.get(n.data.key) ?? 0) + 1);
  const out: FieldErrors = new Map();
  for (const n of nodes) {
    const errs = stepFieldErrors(n.data, new Set(count.get(n.data.key)! > 1 ? [n.data.key] : []));
    const merged = { ...serverErrors.get(n.id), ...errs };
    if (Object.keys(merged).length > 0) out.set(n.id, merged);
  }
  return out;
}

/** A refused save's `fields` (keyed `steps.<i>.<field>`, indexes into the saved nodes) per node id. */
function serverFieldErrors(fields: Record<string, string>, ns: StepNode[]): FieldErrors {
  const next: FieldErrors = new Map();
  for (const [path, message] of Object.entries(fields)) {
    const p = parseErrorPath(path);
    const node = p.stepIndex !== undefined ? ns[p.stepIndex] : undefined;
    if (node && p.field) next.set(node.id, { ...next.get(node.id), [p.field]: message });
  }
  return next;
}

/**
 * Undo / redo over every edit: Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y (Cmd on macOS). Inside the editor's own fields too
 * (one run of typing is one step); text fields elsewhere on the page keep the browser's own undo.
 */
function useUndoKeys(readOnly: boolean, editorRef: RefObject<HTMLDivElement | null>, dispatch: Dispatch<EditorAction>): void {
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
  }, [readOnly, editorRef, dispatch]);
}
