import { describe, expect, it } from 'vitest';
import { serializeError } from './log.ts';

class FakeClient {
  connectionParameters = { host: '127.0.0.1', port: 5432, user: 'postgres' };
  secretKey = 1455560046;
}

describe('serializeError', () => {
  it('drops the class instances an error carries (node-postgres hangs its client on a connection error)', () => {
    const err = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01', severity: 'FATAL', client: new FakeClient() });
    const out = serializeError(err) as Record<string, unknown>;
    expect(out).toMatchObject({ type: 'Error', message: 'terminating connection due to administrator command', code: '57P01', severity: 'FATAL' });
    expect(out).not.toHaveProperty('client');
    expect(JSON.stringify(out)).not.toMatch(/secretKey|connectionParameters/);
  });

  it('keeps plain objects, arrays and the cause', () => {
    const err = Object.assign(new Error('outer', { cause: new Error('inner') }), { fields: { cron: 'bad' }, list: [1, 2] });
    const out = serializeError(err) as Record<string, unknown>;
    expect(out.fields).toEqual({ cron: 'bad' });
    expect(out.list).toEqual([1, 2]);
    expect(String(out.message)).toBe('outer: inner');
    expect(JSON.stringify(out)).toMatch(/inner/);
  });
});
