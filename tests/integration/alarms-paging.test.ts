/**
 * Paging GET /api/v1/alarms (lib/alarms/list-alarms.ts): one alarm raised on several channels is
 * several rows sharing one created_at, so the keyset is (created_at, id) and a page boundary
 * inside such a group neither skips nor repeats a row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/db.ts';
import { call, userToken } from '../helpers/rest.ts';
import * as alarms from '../../app/api/v1/alarms/route.ts';
import { listAlarms } from '../../lib/alarms/list-alarms.ts';
import { encodeCursor } from '../../lib/api/cursor.ts';

const t = useTestDatabase();
let viewer: string;
const ids: string[] = [];

beforeAll(async () => {
  process.env.DATABASE_URL = t.url;
  viewer = await userToken(t.db, 'viewer', 'view');
  // Three instants, each an alarm on the three channels (rows with one created_at), and one lone row.
  const instants = ['2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z', '2026-03-01T09:00:00.000Z', '2026-03-01T09:00:00.000Z', '2026-03-01T09:00:00.000Z', '2026-03-01T08:00:00.000Z', '2026-03-01T08:00:00.000Z', '2026-03-01T08:00:00.000Z', '2026-03-01T07:00:00.000Z'];
  const channels = ['webhook', 'email', 'log'];
  for (const [i, at] of instants.entries()) {
    const r = await t.pool.query<{ id: string }>(
      `INSERT INTO alarms (type, channel, target, status, created_at, updated_at, next_attempt_at)
       VALUES ('failure', $1::alarm_channel, '', 'sent', $2::timestamptz, $2::timestamptz, $2::timestamptz) RETURNING id`,
      [channels[i % 3], at],
    );
    ids.push(r.rows[0]!.id);
  }
});
afterAll(async () => {
  const { getDb } = await import('../../lib/db.ts');
  await getDb().$disconnect();
});

describe('alarms paging', () => {
  it('limit=1 over REST, following nextCursor, gives every alarm exactly once, newest first', async () => {
    const all = await call(alarms.GET, 'GET', '/api/v1/alarms?limit=200', { token: viewer });
    expect(all.status).toBe(200);
    expect(all.json.items).toHaveLength(ids.length);
    expect(all.json.nextCursor).toBeNull();
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < ids.length + 2; page++) {
      const r = await call(alarms.GET, 'GET', `/api/v1/alarms?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: viewer });
      expect(r.status).toBe(200);
      seen.push(...r.json.items.map((a: { id: string }) => a.id));
      cursor = r.json.nextCursor;
      if (!cursor) break;
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual(all.json.items.map((a: { id: string }) => a.id));
    expect(new Set(seen).size).toBe(ids.length);
  });

  it('every page size gives every alarm once, whichever row of a shared instant a page ends on', async () => {
    const expected = (await listAlarms(t.db, { limit: 200 })).items.map((a) => a.id);
    for (const limit of [1, 2, 4, 5]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await listAlarms(t.db, { limit, cursor });
        seen.push(...page.items.map((a) => a.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen, `limit ${limit}`).toEqual(expected);
    }
  });

  it('a cursor from another list is a 400 naming `cursor`; `before` still bounds the list (links from before the cursor)', async () => {
    const foreign = encodeCursor({ s: 'runs', v: '2026-03-01T10:00:00.000Z', id: ids[0]! });
    const bad = await call(alarms.GET, 'GET', `/api/v1/alarms?cursor=${foreign}`, { token: viewer });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.json.error.fields)).toEqual(['cursor']);
    const bounded = await call(alarms.GET, 'GET', '/api/v1/alarms?before=2026-03-01T09:00:00.000Z', { token: viewer });
    expect(bounded.status).toBe(200);
    expect(bounded.json.items.map((a: { createdAt: string }) => a.createdAt)).toEqual(['2026-03-01T08:00:00.000Z', '2026-03-01T08:00:00.000Z', '2026-03-01T08:00:00.000Z', '2026-03-01T07:00:00.000Z']);
    expect(bounded.json).not.toHaveProperty('nextBefore');
  });
});
