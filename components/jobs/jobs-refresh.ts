/**
 * When the jobs list re-reads itself (components/jobs/jobs-table.tsx). Its Next fire and Last run columns are a
 * server render: left open, a list showed "Next fire … 48s ago" beside the run before, after the job had fired.
 * The list now refreshes a few seconds after the soonest shown next fire (by then the tick has created the run and
 * moved the job's next fire), and at least every {@link JOBS_REFRESH_MAX_MS} for the runs that end meanwhile.
 */

/** The longest the list goes without re-reading itself, in ms (the overview refreshes every 15 s). */
export const JOBS_REFRESH_MAX_MS = 30_000;
/** The shortest wait between two re-reads, in ms, so a page of jobs firing every second does not refresh non-stop. */
export const JOBS_REFRESH_MIN_MS = 5_000;
/** How long after a next fire the list re-reads, in ms: the tick fires the slot, then the row changes. */
export const FIRE_GRACE_MS = 3_000;

/**
 * Milliseconds until the jobs list should re-read itself: a grace after the soonest next fire still to come, within
 * [JOBS_REFRESH_MIN_MS, JOBS_REFRESH_MAX_MS]. A next fire already more than the grace in the past (a paused or
 * late tick) is not waited for: the list then re-reads at the longest interval. `nextFires` are ISO instants or
 * null (no fire coming); `now` is epoch ms.
 */
export function jobsRefreshDelay(nextFires: readonly (string | null)[], now: number): number {
  let soonest = Infinity;
  for (const f of nextFires) {
    if (!f) continue;
    const due = Date.parse(f) + FIRE_GRACE_MS;
    if (due > now && due < soonest) soonest = due;
  }
  return Math.min(Math.max(soonest - now, JOBS_REFRESH_MIN_MS), JOBS_REFRESH_MAX_MS);
}

/**
 * The selection kept when the list's rows change (a refresh, a filter): the selected ids still shown. Returns the
 * same set when nothing was dropped, so a refresh that changes no row does not re-render the table.
 */
export function keepShownSelection(selected: ReadonlySet<string>, shownIds: readonly string[]): ReadonlySet<string> {
  const shown = new Set(shownIds);
  for (const id of selected) if (!shown.has(id)) return new Set([...selected].filter((x) => shown.has(x)));
  return selected;
}
