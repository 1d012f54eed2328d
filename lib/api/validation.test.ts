import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.ts';
import { parseOrThrow, unstorableFieldErrors, zodToFieldErrors } from './validation.ts';

const Strict = z.strictObject({ name: z.string() });

describe('field errors', () => {
  it('are ordinary objects (server actions cannot send prototype-less ones to the browser)', () => {
    const r = Strict.safeParse({ name: 1 });
    expect(Object.getPrototypeOf(zodToFieldErrors(r.error!))).toBe(Object.prototype);
    expect(Object.getPrototypeOf(unstorableFieldErrors({ a: '\u0000' }))).toBe(Object.prototype);
    try {
      parseOrThrow(Strict, { name: 'x', extra: 1 });
      throw new Error('expected a validation error');
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expect(Object.getPrototypeOf((e as DomainError).fields)).toBe(Object.prototype);
    }
  });

  it('keep a field named __proto__ as a field, with a message naming it', () => {
    try {
      parseOrThrow(Strict, JSON.parse('{"name":"x","__proto__":{"a":1}}'));
      throw new Error('expected a validation error');
    } catch (e) {
      const err = e as DomainError;
      expect(Object.keys(err.fields!)).toEqual(['__proto__']);
      expect(err.message).toBe('Invalid __proto__: Field name __proto__ is not allowed');
    }
  });
});

describe('messages of zod checks without a message of their own (fieldMessage)', () => {
  const fieldsOf = (schema: z.ZodType, data: unknown): Record<string, string> => {
    try {
      parseOrThrow(schema, data);
    } catch (e) {
      return (e as DomainError).fields!;
    }
    throw new Error('expected a validation error');
  };
  const S = z.strictObject({
    from: z.string(),
    jitter: z.number().min(0).max(1),
    below: z.number().lt(10),
    name: z.string().min(1).max(3),
    list: z.array(z.number()).min(2).max(3),
    one: z.array(z.number()).max(1).optional(),
    flag: z.boolean(),
    custom: z.number().max(5, 'Five at most, please'),
  });

  it('say what is wanted in the forms\' words, not zod\'s defaults', () => {
    expect(fieldsOf(S, { jitter: 2, below: 10, name: 'abcd', list: [1], flag: 'yes', custom: 1 })).toEqual({
      from: 'Required',
      jitter: 'Must be at most 1',
      below: 'Must be less than 10',
      name: 'Must be at most 3 characters',
      list: 'Must be at least 2 items',
      flag: 'Must be true or false',
    });
    expect(fieldsOf(S, { from: 1, jitter: -1, below: 1, name: '', list: [1, 2, 3, 4], flag: true, custom: 1 })).toEqual({
      from: 'Must be a text',
      jitter: 'Must be at least 0',
      name: 'Must not be empty',
      list: 'Must be at most 3 items',
    });
  });

  it('name the allowed values of an enum or a literal in plain words', () => {
    const E = z.strictObject({ dir: z.enum(['asc', 'desc']).optional(), sort: z.enum(['key', 'name', 'created_at']).optional(), v: z.literal(1).optional(), own: z.enum(['a', 'b'], { message: 'A or B' }).optional() });
    expect(fieldsOf(E, { dir: 'sideways', sort: 'evil', v: 2, own: 'c' })).toEqual({
      dir: 'Must be asc or desc',
      sort: 'Must be key, name or created_at',
      v: 'Must be 1',
      own: 'A or B',
    });
  });

  it('say "1 item", not "1 items"', () => {
    expect(fieldsOf(S, { from: 'x', jitter: 0, below: 1, name: 'a', list: [1, 2], flag: true, custom: 1, one: [1, 2] })).toEqual({ one: 'Must be at most 1 item' });
  });

  it('leave a schema\'s own message alone', () => {
    expect(fieldsOf(S, { from: 'x', jitter: 0, below: 1, name: 'a', list: [1, 2], flag: true, custom: 6 })).toEqual({ custom: 'Five at most, please' });
  });
});

describe('a cron schedule with an unknown zone and a bad expression', () => {
  it('reports both fields at once, the expression checked in UTC', async () => {
    const { CronScheduleInput } = await import('./schemas.ts');
    let fields: Record<string, string> | undefined;
    try {
      parseOrThrow(CronScheduleInput, { kind: 'cron', cron: '61 * * * *', timezone: 'Mars/Olympus' });
    } catch (e) {
      fields = (e as DomainError).fields;
    }
    expect(Object.keys(fields ?? {}).sort()).toEqual(['cron', 'timezone']);
    expect(fields!.timezone).toBe('Unknown time zone: Mars/Olympus');
    // a good expression with the unknown zone: only the zone
    expect(() => parseOrThrow(CronScheduleInput, { kind: 'cron', cron: '0 9 * * *', timezone: 'Mars/Olympus' })).toThrow(/Unknown time zone/);
  });
});
