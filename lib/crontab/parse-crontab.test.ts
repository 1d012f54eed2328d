import { describe, expect, it } from 'vitest';
import { parseCrontab, splitPercent } from './parse-crontab';

describe('parseCrontab', () => {
  it('reads 5-field entries, comments, blank lines and env lines', () => {
    const { jobs, errors } = parseCrontab(
      [
        '# nightly things',
        '',
        'MAILTO=ops@example.com',
        'PATH=/usr/local/bin:/usr/bin:/bin',
        'GREETING = "hello world"',
        '*/5 * * * * /usr/bin/backup.sh --fast   >/dev/null 2>&1',
        '  0 2 * * 1-5   echo $GREETING',
      ].join('\n'),
    );
    expect(errors).toEqual([]);
    expect(jobs).toHaveLength(2);
    expect(jobs[0]).toMatchObject({
      line: 6,
      cron: '*/5 * * * *',
      command: ['/bin/sh', '-c', '/usr/bin/backup.sh --fast   >/dev/null 2>&1'],
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', GREETING: 'hello world' },
      key: 'crontab.l6.backup.sh',
      name: '/usr/bin/backup.sh --fast >/dev/null 2>&1',
    });
    expect(jobs[0]!.env).not.toHaveProperty('MAILTO');
    expect(jobs[1]).toMatchObject({ line: 7, cron: '0 2 * * 1-5', command: ['/bin/sh', '-c', 'echo $GREETING'] });
  });

  it('a key prefix ending in a dot does not double it', () => {
    const text = '0 3 * * * /usr/local/bin/backup.sh\n';
    const [withDot] = parseCrontab(text, { keyPrefix: 'cron.' }).jobs;
    const [withoutDot] = parseCrontab(text, { keyPrefix: 'cron' }).jobs;
    expect(withDot!.key).toBe(withoutDot!.key);
    expect(withDot!.key).toMatch(/^cron\.l1\./);
  });

  it('imports lists whose items overlap, as cron runs them (0 and 7 are both Sunday)', () => {
    const { jobs, errors } = parseCrontab('*/15,30 * * * * a\n0 4 * * 0,7 b\n0 6 * * 1-5,3 c\n');
    expect(errors).toEqual([]);
    expect(jobs.map((j) => j.cron)).toEqual(['*/15,30 * * * *', '0 4 * * 0,7', '0 6 * * 1-5,3']);
  });

  it("reads the day fields by cron's rule: both must match when either starts with *, either one when neither does", () => {
    const { jobs, errors } = parseCrontab(
      ['0 0 1 * */1 a', '0 0 */1 * 1 b', '0 0 1,15 * 1 c', '0 0 */2 * * d', '0 0 * * 1-5 e', '0 0 1-7 * 1 f', '0 0 */2 * 1 g', '0 0 1 * */2 h', '0 0 */2 * ? i'].join('\n'),
    );
    // the 1st of the month, Mondays: a field that allows every day leaves the other alone
    expect(jobs.map((j) => [j.line, j.cron])).toEqual([
      [1, '0 0 1 * *'],
      [2, '0 0 * * 1'],
      [3, '0 0 1,15 * 1'], // either (cron too: neither starts with *)
      [4, '0 0 */2 * *'],
      [5, '0 0 * * 1-5'],
      [6, '0 0 1-7 * 1'], // either, in cron as here (every day of 1-7 and every Monday)
      [9, '0 0 */2 * ?'], // ? is any day
    ]);
    // Mondays that are odd days: no expression Tickflow reads means that
    expect(errors.map((e) => [e.line, e.reason])).toEqual([
      [7, expect.stringMatching(/^cron runs "0 0 \*\/2 \* 1" on days that are both day of month "\*\/2" and day of week "1" .*either of two day fields/)],
      [8, expect.stringMatching(/^cron runs "0 0 1 \* \*\/2" on days that are both/)],
    ]);
  });

  it('env lines apply only to entries after them', () => {
    const { jobs } = parseCrontab('0 * * * * a\nFOO=1\n0 * * * * b\n');
    expect(jobs[0]!.env).toEqual({});
    expect(jobs[1]!.env).toEqual({ FOO: '1' });
  });

  it.each([
    ['@hourly', '0 * * * *'],
    ['@daily', '0 0 * * *'],
    ['@midnight', '0 0 * * *'],
    ['@weekly', '0 0 * * 0'],
    ['@monthly', '0 0 1 * *'],
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    ['@DAILY', '0 0 * * *'],
  ])('expands %s to %s', (macro, cron) => {
    const { jobs, errors } = parseCrontab(`${macro} /bin/true`);
    expect(errors).toEqual([]);
    expect(jobs[0]!.cron).toBe(cron);
  });

  it('reports @reboot, unknown macros, short lines and bad schedules without stopping', () => {
    const { jobs, errors } = parseCrontab(
      ['@reboot /usr/bin/start-thing', '@often foo', '* * * *', '61 * * * * bad-minute', '0 0 31 4 * never', '* * * * *', '0 1 * * * ok'].join('\n'),
    );
    expect(jobs.map((j) => j.line)).toEqual([7]);
    expect(errors.map((e) => e.line)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(errors[0]!.reason).toMatch(/@reboot is not supported/);
    expect(errors[1]!.reason).toMatch(/unknown macro/);
    expect(errors[2]!.reason).toMatch(/5 time fields/);
    expect(errors[3]!.reason).toMatch(/invalid schedule/);
    expect(errors[4]!.reason).toMatch(/invalid schedule/);
    expect(errors[5]!.reason).toMatch(/5 time fields|missing command/);
    expect(errors[0]!.text).toBe('@reboot /usr/bin/start-thing');
  });

  it('reports a command holding a bidirectional control character: it would show in another order than it runs', () => {
    const { jobs, errors } = parseCrontab('* * * * * echo \u202Eevil\n0 1 * * * echo fine\n');
    expect(jobs.map((j) => j.line)).toEqual([2]);
    expect(errors).toEqual([{ line: 1, text: '* * * * * echo \u202Eevil', reason: expect.stringContaining('bidirectional control character (U+202E)') }]);
  });

  it('reads the user column of system crontabs (/etc/cron.d)', () => {
    const { jobs, errors } = parseCrontab('SHELL=/bin/bash\n17 * * * * root cd / && run-parts --report /etc/cron.hourly\n0 3 * * * www-data\n', {
      system: true,
    });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ user: 'root', command: ['/bin/bash', '-c', 'cd / && run-parts --report /etc/cron.hourly'] });
    expect(jobs[0]!.env).not.toHaveProperty('SHELL');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.line).toBe(3);
  });

  it('notes a user crontab line whose command starts with a system account: a user column read without system format', () => {
    const { jobs } = parseCrontab('0 3 * * 0 root /opt/backup.sh\n5 * * * * www-data php /srv/cron.php\n0 1 * * * /usr/bin/rootkit-scan\n0 2 * * * root\n');
    expect(jobs.map((j) => j.userColumnLike)).toEqual(['root', 'www-data', undefined, undefined]);
    // read as a system crontab, the account is the user column and nothing is noted
    const system = parseCrontab('0 3 * * 0 root /opt/backup.sh\n', { system: true });
    expect(system.jobs[0]).toMatchObject({ user: 'root', command: ['/bin/sh', '-c', '/opt/backup.sh'] });
    expect(system.jobs[0]!.userColumnLike).toBeUndefined();
  });

  it('turns % into stdin and newlines, keeps \\% literal', () => {
    const { jobs } = parseCrontab('0 0 * * * mail -s "date +\\%F" root%line one%line two');
    expect(jobs[0]!.command[2]).toBe('mail -s "date +%F" root');
    expect(jobs[0]!.input).toBe('line one\nline two');
    expect(splitPercent('date +\\%s')).toEqual({ command: 'date +%s' });
  });

  it('applies CRON_TZ to later entries', () => {
    const { jobs, errors } = parseCrontab('CRON_TZ=Asia/Shanghai\n0 9 * * 1-5 report\nCRON_TZ=Not/AZone\n0 9 * * * x');
    expect(jobs[0]).toMatchObject({ timezone: 'Asia/Shanghai', cron: '0 9 * * 1-5' });
    expect(jobs[0]!.env).toEqual({});
    expect(errors.map((e) => e.line)).toEqual([3, 4]);
  });

  it('an unknown CRON_TZ is reported on its own line, and the entries after it still have their own fields checked', () => {
    const { jobs, errors } = parseCrontab('CRON_TZ=Mars/Base\n61 * * * * y\n0 5 * * * ok-but-zoneless\nCRON_TZ=Asia/Tokyo\n0 6 * * * z');
    expect(errors.map((e) => e.line)).toEqual([1, 2, 3]);
    expect(errors[0]!.text).toBe('CRON_TZ=Mars/Base');
    expect(errors[0]!.reason).toMatch(/^CRON_TZ: unknown time zone "Mars\/Base"/);
    // both problems of line 2: its bad minute, and the zone it would run in
    expect(errors[1]!.reason).toMatch(/invalid schedule "61 \* \* \* \*": .*minute.*; its zone is unknown: CRON_TZ=Mars\/Base on line 1$/i);
    expect(errors[2]!.reason).toBe('its zone is unknown: CRON_TZ=Mars/Base on line 1');
    // a valid CRON_TZ ends it
    expect(jobs).toEqual([expect.objectContaining({ line: 5, timezone: 'Asia/Tokyo', timezoneLine: 4 })]);
  });

  it('reports every problem of a line at once: a missing command or user column does not hide a bad schedule', () => {
    const user = parseCrontab('61 * * * *\n0 0 31 4 *   %only-stdin');
    expect(user.errors.map((e) => e.reason)).toEqual([
      expect.stringMatching(/^missing command; invalid schedule "61 \* \* \* \*"/),
      expect.stringMatching(/^missing command; invalid schedule "0 0 31 4 \*"/),
    ]);
    const system = parseCrontab('61 * * * * root', { system: true });
    expect(system.errors[0]!.reason).toMatch(/^expected a user column followed by a command \(system crontab format\); invalid schedule/);
  });

  it('TZ= is not CRON_TZ=: it goes to the command environment and leaves the schedule in the import zone (Vixie cron, cronie)', () => {
    const { jobs, errors } = parseCrontab('TZ=Europe/London\n0 9 * * * date\nCRON_TZ=America/New_York\n0 7 * * * backup\nCRON_TZ=\n0 8 * * * later');
    expect(errors).toEqual([]);
    expect(jobs[0]).toMatchObject({ cron: '0 9 * * *', env: { TZ: 'Europe/London' }, envTzLine: 1, line: 2 });
    expect(jobs[0]!.timezone).toBeUndefined();
    expect(jobs[1]).toMatchObject({ timezone: 'America/New_York', timezoneLine: 3, env: { TZ: 'Europe/London' } });
    expect(jobs[1]!.env.CRON_TZ).toBeUndefined();
    // An empty CRON_TZ= returns to the daemon's zone.
    expect(jobs[2]!.timezone).toBeUndefined();
  });

  it('makes keys that satisfy the jobs.key format and are unique per line', () => {
    const { jobs } = parseCrontab('* * * * * /opt/My Tool/run!.sh\n* * * * * /opt/My Tool/run!.sh\n* * * * * ___\n');
    for (const j of jobs) expect(j.key).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/);
    expect(new Set(jobs.map((j) => j.key)).size).toBe(3);
  });

  it('handles CRLF files and day/month names', () => {
    const { jobs, errors } = parseCrontab('0 6 * jan,feb mon-fri /bin/true\r\n');
    expect(errors).toEqual([]);
    expect(jobs[0]!.cron).toBe('0 6 * jan,feb mon-fri');
  });
});
