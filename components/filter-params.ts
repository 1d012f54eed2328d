// The rules of a list's filters in its URL, shared by the filter bar (client) and the list pages (server).
import { ownValue } from '@/lib/own-keys';

/** URL parameters that page a list (keyset cursors): dropped whenever its filters change. */
export const PAGING_PARAMS: readonly string[] = ['cursor', 'trail', 'before'];

/** A page's `searchParams` or the browser's URLSearchParams. */
export type ParamsLike = URLSearchParams | Readonly<Record<string, string | string[] | undefined>>;

function entries(params: ParamsLike): [string, string][] {
  if (params instanceof URLSearchParams) return [...params.entries()];
  return Object.entries(params).flatMap(([k, v]) => (v === undefined ? [] : Array.isArray(v) ? v.map((x) => [k, x] as [string, string]) : [[k, v] as [string, string]]));
}

/** Whether any of the filters `names` has a value in `params` (an empty value is no filter). */
export function filtersSet(params: ParamsLike, names: readonly string[]): boolean {
  return entries(params).some(([k, v]) => names.includes(k) && v.trim() !== '');
}

/** `params` without the filters `names` and without paging; the rest (a sort order) stays. */
export function withoutFilters(params: ParamsLike, names: readonly string[]): URLSearchParams {
  return new URLSearchParams(entries(params).filter(([k]) => !names.includes(k) && !PAGING_PARAMS.includes(k)));
}

/** The list at `pathname` with its filters `names` cleared (withoutFilters): where "Clear filters" leads. */
export function clearFiltersHref(pathname: string, params: ParamsLike, names: readonly string[]): string {
  const qs = withoutFilters(params, names).toString();
  return qs ? `${pathname}?${qs}` : pathname;
}

/**
 * The filters a list page's domain function refused, by URL parameter (what FilterBar's `refused` takes): the
 * error's `fields` (`status`, or `status.1` for the second value of a list) whose first segment is one of the
 * filters `names`, or is mapped to one by `aliases` (the query's name -> the URL's, e.g. `scheduleKind` -> `kind`).
 * A field that is no filter (a cursor, `before`) is left to the page's error panel.
 */
export function refusedFilters(fields: Readonly<Record<string, string>> | undefined, names: readonly string[], aliases: Readonly<Record<string, string>> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, message] of Object.entries(fields ?? {})) {
    const head = path.split('.')[0]!;
    const name = ownValue(aliases, head) ?? head;
    if (names.includes(name) && !Object.hasOwn(out, name)) out[name] = message;
  }
  return out;
}

/**
 * A list page's one message for a refused query (its error panel): each field named by its filter's label, as the
 * filter bar writes it ("Text: Search text must be at least 3 characters"), where the domain error names the URL
 * parameter ("Invalid q: …"); a field that is no filter (a cursor, `before`) keeps its name. The filter bar marks the
 * refused control "refused" and does not repeat the message, so it shows once. `fallback` when the error has no field.
 */
export function refusalMessage(
  fields: Readonly<Record<string, string>> | undefined,
  filters: readonly { name: string; label: string }[],
  fallback: string,
  aliases: Readonly<Record<string, string>> = {},
): string {
  const parts = Object.entries(fields ?? {}).map(([path, message]) => {
    const head = path.split('.')[0]!;
    const name = ownValue(aliases, head) ?? head;
    return `${filters.find((f) => f.name === name)?.label ?? path}: ${message}`;
  });
  return parts.length ? parts.join('; ') : fallback;
}
