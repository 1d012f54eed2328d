/**
 * The versions, recovery history and silences lists page to their oldest entry (keyset cursors,
 * lib/api/cursor.ts), instead of stopping at a fixed count: more entries than one page, read page
 * after page through the REST routes, come back each exactly once and in order, also when many share
 * one created_at instant and when newer entries arrive between two pages; a bad `limit` or `cursor`
 * is a 400 naming it. Real PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, useRestFixture, type CallResult, type RouteHandler } from '../helpers/rest.ts';
import type { TestDatabase } from '../helpers/db.ts';
import type { Actor } from '../../lib/auth/actor.ts';
import { encodeCursor } from '../../lib/api/cursor.ts';
import { createJob, listVersions, updateJob } from '../../lib/jobs/index.ts';
import { listJobAudit } from '../../lib/jobs/list-job-audit.ts';
import { listSilences } from '../../lib/alarms/list-silences.ts';
import * as versionsRoute from '../../app/api/v1/jobs/[id]/versions/route.ts';
import * as auditRoute from '../../app/api/v1/jobs/[id]/audit/route.ts';
import * as silencesRoute from '../../app/api/v1/alarms/silences/route.ts';

const alice: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000001', name: 'alice@example.com', role: 'operator' };
const vera: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000003', name: 'vera@example.com', role: 'viewer' };
const NOW = new Date('2026-03-07T00:00:00Z');

let f: { t: TestDatabase; viewer: string };
useRestFixture(['h'], (x) => {
  f = x;
});

function expectField(r: CallResult, field: string) {
  expect(r.status, JSON.stringify(r.json)).toBe(400);
  expect(r.json.error.code).toBe('validation');
  expect(Object.keys(r.json.error.fields ?? {})).toContain(field);
}

/** Every page of a REST list from the first: `query` plus `cursor` each time, until `nextCursor` is null. */
async function readAll<T>(handler: RouteHandler, path: string, query: string, params: Record<string, string> = {}): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const q = new URLSearchParams(query);
    if (cursor) q.set('cursor', cursor);
    const r = await call(handler, 'GET', `${path}?${q}`, { token: f.viewer, params });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual(['items', 'nextCursor']);
    items.push(...(r.json.items as T[]));
    cursor = r.json.nextCursor;
    pages += 1;
    expect(pages).toBeLessThan(100);
  } while (cursor);
  return { items, pages };
}

async function newJob(key: string) {
  return createJob(f.t.db, { key, name: key, schedule: { kind: 'manual' }, handler: 'h' }, alice, NOW);
}

