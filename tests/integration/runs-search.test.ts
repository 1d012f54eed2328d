import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { triggerRun } from '../../lib/engine/index.ts';
import { isDomainError } from '../../lib/errors.ts';
import { listRuns } from '../../lib/runs/list-runs.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { T0, at, insertJob } from './engine-fixtures.ts';

const t = useTestDatabase();

describe('runs search (q), range check and total', () => {
  it('finds a run by full id, by the short id the console shows, or by words of its error', async () => {
    const jobId = await insertJob(t.db, { blockStrategy: 'serial_execution' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: at(i * 1000) }, at(i * 1000));
      ids.push(run!.id);
    }
    await t.db.run.update({ where: { id: ids[1]! }, data: { status: 'failed', error: 'Connection RESET by peer', finishedAt: at(5000) } });
    const find = async (q: string) => (await listRuns(t.db, { jobId, q }, SYSTEM_ACTOR)).items.map((r) => r.id);
    expect(await find(ids[2]!)).toEqual([ids[2]]);
    expect(await find(ids[2]!.toUpperCase())).toEqual([ids[2]]);
    expect(await find(ids[0]!.slice(0, 8))).toContain(ids[0]);
    expect(await find(ids[0]!.slice(0, 13))).toEqual([ids[0]]);
    expect(await find('reset by')).toEqual([ids[1]]);
    expect(await find('no such words')).toEqual([]);
    const page = await listRuns(t.db, { jobId, limit: 1 }, SYSTEM_ACTOR);
    expect(page.items).toHaveLength(1);
    expect(page).toMatchObject({ total: 3, totalCapped: false });
  });

  it('refuses a range whose end is before its start, naming `to`', async () => {
    const e = await listRuns(t.db, { from: T0.toISOString(), to: at(-1000).toISOString() }, SYSTEM_ACTOR).catch((err: unknown) => err);
    expect(isDomainError(e) && e.code === 'validation' && Object.keys(e.fields ?? {})).toEqual(['to']);
  });
});
