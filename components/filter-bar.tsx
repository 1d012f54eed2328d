'use client';

import * as React from 'react';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { Search, X } from 'lucide-react';
import { Input, NativeSelect } from './ui/input';
import { Button } from './ui/button';
import { useDisplayZone } from './display-zone';
import { utcToZonedLocal, zoneLabel, zonedRangeEndToUtc } from '@/lib/time/format';
import { unreadableInputMessage } from './ui/unreadable-input';
import { PAGING_PARAMS, filtersSet, withoutFilters } from './filter-params';

export type FilterDef =
  | { kind: 'search'; name: string; label: string; placeholder?: string }
  | { kind: 'select'; name: string; label: string; options: { value: string; label: string }[] }
  /**
   * A long list to search in: type part of a label, pick a suggestion (applies when the text matches one).
   * `options` are the first ones; `search` (a server action) finds the others as the operator types.
   */
  | { kind: 'combobox'; name: string; label: string; placeholder?: string; options: ComboOption[]; search?: ComboSearch }
  /** A date and time, typed in the display zone. `notBefore` / `notAfter`: the other end of its range (From <= To). */
  | { kind: 'datetime'; name: string; label: string; notBefore?: string; notAfter?: string };

export type ComboOption = { value: string; label: string };
/** A server action answering the options whose label contains a text (app/(console)/actions.ts searchJobOptionsAction). */
export type ComboSearch = (text: string) => Promise<{ ok: true; data: ComboOption[] } | { ok: false; error: string }>;

/**
 * Filters that live in the URL (shareable, back-button friendly). Changing one resets
 * paging (PAGING_PARAMS); Clear drops every filter and keeps the sort. Search is debounced 300 ms; selects apply at once; a date applies on Enter or when
 * the field is left, and a range whose end precedes its start is refused with a message instead.
 * Every control shows what the URL asks for, also a value none of its options is (a comma-separated list the API
 * takes, a handler the list does not offer, a typo): a select lists it as one more option. `refused` (URL parameter
 * -> message, refusedFilters in components/filter-params.ts) marks the controls whose value the page's domain
 * function refused: invalid, with "refused" beside the label and the message as their description, so the picker
 * never reads "All" beside an error about it.
 */
export function FilterBar({ filters, refused = {} }: { filters: FilterDef[]; refused?: Readonly<Record<string, string>> }) {
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
      for (const p of PAGING_PARAMS) qs.delete(p);
      go(qs);
    },
    [params, go],
  );
  const names = filters.map((f) => f.name);
  const active = filtersSet(params, names);
  const zone = useDisplayZone();
  const [rangeError, setRangeError] = React.useState<string | null>(null);
  // A refusal is about the value the page was rendered for: once the control asks for another, it no longer applies.
  const refusalOf = (name: string): Refusal | undefined => {
    const message = refused[name];
    const value = params.get(name) ?? '';
    return message && value === (urlParams.get(name) ?? '') ? { message, value } : undefined;
  };
  return (
    <div className="flex flex-wrap items-end gap-2 border-b border-zinc-100 px-3 py-2.5" data-pending={pending || undefined}>
      {filters.map((f) =>
        f.kind === 'search' ? (
          <SearchBox key={f.name} label={f.label} placeholder={f.placeholder} initial={params.get(f.name) ?? ''} onChange={(v) => apply(f.name, v)} refusal={refusalOf(f.name)} />
        ) : f.kind === 'combobox' ? (
          <ComboFilter key={`${f.name}:${params.get(f.name) ?? ''}`} def={f} value={params.get(f.name) ?? ''} onApply={apply} refusal={refusalOf(f.name)} />
        ) : f.kind === 'select' ? (
          <SelectFilter key={f.name} def={f} value={params.get(f.name) ?? ''} onApply={apply} refusal={refusalOf(f.name)} />
        ) : (
          <DateTimeFilter key={`${f.name}:${zone}`} def={f} zone={zone} params={params} onApply={apply} onError={setRangeError} refusal={refusalOf(f.name)} />
        ),
      )}
      {rangeError ? (
        <p role="alert" data-testid="filter-error" className="pb-1.5 text-xs text-red-600">
          {rangeError}
        </p>
      ) : null}
      {active ? (
        <Button
          variant="ghost"
          size="sm"
          onClick={() => go(withoutFilters(params, names))}
        >
          <X /> Clear
        </Button>
      ) : null}
      {pending ? <span className="pb-1.5 text-xs text-zinc-500">Loading…</span> : null}
    </div>
  );
}

