type ScheduleLike = { kind: string; cron?: string; timezone?: string; intervalSeconds?: number; runAt?: string };

/** Human schedule summary: "cron 0 2 * * * (Asia/Shanghai)", "every 60s", "once", "manual". */
export function scheduleSummary(s: ScheduleLike): string {
  switch (s.kind) {
    case 'cron':
      return `${s.cron}${s.timezone && s.timezone !== 'UTC' ? ` · ${s.timezone}` : ''}`;
    case 'interval':
      return `every ${formatSeconds(s.intervalSeconds ?? 0)}`;
    case 'once':
      return 'once';
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

