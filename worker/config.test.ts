import { describe, expect, it } from 'vitest';
import { ConfigError, loadWorkerConfig as load, parseLabels } from './config';

const loadWorkerConfig = (env: Record<string, string>) => load(env as NodeJS.ProcessEnv);

describe('worker config', () => {
  it('requires DATABASE_URL', () => {
    expect(() => loadWorkerConfig({})).toThrow(ConfigError);
  });

  it('without DATABASE_URL, says where the embedded database of `npm start` keeps its URL (README "The two commands")', () => {
    expect(() => loadWorkerConfig({})).toThrow('DATABASE_URL=$(cat .tickflow/database-url) npm run worker');
    expect(() => loadWorkerConfig({ TICKFLOW_DATA_DIR: '/srv/tf' })).toThrow('DATABASE_URL=$(cat /srv/tf/database-url) npm run worker');
  });

  it('reads and checks the alarm dispatcher\'s variables like every other (a typo stops the worker, not a silent default)', () => {
    expect(loadWorkerConfig({ DATABASE_URL: 'x' })).toMatchObject({ alarmDispatchMs: 15_000, alarmBatch: 20 });
    expect(loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_ALARM_DISPATCH_MS: '5000', TICKFLOW_ALARM_BATCH: '50' })).toMatchObject({ alarmDispatchMs: 5000, alarmBatch: 50 });
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_ALARM_BATCH: 'abc' })).toThrow(/TICKFLOW_ALARM_BATCH must be an integer/);
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_ALARM_BATCH: '2.5' })).toThrow(/TICKFLOW_ALARM_BATCH/);
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_ALARM_DISPATCH_MS: '15s' })).toThrow(/TICKFLOW_ALARM_DISPATCH_MS/);
  });

  it('checks the alarm settings the dispatcher reads at each pass (lib/alarms/config.ts alarmSettings) at start', () => {
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_ALARM_MAX_ATTEMPTS: 'lots' })).toThrow(ConfigError);
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_ALARM_MAX_ATTEMPTS: 'lots' })).toThrow(/^TICKFLOW_ALARM_MAX_ATTEMPTS must be an integer/);
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK: 'http:///x' })).toThrow(/^TICKFLOW_ALARM_NODE_OFFLINE_WEBHOOK: entry 1 of 1/);
  });

  it('checks TICKFLOW_OUTBOUND_ALLOW at start: an entry that would open nothing stops the worker', () => {
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_OUTBOUND_ALLOW: '10.0.0.0/33' })).toThrow(ConfigError);
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_OUTBOUND_ALLOW: 'http://intranet' })).toThrow(/^TICKFLOW_OUTBOUND_ALLOW: entry "http:\/\/intranet" is a URL/);
    expect(loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_OUTBOUND_ALLOW: '10.0.0.0/8,127.0.0.1:3000/api/v1/health' })).toMatchObject({ alarmBatch: 20 });
  });

  it('defaults', () => {
    const c = loadWorkerConfig({ DATABASE_URL: 'postgres://x/y' });
    expect(c).toMatchObject({ concurrency: 8, group: 'default', labels: {}, leaseSeconds: 30, heartbeatMs: 10_000, allowShell: false, roles: ['tick', 'claim', 'reap'] });
  });

  it('reads every variable', () => {
    const c = loadWorkerConfig({
      DATABASE_URL: 'postgres://x/y',
      TICKFLOW_CONCURRENCY: '3',
      TICKFLOW_NODE_GROUP: 'gpu',
      TICKFLOW_NODE_LABELS: 'region=eu, tier = gold',
      TICKFLOW_LEASE_SECONDS: '2',
      TICKFLOW_POLL_MS: '50',
      TICKFLOW_ALLOW_SHELL: '1',
      TICKFLOW_HEARTBEAT_MS: '300',
      TICKFLOW_NODE_OFFLINE_SECONDS: '5',
      TICKFLOW_SQL_CONNECTIONS: '{"wh":"postgres://w/h"}',
      TICKFLOW_ROLES: 'claim',
    });
    expect(c).toMatchObject({
      concurrency: 3,
      group: 'gpu',
      labels: { region: 'eu', tier: 'gold' },
      leaseSeconds: 2,
      pollMs: 50,
      allowShell: true,
      heartbeatMs: 300,
      nodeOfflineSeconds: 5,
      sqlConnections: { wh: 'postgres://w/h' },
      roles: ['claim'],
    });
  });

  it('reads the query timeout of its pools (TICKFLOW_DB_QUERY_TIMEOUT_MS, lib/db-timeouts.ts)', () => {
    expect(loadWorkerConfig({ DATABASE_URL: 'x' }).dbQueryTimeoutMs).toBe(30_000);
    expect(loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_DB_QUERY_TIMEOUT_MS: '120000' }).dbQueryTimeoutMs).toBe(120_000);
    expect(loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_DB_QUERY_TIMEOUT_MS: '0' }).dbQueryTimeoutMs).toBe(0);
  });

  it('names the variable on bad input', () => {
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_CONCURRENCY: 'lots' })).toThrow(/TICKFLOW_CONCURRENCY/);
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_SQL_CONNECTIONS: '[' })).toThrow(/TICKFLOW_SQL_CONNECTIONS/);
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_ROLES: 'tick,dance' })).toThrow(/dance/);
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_DB_QUERY_TIMEOUT_MS: '30s' })).toThrow(ConfigError);
    expect(() => loadWorkerConfig({ DATABASE_URL: 'x', TICKFLOW_DB_QUERY_TIMEOUT_MS: '30s' })).toThrow(/TICKFLOW_DB_QUERY_TIMEOUT_MS .*"30s"/);
    expect(() => parseLabels('a=1,b')).toThrow(/TICKFLOW_NODE_LABELS/);
    // what would be lost without a word: a key's first value, and a key a plain object drops
    expect(() => parseLabels('zone=eu,zone=us')).toThrow(/TICKFLOW_NODE_LABELS: label zone is given twice/);
    expect(() => parseLabels('__proto__=x')).toThrow(/TICKFLOW_NODE_LABELS: the label key __proto__ is not allowed/);
  });
});
