'use client';

import * as React from 'react';
import { Input } from '../ui/input';
import { cn } from '../ui/cn';

/**
 * Searchable IANA time zone picker (a combobox): type to filter ("shang", "new_y"),
 * arrows + Enter to choose, or type a full name. The input itself holds the value, so
 * it stays fillable by tests and tolerant of zones the list lacks (the server validates).
 */
export function TimezonePicker({ id, value, onChange, zones, invalid, describedBy, disabled }: { id: string; value: string; onChange: (tz: string) => void; zones: string[]; invalid?: boolean; describedBy?: string; disabled?: boolean }) {
  const [open, setOpen] = React.useState(false);
  const [active, setActive] = React.useState(0);
  const listId = `${id}-list`;
  const matches = React.useMemo(() => {
    const q = value.trim().toLowerCase().replace(/\s+/g, '_');
    const all = q && !zones.includes(value) ? zones.filter((z) => z.toLowerCase().includes(q)) : zones;
    return all.slice(0, 80);
  }, [value, zones]);

  const choose = (tz: string) => {
    onChange(tz);
    setOpen(false);
  };
  return (
    <div className="relative">
      <Input
        id={id}
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        aria-activedescendant={open && matches[active] ? `${listId}-${active}` : undefined}
        autoComplete="off"
        spellCheck={false}
        disabled={disabled}
        value={value}
        onChange={(e) => {
          onChange(e.target.value);
          setOpen(true);
          setActive(0);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 120)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            e.preventDefault();
            setOpen(true);
            setActive((a) => Math.min(a + 1, matches.length - 1));
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            setActive((a) => Math.max(a - 1, 0));
          } else if (e.key === 'Enter' && open && matches[active]) {
            e.preventDefault();
            choose(matches[active]!);
          } else if (e.key === 'Escape') {
            setOpen(false);
          }
        }}
      />
      {open && matches.length > 0 ? (
        <ul id={listId} role="listbox" className="absolute z-30 mt-1 max-h-64 w-full overflow-auto rounded-md border border-zinc-200 bg-white py-1 text-[13px] shadow-lg">
          {matches.map((tz, i) => (
            <li
              key={tz}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={tz === value}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(tz);
              }}
              onMouseEnter={() => setActive(i)}
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
