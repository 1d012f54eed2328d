'use client';
// Under an input that takes a wall time in a time zone, what the zone's clock changes do to it: the choice between
// the two instants of a wall time that a fall-back repeats (2026-11-01 01:30 in America/New_York is 05:30 UTC and
// again 06:30 UTC), or a note that a spring-forward skips it and which instant it is read as. Without the choice
// such a field could only mean the first instant, and an edit form showing the second would move it when saved.
import { formatUtcExact, repeatedWallTime, skippedWallTime, utcToZonedLocal, zoneLabel, type RepeatedOccurrence } from '@/lib/time/format';

/**
 * For `local` (a datetime-local value) in `zone`: radios for its occurrence when a fall-back repeats it
 * (lib/time/format.ts repeatedWallTime), each with the offset in force and its UTC instant; a note when a
 * spring-forward skips it (skippedWallTime); nothing otherwise. `id` names the radio group and the test ids
 * (`<id>-repeated`, `<id>-skipped`).
 */
export function WallTimeChoice({ id, local, zone, value, onChange }: {
  id: string;
  local: string;
  zone: string;
  value: RepeatedOccurrence;
  onChange: (value: RepeatedOccurrence) => void;
}) {
  const both = local ? repeatedWallTime(local, zone) : null;
  const wall = local.slice(11, 16);
  const day = local.slice(0, 10);
  if (!both) {
    const shifted = local ? skippedWallTime(local, zone) : null;
    if (!shifted) return null;
    return (
      <p className="mt-1.5 rounded-md border border-amber-200 bg-amber-50 px-2.5 py-1.5 text-xs text-amber-900" data-testid={`${id}-skipped`}>
        {wall} does not exist on {day} in {zone} (clocks go forward): it is read as {utcToZonedLocal(shifted, zone).slice(11, 16)} {zoneLabel(shifted, zone)} = {formatUtcExact(shifted)}.
      </p>
    );
  }
  return (
    <fieldset className="mt-1.5 rounded-md border border-amber-200 bg-amber-50 px-2.5 py-1.5 text-[13px]" data-testid={`${id}-repeated`}>
      <legend className="px-1 text-xs text-amber-900">
        {wall} comes twice on {day} in {zone} (clocks go back): which one?
      </legend>
      {(['first', 'last'] as const).map((which, n) => (
        <label key={which} className="flex items-center gap-2">
          <input type="radio" name={`${id}-repeated`} value={which} checked={value === which} onChange={() => onChange(which)} />
          <span>
            {n === 0 ? 'First' : 'Second'}, {zoneLabel(both[n]!, zone)} <span className="text-zinc-500">= {formatUtcExact(both[n]!)}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

/**
 * The `step` of a datetime-local input loaded with `loaded`: any, when the value carries seconds (a loaded instant
 * with them, lib/time/format.ts instantToWallTime), so that the browser shows them and does not refuse the value
 * for a step mismatch; the browser's default (whole minutes) otherwise. Judged on the loaded value, never on the
 * value as typed: a step that changed while typing would rebuild the browser's date fields from the value, and a
 * date with a part just cleared (value '', validity.badInput) would read as a field left empty.
 */
export function wallTimeStep(loaded: string): 'any' | undefined {
  return loaded.length > 16 ? 'any' : undefined;
}
