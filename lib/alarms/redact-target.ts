/**
 * An alarm's delivery target as the alarms list shows it: a webhook URL cut to its origin
 * (`https://hooks.slack.com/…`), since its path and query often are the credential (Slack,
 * Teams and Discord webhooks carry their token there) and every role may read alarms
 * (docs/security.md "Secrets in views"). Email addresses and `log` are shown whole. A target
 * that does not parse is shown as `…`.
 */
export function redactAlarmTarget(channel: string, target: string): string {
  if (channel !== 'webhook' || target === '') return target;
  try {
    const url = new URL(target);
    return url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password ? url.origin : `${url.origin}/…`;
  } catch {
    return '…';
  }
}
