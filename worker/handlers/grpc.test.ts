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

  it('keeps the configured name as authority (TLS verifies it) and brackets IPv6 targets', async () => {
    await expect(resolveGrpcTarget('[::1]:50051')).resolves.toEqual({ target: '[::1]:50051', authority: '[::1]:50051', host: '::1' });
    await expect(resolveGrpcTarget('svc.test:443')).resolves.toEqual({ target: 'svc.test:443', authority: 'svc.test:443', host: 'svc.test' });
  });

  it('names status codes', () => {
    expect(statusName(14)).toBe('UNAVAILABLE');
    expect(statusName(5)).toBe('NOT_FOUND');
    expect(statusName(99)).toBe('STATUS_99');
  });
});
