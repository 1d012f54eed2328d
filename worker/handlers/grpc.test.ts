import { describe, expect, it } from 'vitest';
import { parseGrpcAddress, resolveGrpcTarget, statusName } from './grpc.ts';

describe('grpc addresses', () => {
  it.each([
    ['inventory.internal:50051', { host: 'inventory.internal', port: 50051 }],
    ['127.0.0.1:1', { host: '127.0.0.1', port: 1 }],
    ['[::1]:65535', { host: '::1', port: 65535 }],
  ])('parses %s', (address, expected) => {
    expect(parseGrpcAddress(address)).toEqual(expected);
  });

  it.each(['host', 'host:0', 'host:65536', ':80', 'dns:///host:80', 'a b:80', '::1:80', 'host:80/path'])('refuses %s naming config.address', (address) => {
    expect(() => parseGrpcAddress(address)).toThrow(/^grpc: config\.address: must be host:port/);
  });

  it('dials the checked address, keeps the configured name as authority (TLS verifies it) and brackets IPv6 targets', async () => {
    const saved = process.env.TICKFLOW_OUTBOUND_ALLOW;
    process.env.TICKFLOW_OUTBOUND_ALLOW = '::1/128';
    try {
      await expect(resolveGrpcTarget('[::1]:50051')).resolves.toEqual({ target: '[::1]:50051', authority: '[::1]:50051', host: '::1' });
      await expect(resolveGrpcTarget('93.184.216.34:443')).resolves.toEqual({ target: '93.184.216.34:443', authority: '93.184.216.34:443', host: '93.184.216.34' });
      await expect(resolveGrpcTarget('127.0.0.1:50051')).rejects.toThrow(/^grpc: config\.address: outbound call refused/);
    } finally {
      if (saved === undefined) delete process.env.TICKFLOW_OUTBOUND_ALLOW;
      else process.env.TICKFLOW_OUTBOUND_ALLOW = saved;
    }
  });

  it('names status codes', () => {
    expect(statusName(14)).toBe('UNAVAILABLE');
    expect(statusName(5)).toBe('NOT_FOUND');
    expect(statusName(99)).toBe('STATUS_99');
  });
});
