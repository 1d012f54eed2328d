/**
 * The runs list's filters that have an index of their own (lib/runs/list-runs.ts; the indexes in
 * prisma/migrations): filtered by trigger (runs_trigger_time_idx), alone and with a status, and searched by a short word after punctuation
 * (lib/api/like.ts searchTextHasTrigram). Each list, read page after page by its keyset cursor,
 * returns exactly the runs a plain filter of every run returns, newest first (scheduled_for, then
 * id, both descending, also among runs sharing one instant), each once, and the same total.
 * Real PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { listRuns } from '../../lib/runs/list-runs.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { T0, insertJob } from './engine-fixtures.ts';

const t = useTestDatabase();

const TRIGGERS = ['schedule', 'manual', 'api', 'retry', 'backfill'] as const;
const STATUSES = ['success', 'failed', 'timeout', 'cancelled'] as const;
const ERRORS = ['HTTP 502 from upstream billing-5', 'task main timed out after 300 s', 'x-ray 5 failed', null];

interface Seeded { id: string; scheduledFor: Date; trigger: string; status: string; error: string | null }

/**
 * Runs over 40 days (several weekly partitions), three jobs, every trigger and status; groups of
 * runs share one scheduled_for instant so that the id breaks ties. A scheduled run is one per job
 * and instant (runs_schedule_fire_uniq).
 */
let seeded: Promise<Seeded[]> | undefined;
const seed = () => (seeded ??= insertRuns());
async function insertRuns(): Promise<Seeded[]> {
  const jobs = [await insertJob(t.db), await insertJob(t.db), await insertJob(t.db)];
  const rows: Seeded[] = [];
  for (let i = 0; i < 240; i++) {
    const scheduledFor = new Date(T0.getTime() - Math.floor(i / 3) * 12 * 3_600_000);
    const trigger = TRIGGERS[(i * 7) % 5]!;
    const status = STATUSES[(i * 3) % 4]!;
    const error = status === 'success' ? null : ERRORS[i % 4]!;
    const id = randomUUID();
    await t.db.$executeRawUnsafe(
      `INSERT INTO runs (id, job_id, job_key, job_version, trigger, triggered_by, scheduled_for, status, finished_at, error, trace_id)
       VALUES ($1::uuid, $2, 'k', 1, $3::run_trigger, 'test', $4, $5::run_status, $4, $6, 'trace')`,
      id, jobs[i % 3], trigger, scheduledFor, status, error,
    );
    rows.push({ id, scheduledFor, trigger, status, error });
  }
  return rows;
}

/** Every page of listRuns from the first, `limit` rows each, following nextCursor. */
async function readAll(query: Record<string, unknown>, limit: number) {
  const ids: string[] = [];
  let cursor: string | undefined;
  let total = -1;
  for (let pages = 0; pages < 500; pages++) {
    const page = await listRuns(t.db, { ...query, limit, cursor }, SYSTEM_ACTOR);
    if (total === -1) total = page.total;
    ids.push(...page.items.map((r) => r.id));
    if (!page.nextCursor) return { ids, total };
    cursor = page.nextCursor;
  }
  throw new Error('more than 500 pages');
}

const newestFirst = (a: Seeded, b: Seeded) => b.scheduledFor.getTime() - a.scheduledFor.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

describe('runs list filters served by their own index', () => {
  it('by trigger, alone and with a status: every matching run once, newest first, across pages and ties', async () => {
    const runs = await seed();
    const cases: { trigger: string[]; status?: string[] }[] = [
      ...TRIGGERS.map((x) => ({ trigger: [x] })),
      { trigger: ['manual', 'backfill'] },
      { trigger: ['api', 'schedule'] },
      { trigger: ['retry'], status: ['failed'] },
      { trigger: ['manual', 'api'], status: ['success', 'timeout'] },
    ];
    for (const c of cases) {
      const expected = runs
        .filter((r) => c.trigger.includes(r.trigger) && (!c.status || c.status.includes(r.status)))
        .sort(newestFirst)
        .map((r) => r.id);
      expect(expected.length, JSON.stringify(c)).toBeGreaterThan(0);
      for (const limit of [1, 7, 200]) {
        const got = await readAll({ trigger: c.trigger.join(','), status: c.status?.join(',') }, limit);
        expect(got.ids, `${JSON.stringify(c)} by ${limit}`).toEqual(expected);
        expect(got.total).toBe(expected.length);
      }
    }
  });

  it('by a short word after punctuation: every run whose error holds it, newest first, across pages', async () => {
    const runs = await seed();
    for (const q of ['-5', 'x-r', '-b', 'a b', '-z']) {
      const expected = runs
        .filter((r) => r.error?.toLowerCase().includes(q.toLowerCase()))
        .sort(newestFirst)
        .map((r) => r.id);
      for (const limit of [1, 7, 200]) {
        const got = await readAll({ q }, limit);
        expect(got.ids, `${q} by ${limit}`).toEqual(expected);
        expect(got.total).toBe(expected.length);
      }
    }
  });
});
