'use client';
// Keyboard shortcuts of the console: `/` focuses the page's search box, `?` shows this list. Keys typed into a
// field are left alone.
import * as React from 'react';
import { Dialog } from '../ui/dialog';

const SHORTCUTS: [string, string][] = [
  ['/', "Search: focus the page's search box"],
  ['?', 'Show these shortcuts'],
  ['Ctrl+Z', 'Graph editor: undo'],
  ['Ctrl+Shift+Z or Ctrl+Y', 'Graph editor: redo'],
  ['Delete / Backspace', 'Graph editor: delete the selected step or dependency'],
  ['Esc', 'Close a dialog'],
];

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el?.closest?.('input, textarea, select, [contenteditable="true"]');
}

/** Listens for the shortcuts and renders the help dialog (test id `shortcuts-help`). */
export function KeyboardShortcuts() {
  const [help, setHelp] = React.useState(false);
  React.useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      if (e.key === '/') {
        const box = document.querySelector<HTMLInputElement>('main input[type="search"]');
        if (!box) return;
        e.preventDefault();
        box.focus();
        box.select();
      } else if (e.key === '?') {
        e.preventDefault();
        setHelp(true);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <Dialog open={help} onOpenChange={setHelp} title="Keyboard shortcuts">
      <table className="w-full text-[13px]" data-testid="shortcuts-help">
        <tbody>
          {SHORTCUTS.map(([k, what]) => (
            <tr key={k} className="border-t border-zinc-100">
              <td className="py-1 pr-4">
                <kbd className="rounded border border-zinc-300 bg-zinc-50 px-1.5 py-0.5 font-mono text-xs">{k}</kbd>
              </td>
              <td className="py-1 text-zinc-700">{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
