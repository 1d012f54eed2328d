'use client';
// The DAG editor's right-hand panel: the selected step's fields, the selected edge's type, or how to use the editor.
import type { DepType } from '@/lib/dag';
import type { DepEdge, EditorAction, StepField, StepNode } from './model';
import { EdgePanel, StepPanel } from './SidePanel';

/** Props of {@link SelectionAside}: the selection, its field errors, the palette and the editor's dispatch. */
export type SelectionAsideProps = {
  selectedNode: StepNode | null;
  selectedEdge: DepEdge | null;
  errors: Partial<Record<StepField, string>>;
  handlers: string[];
  readOnly: boolean;
  keyOf(id: string): string;
  dispatch(action: EditorAction): void;
};

/** The panel beside the canvas. */
export function SelectionAside({ selectedNode, selectedEdge, errors, handlers, readOnly, keyOf, dispatch }: SelectionAsideProps) {
  return (
    <aside className="w-72 shrink-0 overflow-y-auto border-l border-slate-200 p-3 max-md:max-h-72 max-md:w-full max-md:border-l-0 max-md:border-t" aria-label="Selection">
      {selectedNode ? (
        <StepPanel
          key={selectedNode.id}
          data={selectedNode.data}
          errors={errors}
          handlers={handlers}
          readOnly={readOnly}
          onChange={(patch) => dispatch({ type: 'updateStep', id: selectedNode.id, patch })}
          onDelete={() => dispatch({ type: 'deleteStep', id: selectedNode.id })}
        />
      ) : selectedEdge ? (
        <EdgePanel
          key={selectedEdge.id}
          from={keyOf(selectedEdge.source)}
          to={keyOf(selectedEdge.target)}
          type={selectedEdge.data?.type ?? 'hard'}
          readOnly={readOnly}
          onType={(t: DepType) => dispatch({ type: 'setEdgeType', id: selectedEdge.id, edgeType: t })}
          onDelete={() => dispatch({ type: 'deleteEdge', id: selectedEdge.id })}
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
  );
}
