'use server';

import { sendTestAlarm } from '@/lib/alarms/send-test-alarm';
import { defineAction } from '@/app/_actions/define-action';

/**
 * "Send test alarm" (operator+): queues one test alarm on the given channel
 * (`{ channel: { type: 'webhook'|'email'|'log', target } }`, validated by lib/alarms
 * SendTestAlarmInput); the alarm dispatcher on a worker delivers it within seconds.
 */
export const sendTestAlarmAction = defineAction(
  'alarms.test',
  'Send test alarm',
  async ({ db, actor }, input: unknown) => ({ id: (await sendTestAlarm(db, input, actor)).id }),
  { revalidate: () => ['/alarms'] },
);
