'use client';
// The DAG editor's handler palette: one button per handler the workers report; a click adds a step of it beside
// the selection, a drag drops one where the pointer is released on the canvas.
import { GripVertical } from 'lucide-react';

/** The drag data type carrying a handler name from the palette to the canvas. */
export const PALETTE_MIME = 'application/x-tickflow-handler';

/** The palette (test ids `dag-palette`, `dag-palette-<handler>`). `handlers` sorted and unique. */
export function Palette({ handlers, onAdd }: { handlers: string[]; onAdd(handler: string): void }) {
  return (
    <aside className="w-44 shrink-0 overflow-y-auto border-r border-slate-200 bg-slate-50 p-2" aria-label="Handlers" data-testid="dag-palette">
      <div className="mb-1.5 px-1 text-xs font-semibold text-slate-700">Add a step</div>
      <p className="mb-1.5 px-1 text-[11px] text-slate-500">Click, or drag onto the canvas.</p>
      {handlers.length === 0 ? <p className="px-1 text-xs text-slate-500">No worker has reported a handler yet. Start a worker to fill this list.</p> : null}
      <ul className="space-y-1">
        {handlers.map((h) => (
          <li key={h}>
            <button
              type="button"
              onClick={() => onAdd(h)}
              draggable
              onDragStart={(e) => {
                e.dataTransfer.setData(PALETTE_MIME, h);
                e.dataTransfer.effectAllowed = 'copy';
              }}
              data-testid={`dag-palette-${h}`}
              title={`Add a ${h} step (click: beside the selected step; or drag it onto the canvas)`}
              className="flex w-full cursor-grab items-center gap-1.5 rounded-md border border-slate-200 bg-white px-2 py-1 text-left font-mono text-[11px] text-slate-800 hover:border-indigo-400 hover:bg-indigo-50"
            >
              <GripVertical className="size-3 shrink-0 text-indigo-600" />
              <span className="truncate">{h}</span>
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
