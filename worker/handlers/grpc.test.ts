import { describe, expect, it } from 'vitest';
import { parseGrpcAddress, resolveGrpcTarget, statusName } from './grpc.ts';
import { HandlerError } from './types.ts';

const asEnv = (vars: Record<string, string>) => vars as NodeJS.ProcessEnv;

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
    const env = asEnv({ TICKFLOW_OUTBOUND_ALLOW: '::1, localhost:50051' });
    await expect(resolveGrpcTarget('[::1]:50051', env)).resolves.toEqual({ target: '[::1]:50051', authority: '[::1]:50051', host: '::1' });
    // a name is resolved once and the channel dials the checked address (no second lookup)
    await expect(resolveGrpcTarget('localhost:50051', env)).resolves.toMatchObject({
      target: expect.stringMatching(/^(127\.0\.0\.1|\[::1\]):50051$/),
      authority: 'localhost:50051',
      host: 'localhost',
    });
    await expect(resolveGrpcTarget('8.8.8.8:443', asEnv({}))).resolves.toEqual({ target: '8.8.8.8:443', authority: '8.8.8.8:443', host: '8.8.8.8' });
  });

  // the outbound policy of http and webhooks (lib/net/outbound.ts) applies to gRPC too
  it.each(['127.0.0.1:50051', '[::1]:50051', '169.254.169.254:80', '10.0.0.5:443', '100.100.100.200:80', '[::ffff:127.0.0.1]:80', 'localhost:50051', '0.0.0.0:80'])(
    'refuses %s unless TICKFLOW_OUTBOUND_ALLOW lists it',
    async (address) => {
      const err = await resolveGrpcTarget(address, asEnv({})).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HandlerError);
      expect((err as HandlerError).message).toMatch(/^grpc: config\.address: outbound call refused/);
      expect((err as HandlerError).detail.code).toBe('outbound_refused');
    },
  );

  it('reaches a listed loopback port only', async () => {
    const env = asEnv({ TICKFLOW_OUTBOUND_ALLOW: '127.0.0.1:50051' });
    await expect(resolveGrpcTarget('127.0.0.1:50051', env)).resolves.toMatchObject({ target: '127.0.0.1:50051' });
    await expect(resolveGrpcTarget('127.0.0.1:50052', env)).rejects.toThrow(/outbound call refused/);
  });

  it('names status codes', () => {
    expect(statusName(14)).toBe('UNAVAILABLE');
    expect(statusName(5)).toBe('NOT_FOUND');
    expect(statusName(99)).toBe('STATUS_99');
  });
});