/** A filter's value the page refused, with the page's message. */
type Refusal = { message: string; value: string };

/**
 * A filter's label, with a red "refused" after it when the page refused the filter's value; `shown` false: the
 * control cannot show that value (a date field given text that is no date), so the note quotes it. The note's `id`
 * is the control's description. The reason is the page's error panel, which names the filter by this label
 * (refusalMessage in components/filter-params.ts): written here too, it showed twice.
 */
function FilterLabel({ label, refusal, id, shown = true }: { label: string; refusal?: Refusal; id: string; shown?: boolean }) {
  return (
    <span>
      {label}
      {refusal ? (
        <span id={id} className="ml-1.5 font-normal text-red-600" data-testid="filter-refused" title={refusal.message}>
          refused{shown ? '' : `: “${refusal.value}”`}
        </span>
      ) : null}
    </span>
  );
}

/** The attributes that mark a control whose value the page refused (FilterLabel's note describes it). */
function refusedProps(refusal: Refusal | undefined, id: string) {
  return refusal ? { 'aria-invalid': true as const, 'aria-describedby': id } : {};
}

/**
 * A select over a filter's options and "All". The URL's value is shown even when no option is it (a list such as
 * `failed,timeout`, a handler the page does not offer, a refused typo): it is listed as one more option, written as
 * it was asked for, so the control never claims "All" while a filter is set.
 */
function SelectFilter({ def, value, onApply, refusal }: { def: Extract<FilterDef, { kind: 'select' }>; value: string; onApply(name: string, value: string): void; refusal?: Refusal }) {
  const noteId = React.useId();
  const known = value === '' || def.options.some((o) => o.value === value);
  return (
    <label className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
      <FilterLabel label={def.label} refusal={refusal} id={noteId} />
      <NativeSelect aria-label={def.label} className="h-7 w-40 text-xs" value={value} onChange={(e) => onApply(def.name, e.target.value)} {...refusedProps(refusal, noteId)}>
        <option value="">All</option>
        {def.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
        {known ? null : <option value={value}>{value.split(',').join(', ')}</option>}
      </NativeSelect>
    </label>
  );
}

function SearchBox({ label, placeholder, initial, onChange, refusal }: { label: string; placeholder?: string; initial: string; onChange: (v: string) => void; refusal?: Refusal }) {
  const noteId = React.useId();
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
      <FilterLabel label={label} refusal={refusal} id={noteId} />
      <span className="relative">
        <Search className="pointer-events-none absolute left-2 top-1/2 size-3.5 -translate-y-1/2 text-zinc-500" />
        <Input aria-label={label} type="search" className="h-7 w-64 pl-7 text-xs" placeholder={placeholder} value={value} onChange={(e) => setValue(e.target.value)} {...refusedProps(refusal, noteId)} />
      </span>
    </label>
  );
}

/**
 * A datetime-local filter read in the display zone (the zone is in its label, with the offset in force at the value
 * applied, else now). Applies on Enter or blur; a value on
 * the wrong side of the other end of its range (`notBefore` / `notAfter`) is refused (onError gets the message).
 */
