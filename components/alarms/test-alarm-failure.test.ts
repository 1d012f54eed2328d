import { describe, expect, it } from 'vitest';
import { testAlarmFailureNotice } from './test-alarm-failure.ts';

describe('testAlarmFailureNotice', () => {
  it('a field the dialog shows: under the field', () => {
    expect(testAlarmFailureNotice({ error: 'Invalid input', fields: { 'channel.target': 'Webhook target has no host' } })).toEqual({ fieldError: 'Webhook target has no host' });
    expect(testAlarmFailureNotice({ error: 'Invalid input', fields: { 'channel.type': 'Must be webhook, email or log' } })).toEqual({ fieldError: 'Must be webhook, email or log' });
  });

  it('a refusal without fields (rate limited) or with fields the dialog lacks: in a toast, never silently', () => {
    expect(testAlarmFailureNotice({ error: 'You sent 5 test alarms in the last 10 minutes (at most 5); try again in 42 s' })).toEqual({ toast: 'You sent 5 test alarms in the last 10 minutes (at most 5); try again in 42 s' });
    expect(testAlarmFailureNotice({ error: 'Invalid input', fields: { channel: 'Must be an object' } })).toEqual({ toast: 'channel: Must be an object' });
    expect(testAlarmFailureNotice({})).toEqual({ toast: 'The test alarm was not sent' });
  });
});
