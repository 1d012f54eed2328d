/**
 * The overview's job counts tell a job whose schedule ended (a `once` job that fired, a window that has ended:
 * the tick paused it) from one an operator paused, as the jobs list does with its "schedule ended" mark
 * (components/jobs/schedule-ended.tsx): such a job is counted in `scheduleEnded`, not in `paused`.
 */
import { describe, expect, it } from 'vitest';
import { getOverview } from '../../lib/stats/get-overview.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob } from './worker-fixtures.ts';

const t = useTestDatabase();
const NOW = new Date('2026-12-05T12:00:00.000Z');

describe('overview: jobs whose schedule ended', () => {
  it('are counted apart from the paused ones', async () => {
    await insertJob(t.db, { key: 'ov-active', cron: '* * * * *' });
    await insertJob(t.db, { key: 'ov-paused-cron', cron: '* * * * *', status: 'paused' });
    await insertJob(t.db, { key: 'ov-paused-manual', scheduleKind: 'manual', status: 'paused' });
    await insertJob(t.db, { key: 'ov-paused-once-later', scheduleKind: 'once', runAt: new Date('2026-12-06T00:00:00Z'), status: 'paused' });
    // fired: the tick paused it after its run-at
    await insertJob(t.db, { key: 'ov-once-fired', scheduleKind: 'once', runAt: new Date('2026-12-05T11:00:00Z'), status: 'paused' });
    // a cron whose window ended yesterday
    await insertJob(t.db, { key: 'ov-cron-ended', cron: '0 * * * *', endAt: new Date('2026-12-04T00:00:00Z'), status: 'paused' });
    // dead letter stays dead letter, whatever its schedule
    const dead = await insertJob(t.db, { key: 'ov-dead', cron: '0 * * * *', endAt: new Date('2026-12-04T00:00:00Z') });
    await t.db.job.update({ where: { id: dead }, data: { status: 'dead_letter' } });

    const o = await getOverview(t.db, NOW);
    expect(o.jobs).toEqual({ active: 1, paused: 3, scheduleEnded: 2, deadLetter: 1, total: 7, deleted: 0 });
  });

  it('a paused job whose run-at or window end passes between two loads moves to scheduleEnded on the later one', async () => {
    // the first test's jobs out of the count (in the recycle bin)
    await t.db.job.updateMany({ where: { key: { startsWith: 'ov-' } }, data: { deletedAt: NOW } });
    await insertJob(t.db, { key: 'ov2-once', scheduleKind: 'once', runAt: new Date('2026-12-07T00:00:00Z'), status: 'paused' });
    await insertJob(t.db, { key: 'ov2-window', cron: '*/5 * * * *', endAt: new Date('2026-12-05T14:00:00Z'), status: 'paused' });
    const later = (ms: number) => new Date(NOW.getTime() + ms);
    const ended = async (now: Date) => (await getOverview(t.db, now)).jobs.scheduleEnded;
    expect(await ended(NOW)).toBe(0);
    expect(await ended(later(3_600_000))).toBe(0);
    expect(await ended(later(3 * 3_600_000))).toBe(1);
    expect(await ended(later(3 * 86_400_000))).toBe(2);
    // the job edited while paused: its window reopened
    await t.db.job.updateMany({ where: { key: 'ov2-window' }, data: { endAt: null } });
    expect(await ended(later(3 * 86_400_000))).toBe(1);
  });
});
