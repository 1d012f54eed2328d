'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { sendTestAlarm } from '@/lib/alarms/send-test-alarm';
import { toActionError, type ActionResult } from '@/app/_actions/result';

/**
 * "Send test alarm" (operator+): queues one test alarm on the given channel
 * (`{ channel: { type: 'webhook'|'email'|'log', target } }`, validated by lib/alarms
 * SendTestAlarmInput); the alarm dispatcher on a worker delivers it within seconds.
 */
export async function sendTestAlarmAction(input: unknown): Promise<ActionResult<{ id: string }>> {
  try {
    const actor = await requireActionActor('operator');
    const r = await sendTestAlarm(getDb(), input, actor);
    revalidatePath('/alarms');
    return { ok: true, data: { id: r.id } };
  } catch (error) {
    return toActionError(error, 'Send test alarm');
  }
}
