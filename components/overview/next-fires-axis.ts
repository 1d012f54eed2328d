// The time axis of the overview's Next 24 hours (components/overview/next-fires.tsx): pure, so it is unit-tested.
import { formatClock, wallHourMarks } from '@/lib/time/format';

const DAY = 86_400_000;

/**
 * Hour marks (every 3 h of the display zone's wall clock, lib/time/format.ts wallHourMarks: on :00 local in a
 * :30 or :45 zone too, once each across a clock change) between `from` and `from + 24 h`, as fractions of the axis;
 * `minor` for those between the 6-hourly ones, whose labels a phone-width axis has no room for.
 */
export function hourTicks(from: number, zone: string): { at: number; label: string; minor: boolean }[] {
  return wallHourMarks(from, from + DAY, zone, 3).map(({ at, hour }) => ({ at: (at - from) / DAY, label: formatClock(at, zone).slice(0, 5), minor: hour % 6 !== 0 }));
}
