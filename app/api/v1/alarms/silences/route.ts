import { rest } from '@/app/_lib/rest';
import { createSilence } from '@/lib/alarms/create-silence';
import { listSilences } from '@/lib/alarms/list-silences';
import { CreateSilenceInput, ListSilencesQuery } from '@/lib/alarms/silences';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/alarms/silences?active=true|false&limit=&cursor= (any role) -> { items: SilenceView[], nextCursor } newest first;
 * `nextCursor` (null at the oldest) is the `cursor` of the next, older page.
 */
export const GET = rest({ operation: 'alarms.silences', query: ListSilencesQuery }, ({ db, query, now }) =>
  listSilences(db, { includeEnded: query.active === 'false', limit: query.limit, cursor: query.cursor }, now),
);

/** POST /api/v1/alarms/silences { jobId?, type?, durationMinutes? | until?, note? } (operator+) -> 201 the silence. */
export const POST = rest({ operation: 'alarms.silence', body: CreateSilenceInput, status: 201 }, ({ db, body, actor, now }) => createSilence(db, body, actor, now));
