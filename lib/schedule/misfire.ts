export { collectMissedSlots, type MissedSlots } from './missed-slots';

/** Job misfire policy (docs/design.md §3 `misfire_policy`). */
export type MisfirePolicy = 'skip' | 'fire_once' | 'fire_all';

/** Slots to run now and slots to record as `skipped` runs (reason misfire). Both ascending. */
export type MisfirePlan = { fire: Date[]; skip: Date[] };

/**
 * Decides what to do with nominal slots missed during downtime (docs/engine-cases.md case 2,
 * docs/design.md §4 "never flood"). `missed`: nominal slots strictly before now, ascending.
 * - skip: fire none, skip all;
 * - fire_once: fire the most recent one, skip the rest;
 * - fire_all: fire the `maxCatchup` most recent (negative/fractional clamps down), skip the rest.
 * The caller then carries on from the next slot after now, so the job never stalls.
 */
export function planMisfire(input: { policy: MisfirePolicy; maxCatchup: number; missed: Date[] }): MisfirePlan {
  const missed = [...input.missed].sort((a, b) => a.getTime() - b.getTime());
  let keep: number;
  switch (input.policy) {
    case 'skip':
      keep = 0;
      break;
    case 'fire_once':
      keep = Math.min(1, missed.length);
      break;
    case 'fire_all':
      keep = Math.min(missed.length, Math.max(0, Math.floor(Number.isFinite(input.maxCatchup) ? input.maxCatchup : 0)));
      break;
    default:
      throw new RangeError(`Unknown misfire policy ${String(input.policy)}`);
  }
  const cut = missed.length - keep;
  return { fire: missed.slice(cut), skip: missed.slice(0, cut) };
}