describe('versions', () => {
  it('a job edited 250 times lists all 251 versions, newest first, down to v1', async () => {
    const job = await newJob('paging.versions');
    // every edit at the same instant: the version number alone orders them
    for (let i = 1; i <= 250; i++) await updateJob(f.t.db, job.id, { expectedVersion: i, description: `edit ${i}` }, alice, NOW);
    const all = Array.from({ length: 251 }, (_, i) => 251 - i);

    // the console's first page (default 200) says there is more; the next page ends at v1
    const first = await listVersions(f.t.db, job.id, vera);
    expect(first.items.map((v) => v.version)).toEqual(all.slice(0, 200));
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await listVersions(f.t.db, job.id, vera, { cursor: first.nextCursor! });
    expect(second.items.map((v) => v.version)).toEqual(all.slice(200));
    expect(second.nextCursor).toBeNull();
    // the version before the current one restores a configuration; the current one does not
    expect(first.items[0]!.rollbackRefusal).toMatch(/Nothing to roll back/);
    expect(second.items.at(-1)).toMatchObject({ version: 1, changeType: 'create', rollbackRefusal: null });

    const viaRest = await readAll<{ version: number }>(versionsRoute.GET, `/api/v1/jobs/${job.id}/versions`, 'limit=60', { id: job.id });
    expect(viaRest.items.map((v) => v.version)).toEqual(all);
    expect(viaRest.pages).toBe(5);
    // a page that ends exactly at v1 says so
    const exact = await call(versionsRoute.GET, 'GET', `/api/v1/x?limit=251`, { token: f.viewer, params: { id: job.id } });
    expect(exact.json.items).toHaveLength(251);
    expect(exact.json.nextCursor).toBeNull();
  });

  it('refuses a bad limit or cursor with a 400 naming it, never a 500', async () => {
    const job = await newJob('paging.versions.bad');
    const other = await newJob('paging.versions.other');
    await updateJob(f.t.db, other.id, { expectedVersion: 1, description: 'x' }, alice, NOW);
    const otherCursor = (await listVersions(f.t.db, other.id, vera, { limit: 1 })).nextCursor!;
    const get = (query: string) => call(versionsRoute.GET, 'GET', `/api/v1/x?${query}`, { token: f.viewer, params: { id: job.id } });
    for (const limit of ['0', '501', 'abc', '1.5', '-3']) expectField(await get(`limit=${limit}`), 'limit');
    for (const cursor of [
      'garbage',
      otherCursor, // another job's history
      encodeCursor({ s: 'job-audit', v: 2, id: job.id }), // another list's
      encodeCursor({ s: 'versions', v: 'x', id: job.id }),
      encodeCursor({ s: 'versions', v: 0, id: job.id }),
      encodeCursor({ s: 'versions', v: 2.5, id: job.id }),
      encodeCursor({ s: 'versions', v: 2 ** 40, id: job.id }),
      'x'.repeat(1001),
    ]) {
      expectField(await get(`cursor=${encodeURIComponent(cursor)}`), 'cursor');
    }
    // the domain function refuses the same (the console's path)
    await expect(listVersions(f.t.db, job.id, vera, { cursor: otherCursor })).rejects.toMatchObject({ code: 'validation', fields: { cursor: expect.any(String) } });
    await expect(listVersions(f.t.db, job.id, vera, { limit: 0 })).rejects.toMatchObject({ code: 'validation', fields: { limit: expect.any(String) } });
  });
});

