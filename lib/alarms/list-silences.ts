import type { Db } from '../db.ts';
import { isUuid } from '../api/ids.ts';
import { parseOrThrow } from '../api/validation.ts';
import { afterCreatedAt, createdAtPage, type Page } from '../api/cursor.ts';
import { ListSilencesQuery, toSilenceView, type SilenceView } from './silences.ts';

const SilencesPageQuery = ListSilencesQuery.pick({ limit: true, cursor: true });

/** The sort a silences cursor belongs to (lib/api/cursor.ts): a cursor of another list is a 400 at `cursor`. */
const SILENCES_CURSOR = 'silences';

/**
 * One page of silences, newest first: only those in force at `now` (default), or with `includeEnded`
 * also the ones that ran out or were ended early (who ended them). Any role.
 * @param q `includeEnded`; `limit` rows (1..MAX_HISTORY_PAGE, default 200) and `cursor`, the `nextCursor` of
 *   the previous page (raw query input is accepted)
 * @returns `{ items, nextCursor }`; `nextCursor` is null once the oldest silence has been listed.
 * Paging: keyset on (created_at desc, id desc) as the alarms list (lib/api/cursor.ts afterCreatedAt).
 * Index: alarm_silences_created_idx (created_at DESC, id DESC) for the whole history;
 * alarm_silences_active_idx (until) WHERE ended_at IS NULL finds the few in force.
 * @throws DomainError validation naming `limit` or `cursor`.
 */
export async function listSilences(
  db: Db,
  q: { includeEnded?: boolean; limit?: unknown; cursor?: string } = {},
  now: Date = new Date(),
): Promise<Page<SilenceView>> {
  const p = parseOrThrow(SilencesPageQuery, { limit: q.limit, cursor: q.cursor });
  const limit = p.limit ?? 200;
  const rows = await db.alarmSilence.findMany({
    where: { ...(q.includeEnded ? {} : { endedAt: null, until: { gt: now } }), ...afterCreatedAt(p.cursor, SILENCES_CURSOR) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = createdAtPage(rows, limit, SILENCES_CURSOR);
  const ids = [...new Set(page.items.map((r) => r.jobId).filter((x): x is string => !!x && isUuid(x)))];
  const jobs = ids.length ? await db.job.findMany({ where: { id: { in: ids } }, select: { id: true, key: true } }) : [];
  const keys = new Map(jobs.map((j) => [j.id, j.key]));
  return { items: page.items.map((r) => toSilenceView(r, (r.jobId && keys.get(r.jobId)) ?? null, now)), nextCursor: page.nextCursor };
}
