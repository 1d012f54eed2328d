'use client';

import * as React from 'react';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { Search, X } from 'lucide-react';
import { Input, NativeSelect } from './ui/input';
import { Button } from './ui/button';

export type FilterDef =
  | { kind: 'search'; name: string; label: string; placeholder?: string }
  | { kind: 'select'; name: string; label: string; options: { value: string; label: string }[] }
  | { kind: 'datetime'; name: string; label: string };

/**
 * Filters that live in the URL (shareable, back-button friendly). Changing one resets
 * paging (`cursor`/`trail`). Search is debounced 300 ms; selects apply at once.
 */
export function FilterBar({ filters }: { filters: FilterDef[] }) {
  const router = useRouter();
  const pathname = usePathname();
  const urlParams = useSearchParams();
  const [pending, startTransition] = React.useTransition();
  // The query the user asked for, ahead of the URL: useSearchParams changes only when a
  // navigation commits, so two quick changes built from it would undo each other (the
  // second built on the URL before the first). Dropped once the URL has caught up.
  const [intended, setIntended] = React.useState<string | null>(null);
  React.useEffect(() => {
    if (intended !== null && intended === urlParams.toString()) setIntended(null);
  }, [intended, urlParams]);
  const params = React.useMemo(() => (intended === null ? urlParams : new URLSearchParams(intended)), [intended, urlParams]);
  const go = React.useCallback(
    (qs: URLSearchParams) => {
      setIntended(qs.toString());
      startTransition(() => router.replace(`${pathname}${qs.size ? `?${qs}` : ''}`));
    },
    [pathname, router],
  );
  const apply = React.useCallback(
    (name: string, value: string) => {
      const qs = new URLSearchParams(params.toString());
      if (value) qs.set(name, value);
      else qs.delete(name);
      qs.delete('cursor');
      qs.delete('trail');
      go(qs);
    },
    [params, go],
  );
  const active = filters.some((f) => params.get(f.name));
  return (
    <div className="flex flex-wrap items-end gap-2 border-b border-zinc-100 px-3 py-2.5" data-pending={pending || undefined}>
      {filters.map((f) =>
        f.kind === 'search' ? (
          <SearchBox key={f.name} label={f.label} placeholder={f.placeholder} initial={params.get(f.name) ?? ''} onChange={(v) => apply(f.name, v)} />
        ) : f.kind === 'select' ? (
          <label key={f.name} className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
            {f.label}
            <NativeSelect aria-label={f.label} className="h-7 w-40 text-xs" value={params.get(f.name) ?? ''} onChange={(e) => apply(f.name, e.target.value)}>
              <option value="">All</option>
              {f.options.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </NativeSelect>
          </label>
        ) : (
          <label key={f.name} className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
            {f.label}
            <Input
              aria-label={f.label}
              type="datetime-local"
              className="h-7 w-48 text-xs"
              defaultValue={params.get(f.name) ? new Date(params.get(f.name)!).toISOString().slice(0, 16) : ''}
              // datetime-local is read as UTC here: the whole console shows UTC instants.
              onBlur={(e) => apply(f.name, e.target.value ? new Date(e.target.value + 'Z').toISOString() : '')}
            />
          </label>
        ),
      )}
      {active ? (
        <Button
          variant="ghost"
          size="sm"
          onClick={() => go(new URLSearchParams())}
        >
          <X /> Clear
        </Button>
      ) : null}
      {pending ? <span className="pb-1.5 text-xs text-zinc-400">Loading…</span> : null}
    </div>
  );
}

function SearchBox({ label, placeholder, initial, onChange }: { label: string; placeholder?: string; initial: string; onChange: (v: string) => void }) {
  const [value, setValue] = React.useState(initial);
  const first = React.useRef(true);
  React.useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const t = setTimeout(() => onChange(value.trim()), 300);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value]);
  return (
    <label className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
      {label}
      <span className="relative">
        <Search className="pointer-events-none absolute left-2 top-1/2 size-3.5 -translate-y-1/2 text-zinc-400" />
        <Input aria-label={label} type="search" className="h-7 w-64 pl-7 text-xs" placeholder={placeholder} value={value} onChange={(e) => setValue(e.target.value)} />
      </span>
    </label>
  );
}
