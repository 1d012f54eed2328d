import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { endSilence } from '@/lib/alarms/end-silence';

export const dynamic = 'force-dynamic';

/** DELETE /api/v1/alarms/silences/:id (operator+) -> the silence, ended now (unsilence); alarms already silenced stay recorded as such. */
export const DELETE = rest({ operation: 'alarms.unsilence', params: IdParams }, ({ db, params, actor, now }) => endSilence(db, params.id, actor, now));
