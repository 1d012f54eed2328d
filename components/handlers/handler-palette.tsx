'use client';
// The DAG editor's palette list: one button per handler with its advertised description; a handler no live worker
// offers is drawn as unavailable with the last time a worker offered it (it can still be added: a worker may come back).
// A click adds a step; a drag carries the handler name (PALETTE_MIME) to the canvas, which adds it at the drop point.
import { GripVertical } from 'lucide-react';
import { unavailableNote, useHandlerCatalogue } from './use-handler-catalogue';
import { useDisplayZone } from '../display-zone';

/** The drag data type carrying a handler name from the palette to the canvas. */
export const PALETTE_MIME = 'application/x-tickflow-handler';

/** Palette buttons for `names` (test ids `dag-palette-<name>`); `onAdd(name)` adds a step. */
export function HandlerPaletteList({ names, onAdd }: { names: readonly string[]; onAdd(name: string): void }) {
  const catalogue = useHandlerCatalogue();
  const zone = useDisplayZone();
  return (
    <ul className="space-y-1">
      {names.map((h) => {
        const entry = catalogue.get(h);
        const note = unavailableNote(entry, zone);
        const description = entry?.description ?? '';
        return (
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
              data-available={note ? 'false' : 'true'}
              title={[`Add a ${h} step (click: beside the selected step; or drag it onto the canvas)`, description, note].filter(Boolean).join('\n')}
              className={`flex w-full cursor-grab flex-col rounded-md border px-2 py-1 text-left hover:border-indigo-400 hover:bg-indigo-50 ${note ? 'border-dashed border-slate-300 bg-slate-50 opacity-70' : 'border-slate-200 bg-white'}`}
            >
              <span className="flex items-center gap-1.5 font-mono text-[11px] text-slate-800">
                <GripVertical className="size-3 shrink-0 text-indigo-600" />
                <span className="truncate">{h}</span>
              </span>
              {description ? <span className="line-clamp-2 pl-[18px] text-[10px] leading-tight text-slate-500">{description}</span> : null}
              {note ? (
                <span className="pl-[18px] text-[10px] leading-tight text-amber-700" data-testid={`dag-palette-unavailable-${h}`}>
                  {note}
                </span>
              ) : null}
            </button>
          </li>
        );
      })}
    </ul>
  );
}
