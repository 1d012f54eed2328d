import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { listJobs } from '../../lib/jobs/list-jobs.ts';
import { useTestDatabase } from '../helpers/db.ts';

const t = useTestDatabase();

describe('jobs sorted by next fire', () => {
  it('lists active jobs by next fire first, paused and dead-letter jobs after, in both directions and across pages', async () => {
    const make = (key: string, status: 'active' | 'paused' | 'dead_letter', nextRunAt: string | null) =>
      t.db.job.create({ data: { key, name: key, scheduleKind: 'interval', intervalSeconds: 60, status, nextRunAt: nextRunAt ? new Date(nextRunAt) : null } });
    await make('nf.paused-soonest', 'paused', '2026-03-01T00:00:00Z');
    await make('nf.active-late', 'active', '2026-03-03T00:00:00Z');
    await make('nf.active-early', 'active', '2026-03-02T00:00:00Z');
    await make('nf.dead', 'dead_letter', '2026-02-01T00:00:00Z');
    await make('nf.active-none', 'active', null);
    const all = async (dir: 'asc' | 'desc', limit: number) => {
      const keys: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await listJobs(t.db, { q: 'nf.', sort: 'next_run_at', dir, limit, cursor }, SYSTEM_ACTOR);
        keys.push(...page.items.map((j) => j.key));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return keys;
    };
    expect(await all('asc', 50)).toEqual(['nf.active-early', 'nf.active-late', 'nf.active-none', 'nf.paused-soonest', 'nf.dead']);
    expect(await all('asc', 2)).toEqual(['nf.active-early', 'nf.active-late', 'nf.active-none', 'nf.paused-soonest', 'nf.dead']);
    expect(await all('desc', 1)).toEqual(['nf.active-late', 'nf.active-early', 'nf.active-none', 'nf.paused-soonest', 'nf.dead']);
  });
});
