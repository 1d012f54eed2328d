/**
 * One crontab that exercises the importer: a comment, env lines (MAILTO dropped,
 * BACKUP_DIR kept), a 5-field entry, a macro with `%` stdin, @reboot and a bad minute
 * (both reported, not imported), then CRON_TZ switching the zone of what follows.
 */
export const SAMPLE_CRONTAB_LINES = [
  '# backups',
  'MAILTO=ops@example.com',
  'BACKUP_DIR=/var/backups',
  '30 2 * * * /usr/local/bin/backup.sh "$BACKUP_DIR"',
  '@hourly date +\\%s%ignored stdin',
  '@reboot /usr/bin/warmup',
  '61 * * * * /bin/bad-minute',
  'CRON_TZ=Asia/Shanghai',
  '0 9 * * 1-5 /opt/report',
];
