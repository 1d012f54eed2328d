import { describe, expect, it } from 'vitest';
import { ListJobsQuery, ListRunsQuery } from './schemas.ts';
import { StatsSeriesQuery } from './view-schemas.ts';
import { queryObject } from './validation.ts';

const q = (s: string, shape: Record<string, unknown>) => queryObject(s, shape);
const fieldsOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { fields?: Record<string, string> }).fields;
  }
  throw new Error('expected a validation error');
};

describe('queryObject: a parameter given more than once (lib/api/validation.ts)', () => {
  it('refuses a repeated parameter that is not a list, naming it', () => {
    expect(fieldsOf(() => q('limit=1&limit=2', ListRunsQuery.shape))).toEqual({ limit: expect.stringMatching(/given more than once/i) });
    expect(fieldsOf(() => q('q=a&q=b&sort=key&sort=name', ListJobsQuery.shape))).toEqual({ q: expect.stringMatching(/given more than once/i), sort: expect.stringMatching(/given more than once/i) });
  });

  it('joins a repeated list parameter with commas', () => {
    expect(q('status=failed&status=success&limit=5', ListRunsQuery.shape)).toEqual({ status: 'failed,success', limit: '5' });
    expect(q('handler=a&handler=b', StatsSeriesQuery.shape)).toEqual({ handler: 'a,b' });
  });

  it('keeps a parameter named like Object.prototype\'s properties as its own key, for the unknown-parameter check (lib/own-keys.ts)', () => {
    const got = q('__proto__=x&constructor=y&limit=1', ListRunsQuery.shape);
    expect(Object.keys(got).sort()).toEqual(['__proto__', 'constructor', 'limit']);
    expect(Object.hasOwn(got, '__proto__')).toBe(true);
    expect(got.__proto__).toBe('x');
    expect(q('toString=1&toString=2', ListRunsQuery.shape)).toEqual({ toString: '1,2' });
  });

  it('leaves an unknown repeated parameter to the unknown-parameter check', () => {
    expect(q('nope=1&nope=2', ListRunsQuery.shape)).toEqual({ nope: '1,2' });
  });
});

describe('queryObject: percent-decoding (lib/api/validation.ts)', () => {
  it('reads valid UTF-8, +, a literal U+FFFD and a % that starts no escape as URLSearchParams does', () => {
    expect(q('?q=caf%C3%A9+au+lait', ListJobsQuery.shape)).toEqual({ q: 'café au lait' });
    expect(q('q=%EF%BF%BD', ListJobsQuery.shape)).toEqual({ q: '\uFFFD' });
    expect(q('q=100%&sort=key', ListJobsQuery.shape)).toEqual({ q: '100%', sort: 'key' });
    expect(q('q=%zz%2', ListJobsQuery.shape)).toEqual({ q: '%zz%2' });
    expect(q('q=é', ListJobsQuery.shape)).toEqual({ q: 'é' });
  });
});
