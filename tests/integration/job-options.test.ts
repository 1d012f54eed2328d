/**
 * The job pickers of the runs, alarms and stats pages (lib/jobs/job-options.ts): the first jobs by
 * key, the job a URL filters by even past them or in the recycle bin, and a search over every job.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/db.ts';
import { SYSTEM_ACTOR, type Actor } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { deleteJob } from '../../lib/jobs/delete-job.ts';
import { JOB_OPTIONS_LIMIT, listJobOptions } from '../../lib/jobs/job-options.ts';
import { isDomainError } from '../../lib/errors.ts';

const t = useTestDatabase();
const VIEWER: Actor = { kind: 'user', id: '00000000-0000-4000-8000-00000000000a', name: 'viewer@example.com', role: 'viewer' };
const ids: string[] = [];

beforeAll(async () => {
  // JOB_OPTIONS_LIMIT + 5 jobs with keys that sort by their number; the last ones are past the limit.
  for (let i = 0; i < JOB_OPTIONS_LIMIT + 5; i++) {
    const key = `opt.${String(i).padStart(4, '0')}`;
    const job = await createJob(t.db, { key, name: i === JOB_OPTIONS_LIMIT + 2 ? 'Billing 100% export' : key, schedule: { kind: 'manual' }, handler: 'builtin.noop' }, SYSTEM_ACTOR);
    ids.push(job.id);
  }
}, 120_000);

describe('job options', () => {
  it('list the first jobs by key, labelled by key and a name that says more', async () => {
    const options = await listJobOptions(t.db, VIEWER);
    expect(options).toHaveLength(JOB_OPTIONS_LIMIT);
    expect(options[0]).toEqual({ value: ids[0], label: 'opt.0000' });
    expect(options.map((o) => o.value)).not.toContain(ids[JOB_OPTIONS_LIMIT + 2]);
  });

  it('name the job the URL filters by, also past the limit', async () => {
    const far = ids[JOB_OPTIONS_LIMIT + 2]!;
    const options = await listJobOptions(t.db, VIEWER, { selected: far.toUpperCase() });
    expect(options).toHaveLength(JOB_OPTIONS_LIMIT + 1);
    expect(options[0]).toEqual({ value: far, label: `opt.${String(JOB_OPTIONS_LIMIT + 2).padStart(4, '0')} — Billing 100% export` });
    // an id already among the first is not listed twice; a malformed or unknown one adds nothing
    expect(await listJobOptions(t.db, VIEWER, { selected: ids[3] })).toHaveLength(JOB_OPTIONS_LIMIT);
    expect(await listJobOptions(t.db, VIEWER, { selected: 'not-an-id' })).toHaveLength(JOB_OPTIONS_LIMIT);
    expect(await listJobOptions(t.db, VIEWER, { selected: '00000000-0000-4000-8000-000000000000' })).toHaveLength(JOB_OPTIONS_LIMIT);
  });

  it('search every job by key or name, LIKE characters taken literally', async () => {
    const byName = await listJobOptions(t.db, VIEWER, { q: 'billing 100%' });
    expect(byName.map((o) => o.value)).toEqual([ids[JOB_OPTIONS_LIMIT + 2]]);
    const byKey = await listJobOptions(t.db, VIEWER, { q: `opt.${String(JOB_OPTIONS_LIMIT + 4).padStart(4, '0')}` });
    expect(byKey.map((o) => o.value)).toEqual([ids[JOB_OPTIONS_LIMIT + 4]]);
    expect(await listJobOptions(t.db, VIEWER, { q: '100_' })).toEqual([]);
  });

  it('name a job in the recycle bin as such, and leave it out of the list and the search', async () => {
    const gone = await createJob(t.db, { key: 'aaa.deleted', name: 'Old export', schedule: { kind: 'manual' }, handler: 'builtin.noop' }, SYSTEM_ACTOR);
    await deleteJob(t.db, gone.id, SYSTEM_ACTOR);
    expect((await listJobOptions(t.db, VIEWER)).map((o) => o.value)).not.toContain(gone.id);
    expect(await listJobOptions(t.db, VIEWER, { q: 'old export' })).toEqual([]);
    const options = await listJobOptions(t.db, VIEWER, { selected: gone.id });
    expect(options[0]).toEqual({ value: gone.id, label: 'aaa.deleted — Old export (in the recycle bin)' });
  });

  it('are refused to a caller who may not read jobs', async () => {
    const e = await listJobOptions(t.db, null as unknown as Actor).catch((x: unknown) => x);
    expect(isDomainError(e) && e.code).toBe('unauthorized');
  });
});
