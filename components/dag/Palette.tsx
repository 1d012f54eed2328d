'use client';
// The DAG editor's handler palette: one button per handler the workers report (with what they advertise); a click
// adds a step of it beside the selection, a drag drops one where the pointer is released on the canvas.
import { HandlerPaletteList, PALETTE_MIME } from '../handlers/handler-palette';

export { PALETTE_MIME };

/** The palette (test ids `dag-palette`, `dag-palette-<handler>`). `handlers` sorted and unique. */
export function Palette({ handlers, onAdd }: { handlers: string[]; onAdd(handler: string): void }) {
  return (
    <aside className="w-44 shrink-0 overflow-y-auto border-r border-slate-200 bg-slate-50 p-2 max-md:max-h-32 max-md:w-full max-md:border-b max-md:border-r-0" aria-label="Handlers" data-testid="dag-palette">
      <div className="mb-1.5 px-1 text-xs font-semibold text-slate-700">Add a step</div>
      <p className="mb-1.5 px-1 text-[11px] text-slate-500">Click, or drag onto the canvas.</p>
      {handlers.length === 0 ? <p className="px-1 text-xs text-slate-500">No worker has reported a handler yet. Start a worker to fill this list.</p> : null}
      <HandlerPaletteList names={handlers} onAdd={onAdd} />
    </aside>
  );
}
