import { rest } from '@/app/_lib/rest';
import { EmptyInput, IdParams } from '@/lib/api/schemas';
import { endSilence } from '@/lib/alarms/end-silence';

export const dynamic = 'force-dynamic';

/**
 * DELETE /api/v1/alarms/silences/:id (operator+; no body, or `{}`: any field is a 400) -> the silence, ended now
 * (unsilence); alarms already silenced stay recorded as such.
 */
export const DELETE = rest({ operation: 'alarms.unsilence', params: IdParams, resource: 'silence', body: EmptyInput }, ({ db, params, actor, now }) => endSilence(db, params.id, actor, now));