function DateTimeFilter({ def, zone, params, onApply, onError, refusal }: { def: Extract<FilterDef, { kind: 'datetime' }>; zone: string; params: URLSearchParams; onApply(name: string, value: string): void; onError(message: string | null): void; refusal?: Refusal }) {
  const noteId = React.useId();
  const current = params.get(def.name);
  const local = current ? utcToZonedLocal(current, zone) : '';
  // a filter with a start (notBefore) is the end of a range (zonedRangeEndToUtc)
  const rangeEnd = def.notBefore ? 'to' : 'from';
  const commit = (text: string, input: HTMLInputElement) => {
    // a part left empty reads as '' like a cleared field: say so instead of dropping the filter
    const unreadable = unreadableInputMessage(input);
    if (unreadable) {
      onError(`${def.label}: ${unreadable}`);
      return;
    }
    // a field left as shown keeps the applied instant, which the wall time may not hold exactly (its seconds, or
    // the other occurrence of a repeated hour than this end's reading)
    if (text === local) return;
    const iso = text ? (zonedRangeEndToUtc(text, zone, rangeEnd)?.toISOString() ?? '') : '';
    if (iso === (current ?? '')) return;
    const start = def.notBefore ? params.get(def.notBefore) : null;
    const end = def.notAfter ? params.get(def.notAfter) : null;
    if (iso && start && Date.parse(iso) < Date.parse(start)) {
      onError(`${def.label} must not be before the start of the range`);
      return;
    }
    if (iso && end && Date.parse(iso) > Date.parse(end)) {
      onError(`${def.label} must not be after the end of the range`);
      return;
    }
    onError(null);
    onApply(def.name, iso);
  };
  return (
    <label className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
      <FilterLabel label={`${def.label} (${zoneLabel(current && Number.isFinite(Date.parse(current)) ? new Date(current) : new Date(), zone)})`} refusal={refusal} id={noteId} shown={!!local} />
      <Input
        aria-label={def.label}
        type="datetime-local"
        className="h-7 w-48 text-xs"
        defaultValue={local}
        {...refusedProps(refusal, noteId)}
        onBlur={(e) => commit(e.target.value, e.target)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commit(e.currentTarget.value, e.currentTarget);
          }
        }}
      />
    </label>
  );
}

/**
 * A searchable filter over many options (a datalist): applies the option whose label was typed or picked.
 * Exported for pickers outside a FilterBar (the stats page's job selector); key it by `value` so its text follows the URL.
 */
export function ComboFilter({ def, value, onApply, refusal }: { def: Extract<FilterDef, { kind: 'combobox' }>; value: string; onApply(name: string, value: string): void; refusal?: Refusal }) {
  const listId = React.useId();
  const noteId = React.useId();
  const labelOfValue = def.options.find((o) => o.value === value)?.label;
  const [text, setText] = React.useState(() => labelOfValue ?? value);
  // A value picked from a search is applied before the page's new options (which name it) arrive: the field
  // shows the bare value until then, and its label once they do.
  React.useEffect(() => {
    if (labelOfValue !== undefined) setText((t) => (t === value ? labelOfValue : t));
  }, [labelOfValue, value]);
  const found = useComboSearch(def.search, text, def.options);
  const options = found ?? def.options;
  const commit = (t: string) => {
    const trimmed = t.trim();
    if (trimmed === '') {
      if (value) onApply(def.name, '');
      return;
    }
    const hit = options.find((o) => o.label === trimmed) ?? options.find((o) => o.label.toLowerCase().includes(trimmed.toLowerCase()));
    if (hit && hit.value !== value) onApply(def.name, hit.value);
  };
  return (
    <label className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
      <FilterLabel label={def.label} refusal={refusal} id={noteId} />
      <Input
        aria-label={def.label}
        list={listId}
        {...refusedProps(refusal, noteId)}
        className="h-7 w-64 text-xs"
        placeholder={def.placeholder ?? 'Type to search'}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          // A suggestion picked from the list arrives as its full label: apply it at once.
          if (options.some((o) => o.label === e.target.value)) commit(e.target.value);
        }}
        onBlur={(e) => commit(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            commit(e.currentTarget.value);
          }
        }}
      />
      <datalist id={listId}>
        {options.map((o) => (
          <option key={o.value} value={o.label} />
        ))}
      </datalist>
    </label>
  );
}

/**
 * The options a combobox offers for the text typed so far: null (use the first options) until `search` answers
 * for that text, 250 ms after the last keystroke; then the answer, so that a picker whose first options stop at
 * a limit still finds every job. An answer for an older text is dropped; a failed search keeps the first options.
 */
function useComboSearch(search: ComboSearch | undefined, text: string, first: readonly ComboOption[]): ComboOption[] | null {
  const [found, setFound] = React.useState<{ text: string; options: ComboOption[] } | null>(null);
  const needle = text.trim().toLowerCase();
  // An exact label of the first options is a pick, not a search; any other text may match a job past them.
  const coveredByFirst = needle === '' || first.some((o) => o.label.toLowerCase() === needle);
  React.useEffect(() => {
    if (!search || coveredByFirst) return;
    let current = true;
    const timer = setTimeout(() => {
      search(text.trim()).then(
        (r) => {
          if (current && r.ok) setFound({ text, options: r.data });
        },
        () => {},
      );
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [search, text, coveredByFirst]);
  return !coveredByFirst && found?.text === text ? found.options : null;
}
