import { rest } from '@/app/_lib/rest';
import { SendTestAlarmInput, sendTestAlarm } from '@/lib/alarms/send-test-alarm';

export const dynamic = 'force-dynamic';

/** POST /api/v1/alarms/test { channel: { type: 'webhook'|'email'|'log', target } } (operator+) -> 201 { id, channel, target } queued for the dispatcher. */
export const POST = rest({ operation: 'alarms.test', body: SendTestAlarmInput, status: 201 }, ({ db, body, actor, now }) =>
  sendTestAlarm(db, body, actor, now),
);
