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
