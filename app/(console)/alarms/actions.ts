'use server';

import { sendTestAlarm } from '@/lib/alarms/send-test-alarm';
import { acknowledgeAlarm } from '@/lib/alarms/acknowledge-alarm';
import { createSilence } from '@/lib/alarms/create-silence';
import { endSilence } from '@/lib/alarms/end-silence';
import { z } from 'zod';
import { actionArgs, defineAction, IdArg } from '@/app/_actions/define-action';

/**
 * "Send test alarm" (operator+): queues one test alarm on the given channel
 * (`{ channel: { type: 'webhook'|'email'|'log', target } }`, validated by lib/alarms
 * SendTestAlarmInput); the alarm dispatcher on a worker delivers it within seconds.
 */
export const sendTestAlarmAction = defineAction(
  'alarms.test',
  'Send test alarm',
  actionArgs(['input', z.unknown()]), // sendTestAlarm parses it with SendTestAlarmInput
  async ({ db, actor }, input: unknown) => ({ id: (await sendTestAlarm(db, input, actor)).id }),
  { revalidate: () => ['/alarms'] },
);

/** "Acknowledge" (operator+): lib/alarms acknowledgeAlarm records who, when and the optional note (`{ note? }`). */
export const acknowledgeAlarmAction = defineAction(
  'alarms.acknowledge',
  'Acknowledge alarm',
  actionArgs(['id', IdArg], ['input', z.unknown()]),
  ({ db, actor }, id: string, input: unknown) => acknowledgeAlarm(db, id, input ?? {}, actor),
  { revalidate: () => ['/alarms'] },
);

/** "Silence" (operator+): lib/alarms createSilence for a job, an alarm type or both, for a duration or until an instant. */
export const silenceAlarmsAction = defineAction('alarms.silence', 'Silence', actionArgs(['input', z.unknown()]), ({ db, actor }, input: unknown) => createSilence(db, input, actor), {
  revalidate: () => ['/alarms'],
});

/** "Unsilence" (operator+): lib/alarms endSilence ends the silence now. */
export const unsilenceAction = defineAction('alarms.unsilence', 'Unsilence', actionArgs(['id', IdArg]), ({ db, actor }, id: string) => endSilence(db, id, actor), {
  revalidate: () => ['/alarms'],
});
