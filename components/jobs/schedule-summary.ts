import { formatDateTime } from '@/lib/time/format';

type ScheduleLike = { kind: string; cron?: string; timezone?: string; intervalSeconds?: number; runAt?: string };

/**
 * Human schedule summary: "0 2 * * * · Asia/Shanghai", "every 60s", "once 2026-12-07 19:06 UTC+1" (its run-at in the
 * job's zone: a list row of a `once` job otherwise never said when, and after it fired its next fire is "—"), "manual".
 */
export function scheduleSummary(s: ScheduleLike): string {
  switch (s.kind) {
    case 'cron':
      return `${s.cron}${s.timezone && s.timezone !== 'UTC' ? ` · ${s.timezone}` : ''}`;
    case 'interval':
      return `every ${formatSeconds(s.intervalSeconds ?? 0)}`;
    case 'once':
      return s.runAt ? `once ${formatDateTime(s.runAt, s.timezone || 'UTC', { seconds: false })}` : 'once';
    default:
      return 'manual';
  }
}

function formatSeconds(n: number): string {
  if (n % 86400 === 0) return `${n / 86400}d`;
  if (n % 3600 === 0) return `${n / 3600}h`;
  if (n % 60 === 0) return `${n / 60}m`;
  return `${n}s`;
}