describe('recovery history', () => {
  it('250 entries, five to an instant, page to the oldest with no gap or repeat, also with entries added meanwhile', async () => {
    const job = await newJob('paging.audit');
    const base = Date.parse('2026-03-01T00:00:00Z');
    const ids = Array.from({ length: 250 }, () => randomUUID());
    await f.t.db.jobAudit.createMany({
      data: ids.map((id, i) => ({ id, jobId: job.id, action: 'clear', actor: 'alice@example.com', detail: { stepKey: `s${i}`, cleared: [] }, createdAt: new Date(base + Math.floor(i / 5) * 1000) })),
    });
    const expected = (await f.t.db.jobAudit.findMany({ where: { jobId: job.id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { id: true } })).map((r) => r.id);
    expect(expected).toHaveLength(250);

    const all = await readAll<{ id: string }>(auditRoute.GET, `/api/v1/jobs/${job.id}/audit`, 'limit=37', { id: job.id });
    expect(all.items.map((a) => a.id)).toEqual(expected);
    expect(all.pages).toBe(7);

    // default page of 100; a newer entry written between two pages does not shift the later pages
    const first = await listJobAudit(f.t.db, job.id, vera);
    expect(first.items.map((a) => a.id)).toEqual(expected.slice(0, 100));
    await f.t.db.jobAudit.create({ data: { jobId: job.id, action: 'backfill', actor: 'alice@example.com', createdAt: new Date(base + 999_000) } });
    const second = await listJobAudit(f.t.db, job.id, vera, { cursor: first.nextCursor! });
    const third = await listJobAudit(f.t.db, job.id, vera, { cursor: second.nextCursor! });
    expect([...second.items, ...third.items].map((a) => a.id)).toEqual(expected.slice(100));
    expect(third.nextCursor).toBeNull();
  });

  it('refuses a bad limit or cursor with a 400 naming it', async () => {
    const job = await newJob('paging.audit.bad');
    const get = (query: string) => call(auditRoute.GET, 'GET', `/api/v1/x?${query}`, { token: f.viewer, params: { id: job.id } });
    expectField(await get('limit=0'), 'limit');
    expectField(await get('limit=501'), 'limit');
    expectField(await get('cursor=garbage'), 'cursor');
    expectField(await get(`cursor=${encodeCursor({ s: 'job-audit', v: 'not a time', id: randomUUID() })}`), 'cursor');
    expectField(await get(`cursor=${encodeCursor({ s: 'silences', v: NOW.toISOString(), id: randomUUID() })}`), 'cursor');
    expect((await get('offset=3')).status).toBe(400);
    expect((await get('limit=5')).json).toEqual({ items: [], nextCursor: null });
  });
});

describe('silences', () => {
  it('the whole history (active=false) and the silences in force page to the oldest, ties on created_at included', async () => {
    const base = Date.parse('2026-02-01T00:00:00Z');
    const now = new Date(base + 10 * 86_400_000);
    const rows = Array.from({ length: 260 }, (_, i) => {
      const createdAt = new Date(base + Math.floor(i / 4) * 60_000);
      // every third one is still in force at `now`; the others ran out or were ended early
      const inForce = i % 3 === 0;
      const ended = !inForce && i % 2 === 0;
      return {
        id: randomUUID(),
        type: 'failure' as const,
        createdBy: 'alice@example.com',
        createdAt,
        until: inForce ? new Date(now.getTime() + 3_600_000) : new Date(createdAt.getTime() + 3_600_000),
        endedAt: ended ? new Date(createdAt.getTime() + 60_000) : null,
        endedBy: ended ? 'bob@example.com' : null,
      };
    });
    await f.t.db.alarmSilence.createMany({ data: rows });
    const order = (where: object) => f.t.db.alarmSilence.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { id: true } }).then((r) => r.map((x) => x.id));
    const everyId = await order({});
    const inForceIds = await order({ endedAt: null, until: { gt: now } });
    expect(everyId).toHaveLength(260);
    expect(inForceIds.length).toBeGreaterThan(80);

    const history = await readAll<{ id: string }>(silencesRoute.GET, '/api/v1/alarms/silences', 'active=false&limit=45');
    expect(history.items.map((s) => s.id)).toEqual(everyId);
    expect(history.pages).toBe(6);

    // the domain's default page (200) and the next one, as the console reads them
    const first = await listSilences(f.t.db, { includeEnded: true }, now);
    expect(first.items.map((s) => s.id)).toEqual(everyId.slice(0, 200));
    const rest = await listSilences(f.t.db, { includeEnded: true, cursor: first.nextCursor! }, now);
    expect(rest.items.map((s) => s.id)).toEqual(everyId.slice(200));
    expect(rest.nextCursor).toBeNull();

    const active: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listSilences(f.t.db, { limit: 20, cursor }, now);
      expect(page.items.every((s) => s.active)).toBe(true);
      active.push(...page.items.map((s) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(active).toEqual(inForceIds);
  });

  it('refuses a bad limit or cursor with a 400 naming it', async () => {
    const get = (query: string) => call(silencesRoute.GET, 'GET', `/api/v1/alarms/silences?${query}`, { token: f.viewer });
    expectField(await get('limit=0'), 'limit');
    expectField(await get('limit=x'), 'limit');
    expectField(await get('active=false&limit=501'), 'limit');
    expectField(await get('cursor=%00%01'), 'cursor');
    expectField(await get(`cursor=${encodeCursor({ s: 'alarms', v: NOW.toISOString(), id: randomUUID() })}`), 'cursor');
    expectField(await get(`cursor=${encodeCursor({ s: 'silences', v: null, id: randomUUID() })}`), 'cursor');
  });
});
