/**
 * What the "Send test alarm" dialog shows for a refused send (app/(console)/alarms/send-test-alarm-button.tsx):
 * the message of the field the dialog has (the target, or the channel type) under that field, and
 * everything else in a toast: a refusal without fields (rate_limited, forbidden) and field messages
 * of fields the dialog does not show (`channel`), so no refusal goes unsaid.
 */
export function testAlarmFailureNotice(r: { error?: string; fields?: Record<string, string> }): { fieldError?: string; toast?: string } {
  const fieldError = r.fields?.['channel.target'] ?? r.fields?.['channel.type'];
  if (fieldError) return { fieldError };
  const others = Object.entries(r.fields ?? {}).map(([field, message]) => `${field}: ${message}`);
  return { toast: others.length ? others.join('; ') : (r.error ?? 'The test alarm was not sent') };
}
