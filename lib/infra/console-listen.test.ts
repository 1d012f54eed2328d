import { describe, expect, it } from 'vitest';
import { CONSOLE_HEALTH_PATH, consoleHealthAllowEntries, consoleListenFromEnv, consoleLocalOrigin, nextListenArgs } from './console-listen.ts';

describe('consoleListenFromEnv', () => {
  it('port 3000 on every interface by default', () => {
    expect(consoleListenFromEnv({})).toEqual({ port: 3000 });
    expect(nextListenArgs(consoleListenFromEnv({}))).toEqual(['-p', '3000']);
  });
  it('TICKFLOW_HOST keeps the console on one address', () => {
    expect(nextListenArgs(consoleListenFromEnv({ PORT: '3300', TICKFLOW_HOST: '127.0.0.1' }))).toEqual(['-p', '3300', '-H', '127.0.0.1']);
    expect(consoleListenFromEnv({ TICKFLOW_HOST: '::1' })).toEqual({ port: 3000, host: '::1' });
  });
  it('refuses a port or an address it cannot use, naming the variable', () => {
    for (const PORT of ['0', '70000', '30a', '-1']) expect(() => consoleListenFromEnv({ PORT })).toThrow(/^PORT must be/);
    for (const TICKFLOW_HOST of ['localhost', 'example.com', '127.0.0.1:3000', '300.1.1.1']) {
      expect(() => consoleListenFromEnv({ TICKFLOW_HOST })).toThrow(/^TICKFLOW_HOST must be an IP address/);
    }
  });
});

describe('consoleLocalOrigin', () => {
  it('loopback for every interface, else the one address', () => {
    expect(consoleLocalOrigin({ port: 3000 })).toBe('http://127.0.0.1:3000');
    expect(consoleLocalOrigin({ port: 3000, host: '0.0.0.0' })).toBe('http://127.0.0.1:3000');
    expect(consoleLocalOrigin({ port: 3000, host: '::' })).toBe('http://127.0.0.1:3000');
    expect(consoleLocalOrigin({ port: 3300, host: '10.1.2.3' })).toBe('http://10.1.2.3:3300');
    expect(consoleLocalOrigin({ port: 3300, host: '::1' })).toBe('http://[::1]:3300');
  });
});

describe('consoleHealthAllowEntries', () => {
  it('admits the demo health check and nothing else of the console', async () => {
    const { outboundAllowList } = await import('../net/outbound.ts');
    const entries = consoleHealthAllowEntries('http://127.0.0.1:3300', 3300);
    expect(entries).toEqual(['127.0.0.1:3300/api/v1/health', 'localhost:3300/api/v1/health']);
    const allow = outboundAllowList({ TICKFLOW_OUTBOUND_ALLOW: entries.join(',') } as unknown as NodeJS.ProcessEnv);
    // the port itself is not listed: sign-in, pages and server actions stay refused (lib/net/outbound.test.ts)
    expect(allow.hostPorts.size).toBe(0);
    expect(allow.hostPortPaths.get('127.0.0.1:3300')).toEqual([CONSOLE_HEALTH_PATH]);
    expect(consoleHealthAllowEntries('http://[::1]:3300', 3300)[0]).toBe('[::1]:3300/api/v1/health');
    expect(outboundAllowList({ TICKFLOW_OUTBOUND_ALLOW: '[::1]:3300/api/v1/health' } as unknown as NodeJS.ProcessEnv).hostPortPaths.get('::1:3300')).toEqual([CONSOLE_HEALTH_PATH]);
  });
});
