import { describe, expect, it } from 'vitest';
import { alarmSettings } from './config.ts';
import { ConfigError } from '../infra/env-int.ts';

describe('alarmSettings', () => {
  it('defaults, and every variable read', () => {
    expect(alarmSettings({})).toEqual({ collapseSeconds: 600, maxAttempts: 5, backoffBaseSeconds: 30, backoffMaxSeconds: 3600, timeoutMs: 10_000, runLagSeconds: 45, nodeOffline: [] });
    expect(
      alarmSettings({
        TICKFLOW_ALARM_COLLAPSE_SECONDS: '0',
        TICKFLOW_ALARM_MAX_ATTEMPTS: '3',
        TICKFLOW_ALARM_BACKOFF_SECONDS: '1',
        TICKFLOW_ALARM_BACKOFF_MAX_SECONDS: '60',
        TICKFLOW_ALARM_TIMEOUT_MS: '2500',
        TICKFLOW_ALARM_RUN_LAG_SECONDS: ' 10 ',
        TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK: 'https://hooks.example.com/a, https://hooks.example.com/b',
        TICKFLOW_ALARM_NODE_OFFLINE_EMAIL: 'ops@example.com',
      }),
    ).toEqual({
      collapseSeconds: 0,
      maxAttempts: 3,
      backoffBaseSeconds: 1,
      backoffMaxSeconds: 60,
      timeoutMs: 2500,
      runLagSeconds: 10,
      nodeOffline: [
        { type: 'webhook', target: 'https://hooks.example.com/a' },
        { type: 'webhook', target: 'https://hooks.example.com/b' },
        { type: 'email', target: 'ops@example.com' },
      ],
    });
  });

  it('a malformed value is an error naming the variable, not the default', () => {
    const cases: [string, string][] = [
      ['TICKFLOW_ALARM_COLLAPSE_SECONDS', '10m'],
      ['TICKFLOW_ALARM_COLLAPSE_SECONDS', '-1'],
      ['TICKFLOW_ALARM_MAX_ATTEMPTS', '0'],
      ['TICKFLOW_ALARM_MAX_ATTEMPTS', 'five'],
      ['TICKFLOW_ALARM_BACKOFF_SECONDS', '1.5'],
      ['TICKFLOW_ALARM_BACKOFF_MAX_SECONDS', '1h'],
      ['TICKFLOW_ALARM_TIMEOUT_MS', '0'],
      ['TICKFLOW_ALARM_TIMEOUT_MS', '99999999999'],
      ['TICKFLOW_ALARM_RUN_LAG_SECONDS', '45s'],
    ];
    for (const [name, value] of cases) {
      expect(() => alarmSettings({ [name]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => alarmSettings({ [name]: value }), `${name}=${value}`).toThrow(new RegExp(`^${name} must be an integer between`));
    }
  });

  it("a malformed node-offline channel names the variable and the entry's position, not its text", () => {
    expect(() => alarmSettings({ TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK: 'https://hooks.example.com/T0SECRET, http:///x' })).toThrow(/^TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK: entry 2 of 2: Webhook target has no host/);
    expect(() => alarmSettings({ TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK: 'https://u:T0SECRET@hooks.example.com/' })).toThrow(/^TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK: entry 1 of 1: .*user name or password/);
    expect(() => alarmSettings({ TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK: 'https://u:T0SECRET@hooks.example.com/' })).not.toThrow(/T0SECRET/);
    expect(() => alarmSettings({ TICKFLOW_ALARM_NODE_OFFLINE_EMAIL: 'ops@example.com;dev@example.com' })).toThrow(/^TICKFLOW_ALARM_NODE_OFFLINE_EMAIL: entry 1 of 1: Email target must be one email address/);
  });
});
