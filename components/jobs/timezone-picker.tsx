'use client';

import * as React from 'react';
import { Input } from '../ui/input';
import { cn } from '../ui/cn';
import { zoneChoices } from './timezone-choices';

/**
 * Searchable IANA time zone picker (a combobox): type to filter ("shang", "new_y"),
 * arrows + Enter to choose, or type a full name (Enter keeps it). The input itself holds the value, so
 * it stays fillable by tests and tolerant of zones the list lacks (the server validates).
 * The list takes room in the layout instead of floating: a floating list covered what follows it (the
 * Display time zone dialog's Save button), and a press there picked whatever zone lay under the pointer.
 */
export function TimezonePicker({ id, value, onChange, zones, invalid, describedBy, disabled }: { id: string; value: string; onChange: (tz: string) => void; zones: string[]; invalid?: boolean; describedBy?: string; disabled?: boolean }) {
  const [open, setOpen] = React.useState(false);
  // The option the arrows or the pointer moved to; null: the one zoneChoices suggests for the text.
  const [cursor, setCursor] = React.useState<number | null>(null);
  const listId = `${id}-list`;
  const { matches, active: suggested } = React.useMemo(() => zoneChoices(value, zones), [value, zones]);
  const active = cursor !== null && cursor < matches.length ? cursor : suggested;
  const shown = open && matches.length > 0;

  React.useEffect(() => {
    if (shown && active >= 0) document.getElementById(`${listId}-${active}`)?.scrollIntoView({ block: 'nearest' });
  }, [shown, active, listId]);

  const choose = (tz: string) => {
    onChange(tz);
    setCursor(null);
    setOpen(false);
  };
  const pointerDown = React.useRef(false);
  React.useEffect(() => {
    const down = () => (pointerDown.current = true);
    const up = () => (pointerDown.current = false);
    window.addEventListener('pointerdown', down, true);
    window.addEventListener('pointerup', up, true);
    return () => {
      window.removeEventListener('pointerdown', down, true);
      window.removeEventListener('pointerup', up, true);
    };
  }, []);
  // Leaving the field with the pointer (a press on a button below) closes the list only after that click:
  // closing it at once would move the button from under the pointer between press and release.
  const close = () => {
    if (!pointerDown.current) return setOpen(false);
    window.addEventListener('pointerup', () => setTimeout(() => setOpen(false), 0), { once: true });
  };

  return (
    <div>
      <Input
        id={id}
        role="combobox"
        aria-expanded={shown}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        aria-activedescendant={shown && active >= 0 ? `${listId}-${active}` : undefined}
        autoComplete="off"
        spellCheck={false}
        disabled={disabled}
        value={value}
        onChange={(e) => {
          onChange(e.target.value);
          setOpen(true);
          setCursor(null);
        }}
        onFocus={() => setOpen(true)}
        onBlur={close}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setOpen(true);
            setCursor(Math.min(active + 1, matches.length - 1));
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            setCursor(Math.max(active - 1, 0));
          } else if (e.key === 'Enter' && shown) {
            // Enter picks the highlighted zone, or, with none highlighted, only closes the list.
            e.preventDefault();
            if (active >= 0) choose(matches[active]!);
            else setOpen(false);
          } else if (e.key === 'Escape') {
            setOpen(false);
          }
        }}
      />
      {shown ? (
        // A press on the list (its scrollbar too) keeps the focus in the field, so the list stays open.
        <ul id={listId} role="listbox" onMouseDown={(e) => e.preventDefault()} className="mt-1 max-h-64 w-full overflow-auto rounded-md border border-zinc-200 bg-white py-1 text-[13px] shadow-sm">
          {matches.map((tz, i) => (
            <li
              key={tz}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              // Chosen on click, once the pointer is released over this option: choosing on press closed the
              // list under the pointer, and the release landed on whatever moved there.
              onClick={() => choose(tz)}
              onMouseEnter={() => setCursor(i)}
              className={cn('cursor-pointer px-2.5 py-1', i === active ? 'bg-indigo-50 text-indigo-900' : 'text-zinc-700', tz === value && 'font-medium')}
            >
              {tz}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
