import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { acknowledgeAlarm } from '@/lib/alarms/acknowledge-alarm';
import { AcknowledgeAlarmInput } from '@/lib/alarms/silences';

export const dynamic = 'force-dynamic';

/** POST /api/v1/alarms/:id/acknowledge { note? } (operator+) -> the alarm with acknowledgedBy / acknowledgedAt; 409 when already acknowledged. */
export const POST = rest({ operation: 'alarms.acknowledge', params: IdParams, resource: 'alarm', body: AcknowledgeAlarmInput }, ({ db, params, body, actor, now }) =>
  acknowledgeAlarm(db, params.id, body, actor, now),
);
