import { describe, expect, it } from 'vitest';
import { redactAlarmTarget } from './redact-target.ts';

describe('redactAlarmTarget', () => {
  it('cuts a webhook URL to its origin, keeps other channels whole', () => {
    expect(redactAlarmTarget('webhook', 'https://hooks.slack.com/services/T000/B000/SECRETxyz123')).toBe('https://hooks.slack.com/…');
    expect(redactAlarmTarget('webhook', 'https://alerts.example.com/?token=abc')).toBe('https://alerts.example.com/…');
    expect(redactAlarmTarget('webhook', 'https://user:pw@alerts.example.com/')).toBe('https://alerts.example.com/…');
    expect(redactAlarmTarget('webhook', 'https://alerts.example.com:8443/')).toBe('https://alerts.example.com:8443');
    expect(redactAlarmTarget('webhook', 'http://[zz')).toBe('…');
    expect(redactAlarmTarget('email', 'oncall@example.com')).toBe('oncall@example.com');
    expect(redactAlarmTarget('log', '')).toBe('');
  });
});
