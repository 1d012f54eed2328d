/**
 * handler_stats_daily slots (lib/engine/stats.ts STATS_SLOTS, migration
 * 20261129700000_stats_slots): completions of one handler on different
 * connections add to different rows, so one does not wait for the other's
 * COMMIT; readers see one summed row per (day, handler).
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { STATS_SLOTS } from '../../lib/engine/stats.ts';
import { statsUpsertSql, type StatsDelta } from '../../lib/engine/sql/record-handler-stats.ts';
import { getDailyStats } from '../../lib/stats/get-daily-stats.ts';
import { rebuildStats } from '../../lib/stats/rebuild-stats.ts';
import { useTestDatabase } from '../helpers/db.ts';

const t = useTestDatabase();
const clients: pg.Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.end()));
});

/** Two connections whose backend pids fall in different slots. */
async function twoSlots(): Promise<[pg.Client, pg.Client]> {
  const bySlot = new Map<number, pg.Client>();
  while (bySlot.size < 2) {
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    clients.push(c);
    const { rows } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const slot = rows[0]!.pid % STATS_SLOTS;
    if (!bySlot.has(slot)) bySlot.set(slot, c);
  }
  return [...bySlot.values()] as [pg.Client, pg.Client];
}

const now = new Date('2026-03-05T10:00:00Z');
const delta = (durationMs: number): StatsDelta => ({
  handler: 'slots.work', outcome: 'success', dead: false, attempt: 1, startedAt: new Date(now.getTime() - durationMs), latenessFrom: null,
});

describe('handler stats slots', () => {
  it('a completion on another connection does not wait for an open one; readers sum the slots', async () => {
    const [a, b] = await twoSlots();
    await a.query('BEGIN');
    const first = statsUpsertSql(delta(20), now, 1);
    await a.query(first.sql, first.params);
    // a holds its row lock until COMMIT; b must not need it (it would hit the 2 s lock_timeout)
    await b.query(`SET lock_timeout = '2s'`);
    const second = statsUpsertSql(delta(700), now, 1);
    await b.query(second.sql, second.params);
    await a.query('COMMIT');

    const physical = await t.pool.query(`SELECT slot FROM handler_stats_daily WHERE handler = 'slots.work'`);
    expect(physical.rows).toHaveLength(2);
    const { days } = await getDailyStats(t.db, { from: '2026-03-05', to: '2026-03-05', handler: 'slots.work' });
    expect(days).toHaveLength(1);
    expect(days[0]).toMatchObject({ date: '2026-03-05', handler: 'slots.work', success: 2, totalDurationMs: 720, maxDurationMs: 700 });
    expect(days[0]!.durationBuckets.reduce((x, y) => x + y, 0)).toBe(2);
  });

  it('the same connection keeps adding to its own row', async () => {
    const [a] = await twoSlots();
    for (let i = 0; i < 3; i++) {
      const u = statsUpsertSql({ ...delta(5), handler: 'slots.same' }, now, 1);
      await a.query(u.sql, u.params);
    }
    const physical = await t.pool.query(`SELECT success FROM handler_stats_daily WHERE handler = 'slots.same'`);
    expect(physical.rows).toEqual([{ success: 3 }]);
  });

  it('the rebuild compares the summed slots with the detail rows (no task rows: every stats row is drift)', async () => {
    const r = await rebuildStats(t.db, { from: '2026-03-05', to: '2026-03-05', timeZone: 'UTC' });
    expect(r.storedRows).toBe(2); // slots.work (two slots, one row) and slots.same
    expect(r.drift.map((d) => [d.handler, d.stored?.success])).toEqual([['slots.same', 3], ['slots.work', 2]]);
  });
});
