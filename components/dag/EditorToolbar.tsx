'use client';
// The DAG editor's toolbar: type of new dependencies, auto layout, fit, the unsaved-changes badge, Discard and Save.
import { DisabledReason } from '../ui/disabled-reason';
import { LoaderCircle, Maximize, Network, Redo2, Save, Trash2, Undo2 } from 'lucide-react';
import { DEP_TYPES, type DepType } from '@/lib/dag';
import { EDGE_STYLES } from './model';

/** Props of {@link EditorToolbar}: state to show and the handlers of its buttons. */
export type EditorToolbarProps = {
  readOnly: boolean;
  edgeType: DepType;
  onEdgeType(t: DepType): void;
  dirty: boolean;
  saving: boolean;
  onLayout(): void;
  onFit(): void;
  onDiscard(): void;
  onSave(): void;
  canUndo: boolean;
  canRedo: boolean;
  onUndo(): void;
  onRedo(): void;
};

/** Toolbar above the canvas (test ids `dag-edge-type-<type>`, `dag-undo`, `dag-redo`, `dag-layout`, `dag-fit`, `dag-dirty`, `dag-discard`, `dag-save`). */
export function EditorToolbar({ readOnly, edgeType, onEdgeType, dirty, saving, onLayout, onFit, onDiscard, onSave, canUndo, canRedo, onUndo, onRedo }: EditorToolbarProps) {
  return (
    <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-2">
      {!readOnly ? (
        <div className="flex items-center gap-1" role="group" aria-label="Type of new dependencies">
          <span className="mr-1 text-xs text-slate-500">New edges:</span>
          {DEP_TYPES.map((t) => (
            <button
              key={t}
              type="button"
              aria-pressed={edgeType === t}
              onClick={() => onEdgeType(t)}
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
          <>
            <DisabledReason reason={!canUndo && 'Nothing to undo'}>
              <button type="button" onClick={onUndo} data-testid="dag-undo" aria-label="Undo" title="Undo (Ctrl+Z)" className="inline-flex items-center rounded-md border border-slate-200 p-1 text-slate-700 hover:bg-slate-50 disabled:opacity-40">
                <Undo2 className="size-3.5" />
              </button>
            </DisabledReason>
            <DisabledReason reason={!canRedo && 'Nothing to redo'}>
              <button type="button" onClick={onRedo} data-testid="dag-redo" aria-label="Redo" title="Redo (Ctrl+Shift+Z)" className="inline-flex items-center rounded-md border border-slate-200 p-1 text-slate-700 hover:bg-slate-50 disabled:opacity-40">
                <Redo2 className="size-3.5" />
              </button>
            </DisabledReason>
          </>
        ) : null}
        {!readOnly ? (
          <button type="button" onClick={onLayout} data-testid="dag-layout" className="inline-flex items-center gap-1 rounded-md border border-slate-200 px-2 py-1 text-xs text-slate-700 hover:bg-slate-50" title="Lay out left to right">
            <Network className="size-3.5" /> Auto layout
          </button>
        ) : null}
        <button type="button" onClick={onFit} data-testid="dag-fit" className="inline-flex items-center gap-1 rounded-md border border-slate-200 px-2 py-1 text-xs text-slate-700 hover:bg-slate-50">
          <Maximize className="size-3.5" /> Fit
        </button>
        {dirty ? (
          <span className="inline-flex items-center gap-1 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900" data-testid="dag-dirty" role="status">
            <span className="size-1.5 rounded-full bg-amber-500" /> Unsaved changes
          </span>
        ) : null}
        {!readOnly ? (
          <>
            <DisabledReason reason={saving ? 'Saving…' : !dirty && 'No unsaved changes'}>
              <button type="button" onClick={onDiscard} data-testid="dag-discard" className="inline-flex items-center gap-1 rounded-md border border-slate-200 px-2 py-1 text-xs text-slate-700 hover:bg-slate-50 disabled:opacity-40">
                <Trash2 className="size-3.5" /> Discard
              </button>
            </DisabledReason>
            <DisabledReason reason={saving ? 'Saving…' : !dirty && 'No unsaved changes'}>
              <button type="button" onClick={onSave} data-testid="dag-save" className="inline-flex items-center gap-1 rounded-md bg-indigo-600 px-2.5 py-1 text-xs font-medium text-white hover:bg-indigo-500 disabled:opacity-40">
                {saving ? <LoaderCircle className="size-3.5 animate-spin" /> : <Save className="size-3.5" />} Save
              </button>
            </DisabledReason>
          </>
        ) : null}
      </div>
    </div>
  );
}
