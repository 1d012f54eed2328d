/**
 * Crontab import: lib/jobs importCrontab and POST /api/v1/jobs/import —
 * paused shell jobs in one transaction, unconvertible lines and key collisions
 * reported per line, dry run writes nothing, bad input is a 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/db.ts';
import { SYSTEM_ACTOR, type Actor } from '../../lib/auth/actor.ts';
import { userToken, byToken, call } from '../helpers/rest.ts';
import { importCrontab } from '../../lib/jobs/import-crontab.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { pauseJob } from '../../lib/jobs/pause-job.ts';
import { crontabJobInput, IMPORT_PAUSE_REASON } from '../../lib/jobs/import-crontab.ts';
import { parseCrontab } from '../../lib/crontab/parse-crontab.ts';
import { MAX_CRONTAB_ENTRIES } from '../../lib/api/schemas.ts';
import { inTransaction } from '../../lib/db.ts';
import { TRANSACTION_TIMEOUT_MESSAGE } from '../../lib/infra/transaction-timeout.ts';
import { rest } from '../../app/_lib/rest.ts';
import * as importRoute from '../../app/api/v1/jobs/import/route.ts';
import { SAMPLE_CRONTAB_LINES } from './crontab-fixture.ts';

const CRONTAB = SAMPLE_CRONTAB_LINES.join('\n');

// imported entries run `shell`, which needs an admin (lib/jobs/handler-permissions.ts)
const ops: Actor = { kind: 'user', id: 'u-ops', name: 'ops@example.com', role: 'admin' };

async function post(token: string | null, body: unknown, headers: Record<string, string> = {}) {
  const h: Record<string, string> = { 'content-type': 'application/json', ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  const res = await importRoute.POST(new Request('http://localhost/api/v1/jobs/import', { method: 'POST', headers: h, body: typeof body === 'string' ? body : JSON.stringify(body) }));
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

describe('importCrontab', () => {
  const t = useTestDatabase();
  let operator: string;
  let viewer: string;
  let realOperator: string;
  beforeAll(async () => {
    process.env.DATABASE_URL = t.url;
    operator = await userToken(t.db, 'admin', 'ops');
    realOperator = await userToken(t.db, 'operator', 'op');
    viewer = await userToken(t.db, 'viewer', 'view');
  });
  afterAll(async () => {
    const { getDb } = await import('../../lib/db.ts');
    await getDb().$disconnect();
  });

  it('dry run previews the jobs and the unconvertible lines, writing nothing', async () => {
    const before = { jobs: await t.db.job.count(), versions: await t.db.jobVersion.count() };
    const r = await importCrontab(t.db, { text: CRONTAB, timezone: 'Europe/Berlin', dryRun: true, keyPrefix: 'dry' }, ops);
    expect(r.dryRun).toBe(true);
    expect(r.created.map((j) => j.key)).toEqual(['dry.l4.backup.sh', 'dry.l5.date', 'dry.l9.report']);
    expect(r.created.every((j) => j.status === 'paused')).toBe(true);
    // nothing was stored, so nothing is presented as if it had been: no id, version, times or counters
    for (const j of r.created) {
      expect(Object.keys(j).filter((k) => ['id', 'version', 'createdAt', 'updatedAt', 'nextRunAt', 'createdBy', 'totalRuns', 'lastRunId'].includes(k))).toEqual([]);
    }
    expect(r.created[0]).toMatchObject({ key: 'dry.l4.backup.sh', timezone: 'Europe/Berlin', steps: [expect.objectContaining({ key: 'main', handler: 'shell' })] });
    expect(r.created[2]!.schedule).toMatchObject({ kind: 'cron', cron: '0 9 * * 1-5', timezone: 'Asia/Shanghai' });
    expect(r.skipped.map((s) => [s.line, s.text])).toEqual([
      [6, '@reboot /usr/bin/warmup'],
      [7, '61 * * * * /bin/bad-minute'],
    ]);
    expect(r.skipped[0]!.reason).toMatch(/@reboot is not supported/);
    expect(r.skipped[1]!.reason).toMatch(/invalid schedule/);
    expect(await t.db.job.count()).toBe(before.jobs);
    expect(await t.db.jobVersion.count()).toBe(before.versions);
  });

  it('schedules a TZ= entry in the import zone with TZ in its environment, a CRON_TZ= entry in that zone, and says why in the dry run', async () => {
    const text = ['TZ=Europe/London', '0 9 * * * date', 'CRON_TZ=Asia/Tokyo', '30 6 * * * report'].join('\n');
    const r = await importCrontab(t.db, { text, timezone: 'UTC', dryRun: true, keyPrefix: 'tzrule' }, ops);
    expect(r.skipped).toEqual([]);
    const [date, report] = r.created;
    expect(date!.schedule).toMatchObject({ cron: '0 9 * * *', timezone: 'UTC' });
    expect(date!.steps[0]!.config).toMatchObject({ env: { TZ: 'Europe/London' } });
    expect(report!.schedule).toMatchObject({ cron: '30 6 * * *', timezone: 'Asia/Tokyo' });
    expect(r.zones).toEqual([
      { line: 2, key: 'tzrule.l2.date', timezone: 'UTC', reason: expect.stringMatching(/import's time zone.*TZ=Europe\/London \(line 1\) only sets the command's environment/) },
      { line: 4, key: 'tzrule.l4.report', timezone: 'Asia/Tokyo', reason: expect.stringMatching(/^CRON_TZ=Asia\/Tokyo on line 3/) },
    ]);
    // The REST door answers the same reasons.
    const res = await post(operator, { text, timezone: 'UTC', dryRun: true, keyPrefix: 'tzrest' });
    expect(res.status).toBe(200);
    expect(res.json.zones.map((z: { timezone: string }) => z.timezone)).toEqual(['UTC', 'Asia/Tokyo']);
  });

  it('warns about a user-format line whose command starts with a system account, in the dry run and the REST answer', async () => {
    const text = ['0 3 * * 0 root /opt/backup.sh', '0 4 * * * /usr/bin/true'].join('\n');
    const r = await importCrontab(t.db, { text, timezone: 'UTC', dryRun: true, keyPrefix: 'usercol' }, ops);
    expect(r.created.map((j) => j.key)).toEqual(['usercol.l1.root', 'usercol.l2.true']);
    expect(r.warnings).toEqual([{ line: 1, key: 'usercol.l1.root', message: expect.stringMatching(/starts with "root", like the user column of a system crontab.*System format/) }]);
    const res = await post(operator, { text, timezone: 'UTC', dryRun: true, keyPrefix: 'usercolrest', system: true });
    expect(res.status).toBe(200);
    expect(res.json.warnings).toEqual([]);
  });

  it('creates paused shell jobs (create + pause versions) attributed to the actor', async () => {
    const r = await importCrontab(t.db, { text: CRONTAB, timezone: 'Europe/Berlin', source: 'ops.crontab' }, ops);
    expect(r.created).toHaveLength(3);
    const jobs = await t.db.job.findMany({ where: { key: { startsWith: 'crontab.' } }, include: { steps: true }, orderBy: { key: 'asc' } });
    expect(jobs.map((j) => j.key)).toEqual(['crontab.l4.backup.sh', 'crontab.l5.date', 'crontab.l9.report']);
    const backup = jobs[0]!;
    expect(backup).toMatchObject({ status: 'paused', cronExpression: '30 2 * * *', timezone: 'Europe/Berlin', createdBy: 'ops@example.com', version: 2 });
    expect(backup.description).toContain('Imported from ops.crontab line 4');
    expect(backup.steps[0]).toMatchObject({ handler: 'shell', config: { command: ['/bin/sh', '-c', '/usr/local/bin/backup.sh "$BACKUP_DIR"'], env: { BACKUP_DIR: '/var/backups' } } });
    expect(jobs[1]!.steps[0]!.config).toMatchObject({ command: ['/bin/sh', '-c', 'date +%s'], input: 'ignored stdin' });
    const versions = await t.db.jobVersion.findMany({ where: { jobId: backup.id }, orderBy: { version: 'asc' } });
    expect(versions.map((v) => [v.changeType, v.createdBy])).toEqual([
      ['create', 'ops@example.com'],
      ['pause', 'ops@example.com'],
    ]);
  });

  it('reports a key collision on its line and still imports the other entries in one transaction', async () => {
    await createJob(t.db, { key: 'coll.l2.b', name: 'taken', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, SYSTEM_ACTOR);
    const text = ['0 1 * * * /bin/a', '0 2 * * * /bin/b', '0 3 * * * /bin/c'].join('\n');
    const r = await importCrontab(t.db, { text, timezone: 'UTC', keyPrefix: 'coll' }, ops);
    expect(r.created.map((j) => j.key)).toEqual(['coll.l1.a', 'coll.l3.c']);
    expect(r.skipped).toEqual([{ line: 2, text: '0 2 * * * /bin/b', reason: expect.stringMatching(/coll\.l2\.b is already used/) }]);
    expect(await t.db.job.count({ where: { key: { startsWith: 'coll.' } } })).toBe(3);
    // a dry run names the same collision
    const again = await importCrontab(t.db, { text, timezone: 'UTC', keyPrefix: 'coll', dryRun: true }, ops);
    expect(again.created).toHaveLength(0);
    expect(again.skipped.map((s) => s.line)).toEqual([1, 2, 3]);
  });

  it('reads the system format (user column) and records the user', async () => {
    const r = await importCrontab(t.db, { text: '17 * * * * root cd / && run-parts --report /etc/cron.hourly', timezone: 'UTC', system: true, keyPrefix: 'sys' }, ops);
    expect(r.created).toHaveLength(1);
    expect(r.created[0]!.description).toMatch(/ran as user root/);
    expect(r.created[0]!.steps[0]!.config).toMatchObject({ command: ['/bin/sh', '-c', 'cd / && run-parts --report /etc/cron.hourly'] });
  });

  it('refuses bad input naming the field, and viewers', async () => {
    const cases: [unknown, string][] = [
      [{ timezone: 'UTC' }, 'text'],
      [{ text: '   ', timezone: 'UTC' }, 'text'],
      [{ text: 'x'.repeat(256 * 1024 + 1), timezone: 'UTC' }, 'text'],
      [{ text: '* * * * * a' }, 'timezone'],
      [{ text: '* * * * * a', timezone: 'Mars/Base' }, 'timezone'],
      [{ text: '* * * * * a', timezone: 'UTC', keyPrefix: 'bad prefix' }, 'keyPrefix'],
      [{ text: '* * * * * a', timezone: 'UTC', system: 'yes' }, 'system'],
      [{ text: '* * * * * a', timezone: 'UTC', dryRun: 1 }, 'dryRun'],
    ];
    for (const [input, field] of cases) {
      await expect(importCrontab(t.db, input, ops), field).rejects.toMatchObject({ code: 'validation', fields: { [field]: expect.any(String) } });
    }
    await expect(importCrontab(t.db, { text: '* * * * * a', timezone: 'UTC' }, { ...ops, role: 'viewer' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(importCrontab(t.db, { text: '* * * * * a', timezone: 'UTC', dryRun: true }, { ...ops, role: 'operator' })).rejects.toMatchObject({
      code: 'forbidden',
      fields: { text: expect.stringMatching(/shell runs programs/) },
    });
  });

  it('POST /api/v1/jobs/import: 201 with created and skipped; 200 for a dry run or when nothing was created; 400/401/403; idempotent', async () => {
    const before = await t.db.job.count();
    const refused = await post(realOperator, { text: CRONTAB, timezone: 'UTC', keyPrefix: 'rest' });
    expect(refused.status).toBe(403);
    expect(refused.json.error.message).toMatch(/^Only an admin may import crontab entries as a job running shell/);
    expect(await t.db.job.count()).toBe(before);
    const dry = await post(operator, { text: CRONTAB, timezone: 'UTC', keyPrefix: 'rest', dryRun: true });
    expect(dry.status).toBe(200);
    expect(dry.json.created.map((j: { key: string }) => j.key)).toEqual(['rest.l4.backup.sh', 'rest.l5.date', 'rest.l9.report']);
    expect(dry.json.created.map((j: { id?: string; version?: number }) => [j.id, j.version])).toEqual([[undefined, undefined], [undefined, undefined], [undefined, undefined]]);
    expect(dry.json.skipped.map((s: { line: number }) => s.line)).toEqual([6, 7]);
    expect(await t.db.job.count()).toBe(before);

    const headers = { 'idempotency-key': 'import-1' };
    const r = await post(operator, { text: CRONTAB, timezone: 'UTC', keyPrefix: 'rest' }, headers);
    expect(r.status).toBe(201);
    expect(r.json.created).toHaveLength(3);
    expect(r.json.created[0]).toMatchObject({ status: 'paused', createdBy: byToken('ops') });
    expect(r.json.skipped).toEqual([
      { line: 6, text: '@reboot /usr/bin/warmup', reason: expect.stringMatching(/@reboot/) },
      { line: 7, text: '61 * * * * /bin/bad-minute', reason: expect.stringMatching(/invalid schedule/) },
    ]);
    const replay = await post(operator, { text: CRONTAB, timezone: 'UTC', keyPrefix: 'rest' }, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await t.db.job.count()).toBe(before + 3);

    // the same file again: every entry collides, reported per line, not a 500; nothing created is not a 201
    const dup = await post(operator, { text: CRONTAB, timezone: 'UTC', keyPrefix: 'rest' });
    expect(dup.status).toBe(200);
    expect(dup.json.created).toHaveLength(0);
    expect(dup.json.skipped.map((s: { line: number }) => s.line)).toEqual([4, 5, 6, 7, 9]);
    expect(await t.db.job.count()).toBe(before + 3);

    const bad = await post(operator, { text: 'x'.repeat(256 * 1024 + 10), timezone: 'UTC' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields.text).toMatch(/256 KB/);
    const badTz = await post(operator, { text: CRONTAB, timezone: 'Nowhere' });
    expect(badTz.status).toBe(400);
    expect(Object.keys(badTz.json.error.fields)).toEqual(['timezone']);
    expect((await post(operator, '{"text": ')).status).toBe(400);
    expect((await post(null, { text: CRONTAB, timezone: 'UTC' })).status).toBe(401);
    const v = await post(viewer, { text: CRONTAB, timezone: 'UTC', keyPrefix: 'viewer' });
    expect(v.status).toBe(403);
    expect(await t.db.job.count()).toBe(before + 3);
  });

  it('imports the documented maximum of 1,000 entries in one call, storing what createJob + pauseJob store', async () => {
    const text = Array.from({ length: MAX_CRONTAB_ENTRIES }, (_, i) => `0 5 * * * echo job${i}`).join('\n');
    const res = await post(operator, { text, timezone: 'UTC', keyPrefix: 'imp.' });
    expect(res.status).toBe(201);
    expect(res.json.created).toHaveLength(1000);
    expect(res.json.skipped).toEqual([]);
    const imported = await t.db.job.findMany({ where: { key: { startsWith: 'imp.' } }, select: { id: true } });
    const ids = imported.map((j) => j.id);
    expect(ids).toHaveLength(1000);
    expect(await t.db.jobStep.count({ where: { jobId: { in: ids } } })).toBe(1000);
    expect(await t.db.jobEdge.count({ where: { jobId: { in: ids } } })).toBe(0);
    expect(await t.db.jobVersion.groupBy({ by: ['changeType', 'version'], where: { jobId: { in: ids } }, _count: true, orderBy: { version: 'asc' } })).toEqual([
      { changeType: 'create', version: 1, _count: 1000 },
      { changeType: 'pause', version: 2, _count: 1000 },
    ]);

    // A few of them in full, against the same entries created by createJob then paused by pauseJob at the same clock.
    const { jobs: entries } = parseCrontab(text, { keyPrefix: 'imp.' });
    for (const line of [1, 500, 1000]) {
      const entry = entries[line - 1]!;
      const job = await t.db.job.findFirstOrThrow({ where: { key: entry.key }, include: { steps: true, edges: true, versions: { orderBy: { version: 'asc' } } } });
      const now = job.createdAt;
      const actor: Actor = { ...ops, name: job.createdBy };
      const made = await createJob(t.db, { ...crontabJobInput(entry, { source: 'a crontab upload', timezone: 'UTC' }), key: `ref.${entry.key}` }, actor, now);
      const paused = await pauseJob(t.db, made.id, actor, { reason: IMPORT_PAUSE_REASON }, now);
      const ref = await t.db.job.findUniqueOrThrow({ where: { id: made.id }, include: { steps: true, edges: true, versions: { orderBy: { version: 'asc' } } } });
      const row = (j: typeof job) => {
        const { id: _id, key: _key, steps, edges, versions, ...rest } = j;
        return {
          ...rest,
          steps: steps.map(({ id: _i, jobId: _j, createdAt: _c, ...s }) => s),
          edges,
          versions: versions.map(({ id: _i, jobId: _j, snapshot, ...v }) => ({ ...v, snapshot: { ...(snapshot as object), key: null } })),
        };
      };
      expect(row(job)).toEqual(row(ref));
      expect(job).toMatchObject({ status: 'paused', version: 2, createdBy: byToken('ops'), nextRunAt: expect.any(Date) });
      // and the answer is the view pauseJob answers
      const { id: _a, key: _b, ...view } = res.json.created[line - 1];
      const { id: _c, key: _d, ...refView } = JSON.parse(JSON.stringify(paused));
      expect(view).toEqual(refView);
    }
  });

  it('refuses 1,001 entries with a 400 naming text, writing nothing', async () => {
    const before = { jobs: await t.db.job.count(), versions: await t.db.jobVersion.count() };
    const text = Array.from({ length: MAX_CRONTAB_ENTRIES + 1 }, (_, i) => `0 5 * * * echo job${i}`).join('\n');
    const res = await post(operator, { text, timezone: 'UTC', keyPrefix: 'over.' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'validation', fields: { text: expect.stringMatching(/Too many entries \(1001\)/) } });
    expect({ jobs: await t.db.job.count(), versions: await t.db.jobVersion.count() }).toEqual(before);
  });

  it('an unknown CRON_TZ is reported on its line, and the entries after it still have their own mistakes named', async () => {
    const res = await post(operator, { text: 'CRON_TZ=Mars/Base\n61 * * * * y\n0 5 * * * z', timezone: 'UTC', keyPrefix: 'marstz', dryRun: true });
    expect(res.status).toBe(200);
    expect(res.json.created).toEqual([]);
    expect(res.json.skipped).toEqual([
      { line: 1, text: 'CRON_TZ=Mars/Base', reason: expect.stringMatching(/^CRON_TZ: unknown time zone "Mars\/Base"/) },
      { line: 2, text: '61 * * * * y', reason: expect.stringMatching(/^invalid schedule "61 \* \* \* \*".*; its zone is unknown: CRON_TZ=Mars\/Base on line 1$/) },
      { line: 3, text: '0 5 * * * z', reason: 'its zone is unknown: CRON_TZ=Mars/Base on line 1' },
    ]);
  });

  it('a transaction that runs out of time is a 503 transaction_timeout saying nothing was changed, never a 500', async () => {
    const before = await t.db.job.count();
    const slow = rest({ operation: 'jobs.create', status: 201 }, ({ db, actor }) =>
      inTransaction(db, async (tx) => {
        await createJob(tx, { key: 'slow.one', name: 'slow', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, actor);
        await tx.$executeRaw`SELECT pg_sleep(0.4)`;
        return createJob(tx, { key: 'slow.two', name: 'slow', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, actor);
      }, { timeoutMs: 150 }),
    );
    const res = await call(slow, 'POST', '/api/v1/jobs', { token: operator, body: {} });
    expect(res.status).toBe(503);
    expect(res.json.error).toEqual({ code: 'transaction_timeout', message: TRANSACTION_TIMEOUT_MESSAGE });
    expect(await t.db.job.count()).toBe(before);
  });
});
