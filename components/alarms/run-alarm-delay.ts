/**
 * The Alarms page's note on when a run's alarm shows up: the dispatcher raises run alarms from a scan that trails the
 * clock by `lagSeconds` (lib/alarms/scan-finished-runs.ts runScanLagSeconds, TICKFLOW_ALARM_RUN_LAG_SECONDS), so a
 * failure is on the run page at once but here only that much later; without the note an empty list right after a
 * failure read as alarms not working. Empty when there is no lag.
 */
export function runAlarmDelayNote(lagSeconds: number): string {
  if (!(lagSeconds > 0)) return '';
  const after = lagSeconds >= 90 && lagSeconds % 60 === 0 ? `${lagSeconds / 60} min` : `${lagSeconds} s`;
  return `A run's alarm shows here about ${after} after the run ends (the scan waits that long so that no run is missed).`;
}
