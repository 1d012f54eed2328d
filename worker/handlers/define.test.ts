import { describe, expect, it } from 'vitest';
import { defineHandler, HandlerDefinitionError, isHandlerDefinition, z } from './define.ts';
import { handlerSpec, mayAcceptObject, toHandler } from './function-executor.ts';
import { HandlerError, type HandlerContext } from './types.ts';

const base = { name: 'unit.test', description: 'a test handler', input: z.object({ n: z.number().int().default(1) }), run: async () => null };

describe('defineHandler', () => {
  it('returns a frozen, marked definition', () => {
    const d = defineHandler(base);
    expect(isHandlerDefinition(d)).toBe(true);
    expect(Object.isFrozen(d)).toBe(true);
    expect(isHandlerDefinition({ ...base })).toBe(false);
  });

  it.each([
    [{ name: '1bad' }, /handler "1bad": name must start with a letter/],
    [{ name: 'x'.repeat(101) }, /name must start with a letter/],
    [{ name: 'has space' }, /name must/],
    [{ description: '  ' }, /handler "unit\.test": description must be a non-empty string/],
    [{ input: { parse() {} } }, /input must be a zod schema/],
    [{ output: 'nope' }, /output must be a zod schema/],
    [{ run: 'nope' }, /run must be a function/],
    [{ timeoutSeconds: 0 }, /timeoutSeconds must be an integer between 1 and 604800/],
    [{ timeoutSeconds: 1.5 }, /timeoutSeconds/],
    [{ retry: { maxRetries: 101 } }, /retry\.maxRetries must be an integer between 0 and 100/],
    [{ retry: {} }, /retry\.maxRetries/],
  ])('refuses %o naming the field', (patch, message) => {
    expect(() => defineHandler({ ...base, ...patch } as never)).toThrow(HandlerDefinitionError);
    expect(() => defineHandler({ ...base, ...patch } as never)).toThrow(message);
  });
});

function ctx(payload: Record<string, unknown>): HandlerContext {
  const noop = () => undefined;
  return {
    payload, config: {}, attempt: 2, taskId: 't', runId: 'r', jobKey: 'k', scheduledFor: null,
    signal: new AbortController().signal, log: {} as never,
    taskLog: { debug: noop, info: noop, warn: noop, error: noop }, progress: noop, timeoutMs: 1000,
  };
}

describe('function executor', () => {
  it('parses the payload (defaults applied) and hands run the typed context', async () => {
    const h = toHandler(defineHandler({ ...base, run: async (c) => ({ n: c.payload.n, attempt: c.attempt, jobKey: c.jobKey }) }));
    await expect(h(ctx({}))).resolves.toEqual({ n: 1, attempt: 2, jobKey: 'k' });
  });

  it("hands run the worker's lease reading (Infinity outside a worker)", async () => {
    const h = toHandler(defineHandler({ ...base, run: async (c) => ({ left: c.leaseRemainingMs() }) }));
    await expect(h({ ...ctx({}), leaseRemainingMs: () => -250 })).resolves.toEqual({ left: -250 });
    await expect(h(ctx({}))).resolves.toEqual({ left: Infinity });
  });

  it('a payload that does not fit fails, naming every bad field, not retryable', async () => {
    const h = toHandler(defineHandler({ ...base, input: z.strictObject({ n: z.number(), s: z.string() }) }));
    const err = await h(ctx({ n: 'x', extra: 1 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HandlerError);
    expect((err as HandlerError).message).toBe(
      'unit.test: the payload does not fit the handler\'s input: payload.n: Invalid input: expected number, received string; payload.s: Invalid input: expected string, received undefined; payload.extra: unknown field',
    );
    expect((err as HandlerError).detail.retryable).toBe(false);
  });

  it('checks the result against output (retryable failure)', async () => {
    const h = toHandler(defineHandler({ ...base, output: z.object({ ok: z.boolean() }), run: async () => ({ ok: 'yes' }) as never }));
    const err = (await h(ctx({})).catch((e: unknown) => e)) as HandlerError;
    expect(err.message).toMatch(/the result does not fit the handler's output: output\.ok: /);
    expect(err.detail.retryable).toBeUndefined();
  });

  it('advertises the input side of the schema as JSON Schema, with the defaults', () => {
    const spec = handlerSpec(defineHandler({ ...base, timeoutSeconds: 5, retry: { maxRetries: 0 } }));
    expect(spec).toMatchObject({ description: 'a test handler', timeoutSeconds: 5, maxRetries: 0, inputSchema: { type: 'object', properties: { n: { type: 'integer', default: 1 } } } });
    expect(spec.inputSchema.required).toBeUndefined();
  });

  it('refuses an input that accepts no object (a payload is always one), naming the handler and the type', () => {
    const spec = (input: z.ZodType) => () => handlerSpec(defineHandler({ ...base, input }));
    expect(spec(z.string())).toThrow(HandlerDefinitionError);
    expect(spec(z.string())).toThrow(/handler "unit\.test": input must accept an object .*not a schema of type "string"/);
    expect(spec(z.array(z.number()))).toThrow(/not a schema of type "array"/);
    expect(spec(z.union([z.string(), z.number()]))).toThrow(/input must accept an object/);
    expect(spec(z.never())).toThrow(/input must accept an object/);
    // objects in any form, and schemas that accept anything, are fine
    for (const ok of [z.object({ a: z.string() }), z.record(z.string(), z.number()), z.union([z.object({ a: z.number() }), z.string()]),
      z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b') })]), z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() })),
      z.object({}).nullable(), z.looseObject({}), z.any(), z.unknown(), z.lazy(() => z.object({}))]) {
      expect(spec(ok)).not.toThrow();
    }
    expect(mayAcceptObject({ type: ['string', 'object'] })).toBe(true);
    expect(mayAcceptObject({ enum: ['a', 1] })).toBe(false);
    expect(mayAcceptObject({ allOf: [{ type: 'object' }, { type: 'string' }] })).toBe(false);
  });

  it('refuses a name in the system handlers\' namespace, which no job may use', () => {
    expect(() => defineHandler({ ...base, name: 'system.cleanup' })).toThrow(/handler "system\.cleanup": name must not start with "system\."/);
    expect(() => defineHandler({ ...base, name: 'systemic.cleanup' })).not.toThrow();
  });
});
