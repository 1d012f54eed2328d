import { describe, expect, it } from 'vitest';
import { CreateJobInput, RoutingInput } from './schemas.ts';
import { fieldErrorsOf } from './validation.ts';

const job = (name: string) => ({ key: 'k1', name, schedule: { kind: 'manual' }, handler: 'builtin.noop' });

describe('names people read, and routing labels (lib/api/schemas.ts displayName, labelText)', () => {
  it('refuses a job name that shows nothing or reorders the text around it, naming the field', () => {
    expect(fieldErrorsOf(CreateJobInput, job('\u200b'))).toEqual({ name: 'Name must contain a visible character' });
    expect(fieldErrorsOf(CreateJobInput, job(' \u2060\ufeff '))).toEqual({ name: 'Name must contain a visible character' });
    expect(fieldErrorsOf(CreateJobInput, job('   '))).toEqual({ name: 'Name is required' });
    expect(fieldErrorsOf(CreateJobInput, job('\u202eRTL name'))).toEqual({ name: expect.stringMatching(/bidirectional control/) });
    expect(fieldErrorsOf(CreateJobInput, job('a\u2067b'))).toEqual({ name: expect.stringMatching(/bidirectional control/) });
    expect(fieldErrorsOf(CreateJobInput, { ...job('ok'), steps: [{ key: 's1', name: '\u202dx', handler: 'builtin.noop' }] })).toMatchObject({ 'steps.0.name': expect.stringMatching(/bidirectional/) });
  });

  it('keeps right-to-left text, emoji and joiners inside visible text', () => {
    for (const name of ['גיבוי לילי', 'نسخ احتياطي', 'nightly 🚀', 'family 👩\u200d👩\u200d👧', 'x'.repeat(200)]) {
      expect(fieldErrorsOf(CreateJobInput, job(name)), name).toEqual({});
    }
  });

  it('refuses routing label keys and values with invisible format characters, and an empty key', () => {
    expect(fieldErrorsOf(RoutingInput, { labels: { '\u200bzone': 'eu' } })).toEqual({ 'labels.\u200bzone': expect.stringMatching(/invisible/) });
    expect(fieldErrorsOf(RoutingInput, { labels: { zone: 'eu\u200d' } })).toEqual({ 'labels.zone': expect.stringMatching(/invisible/) });
    expect(Object.values(fieldErrorsOf(RoutingInput, { labels: { ' ': 'eu' } }))).toEqual([expect.stringMatching(/must not be empty/)]);
    expect(fieldErrorsOf(RoutingInput, { labels: { zone: 'eu-1', tier: 'gold' } })).toEqual({});
  });
});
