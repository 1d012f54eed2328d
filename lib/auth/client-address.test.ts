import { describe, expect, it } from 'vitest';
import { clientAddress, trustedProxies, UNKNOWN_CLIENT } from './client-address.ts';

describe('clientAddress', () => {
  const trusted = trustedProxies({ TICKFLOW_TRUSTED_PROXIES: '10.0.0.0/8, ::1' } as unknown as NodeJS.ProcessEnv);

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(clientAddress('203.0.113.9', '1.2.3.4', trusted)).toBe('203.0.113.9');
    expect(clientAddress('203.0.113.9', '1.2.3.4', [])).toBe('203.0.113.9');
  });

  it('reads X-Forwarded-For from the right behind trusted proxies, skipping trusted hops', () => {
    expect(clientAddress('10.0.0.1', '198.51.100.7', trusted)).toBe('198.51.100.7');
    // a client-supplied left part is not believed
    expect(clientAddress('10.0.0.1', '6.6.6.6, 198.51.100.7, 10.0.0.2', trusted)).toBe('198.51.100.7');
    expect(clientAddress('::1', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddress('::ffff:10.0.0.1', '198.51.100.7', trusted)).toBe('198.51.100.7');
    // garbage in the chain: the peer
    expect(clientAddress('10.0.0.1', 'not-an-ip', trusted)).toBe('10.0.0.1');
  });

  it('without a peer address every client is one (unknown), whatever it claims', () => {
    expect(clientAddress(null, '1.2.3.4', trusted)).toBe(UNKNOWN_CLIENT);
  });

  it('refuses a TICKFLOW_TRUSTED_PROXIES entry that is not an address or CIDR', () => {
    expect(() => trustedProxies({ TICKFLOW_TRUSTED_PROXIES: '10.0.0.0/8, proxy.local' } as unknown as NodeJS.ProcessEnv)).toThrow(/"proxy.local" is not an IP address or CIDR/);
  });
});
