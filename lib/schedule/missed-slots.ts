import { fireTimesAfter, type JobSchedule } from './spec';

/**
 * Result of collectMissedSlots. `slots` are the most recent missed nominal
 * slots (ascending, at most hardLimit); `truncatedCount` earlier missed slots
 * were left out, exact when `truncatedExact`, else an estimate (at least the
 * number walked past). `firstMissed` is the oldest missed slot, for a summary record.
 */
export type MissedSlots = {
  slots: Date[];
  truncatedCount: number;
  truncatedExact: boolean;
  firstMissed: Date | null;
};

type Walk = { ring: number[]; count: number; overflow: boolean };

// Walks (from, until] keeping the last `keep` slots; stops counting past `cap` steps.
function walk(schedule: JobSchedule, from: number, until: number, keep: number, cap: number): Walk {
  const ring: number[] = [];
  let count = 0;
  for (const t of fireTimesAfter(schedule, new Date(from))) {
    const ms = t.getTime();
    if (ms > until) break;
    if (++count > cap) return { ring, count, overflow: true };
    ring.push(ms);
    if (ring.length > keep) ring.shift();
  }
  return { ring, count, overflow: false };
}

/**
 * Nominal slots missed by downtime: `nextRunNominal` (the stored next slot) if
 * <= now, and every later slot <= now, walking forward only (cron-parser prev()
 * is wrong across DST gaps, upstream #378). Bounded work: at most `hardLimit`
 * slots are returned — the most recent ones, which are what fire_once/fire_all
 * run — so a year of downtime on a per-second cron costs a few thousand steps,
 * not 31 million. Feed `slots` to planMisfire; record `truncatedCount` as one
 * summarising skipped record.
 */
export function collectMissedSlots(
  schedule: JobSchedule,
  nextRunNominal: Date,
  now: Date,
  hardLimit: number,
): MissedSlots {
  const limit = Math.max(1, Math.floor(hardLimit));
  const nowMs = now.getTime();
  const startMs = nextRunNominal.getTime();
  if (startMs > nowMs) return { slots: [], truncatedCount: 0, truncatedExact: true, firstMissed: null };

  // Head: the stored slot plus up to limit-1 more; done when it reaches now.
  const head = [startMs, ...walk(schedule, startMs, nowMs, limit, limit).ring];
  const headOverflow = head.length > limit;
  if (!headOverflow) {
    return { slots: head.map((t) => new Date(t)), truncatedCount: 0, truncatedExact: true, firstMissed: new Date(startMs) };
  }
  head.length = limit;
  const headLast = head[limit - 1]!;

  // Tail: bisect on a window (now - w, now] until it holds between limit and 8*limit slots.
  const cap = 8 * limit;
  let lo = 0;
  let hi = Infinity;
  let w = Math.max(1000, headLast - startMs);
  for (let i = 0; i < 80; i++) {
    const from = Math.max(nowMs - w, headLast);
    const r = walk(schedule, from, nowMs, limit, cap);
    if (r.overflow) {
      hi = w;
    } else if (r.count >= limit || from === headLast) {
      if (from === headLast) {
        // Tail joined the head: the count is exact.
        const slots = [...head, ...r.ring].slice(-limit).map((t) => new Date(t));
        return { slots, truncatedCount: limit + r.count - slots.length, truncatedExact: true, firstMissed: new Date(startMs) };
      }
      const slots = r.ring.map((t) => new Date(t));
      const gaps = headLast - startMs + (r.ring[r.ring.length - 1]! - r.ring[0]!);
      const avgGap = gaps / Math.max(1, 2 * limit - 2);
      const estimate = avgGap > 0 ? Math.round((r.ring[0]! - startMs) / avgGap) : 0;
      return {
        slots,
        truncatedCount: Math.max(limit + (r.count - r.ring.length), estimate),
        truncatedExact: false,
        firstMissed: new Date(startMs),
      };
    } else {
      lo = w;
    }
    w = hi === Infinity ? w * 4 : (lo + hi) / 2;
  }
  throw new Error('collectMissedSlots: could not bound the missed-slot window');
}
