import { describe, expect, it } from 'vitest';
import { CreateJobInput, CreateTokenInput, CreateUserInput, RoutingInput, SaveDagInput, UpdateJobInput, UpdateUserInput } from './schemas.ts';
import { fieldErrorsOf } from './validation.ts';

const job = (name: string) => ({ key: 'k1', name, schedule: { kind: 'manual' }, handler: 'builtin.noop' });
const dag = (stepName: string) => ({ key: 'k1', name: 'ok', schedule: { kind: 'manual' }, steps: [{ key: 's1', name: stepName, handler: 'builtin.noop' }] });

describe('names people read, and routing labels (lib/api/schemas.ts displayName, labelText)', () => {
  it('refuses a job name that shows nothing or reorders the text around it, naming the field', () => {
    expect(fieldErrorsOf(CreateJobInput, job('\u200b'))).toEqual({ name: 'Name must contain a visible character' });
    expect(fieldErrorsOf(CreateJobInput, job(' \u2060\ufeff '))).toEqual({ name: 'Name must contain a visible character' });
    expect(fieldErrorsOf(CreateJobInput, job('   '))).toEqual({ name: 'Name is required' });
    expect(fieldErrorsOf(CreateJobInput, job('\u202eRTL name'))).toEqual({ name: expect.stringMatching(/bidirectional control/) });
    expect(fieldErrorsOf(CreateJobInput, job('a\u2067b'))).toEqual({ name: expect.stringMatching(/bidirectional control/) });
    expect(fieldErrorsOf(CreateJobInput, { ...job('ok'), steps: [{ key: 's1', name: '\u202dx', handler: 'builtin.noop' }] })).toMatchObject({ 'steps.0.name': expect.stringMatching(/bidirectional/) });
  });

  // Blank-looking characters that are neither white space nor Cf: Default_Ignorable_Code_Point (Hangul fillers,
  // combining grapheme joiner, variation selectors, tags) and U+2800 braille pattern blank.
  const BLANKS = ['\u3164', '\u2800', '\u115f\u1160', '\u034f', '\ufe0f', '\uffa0', ' \u3164 \u2800 ', '\u{e0041}\u{e0042}', '\u180e'];

  it('refuses a name made only of blank-looking characters outside Cf, in every name field, naming it', () => {
    const visible = 'Name must contain a visible character';
    for (const blank of BLANKS) {
      const label = JSON.stringify(blank);
      expect(fieldErrorsOf(CreateJobInput, job(blank)), label).toEqual({ name: visible });
      expect(fieldErrorsOf(UpdateJobInput, { expectedVersion: 1, name: blank }), label).toEqual({ name: visible });
      // optional names (a step's, a user's) may be left empty, but a name given must show
      expect(fieldErrorsOf(CreateJobInput, dag(blank)), label).toEqual({ 'steps.0.name': visible });
      expect(fieldErrorsOf(SaveDagInput, { expectedVersion: 1, steps: [{ key: 's1', name: blank, handler: 'builtin.noop' }], edges: [] }), label).toEqual({ 'steps.0.name': visible });
      expect(fieldErrorsOf(CreateUserInput, { email: 'a@b.test', name: blank, password: 'long-enough', role: 'viewer' }), label).toEqual({ name: visible });
      expect(fieldErrorsOf(UpdateUserInput, { name: blank }), label).toEqual({ name: visible });
      expect(fieldErrorsOf(CreateTokenInput, { name: blank, scope: 'read' }), label).toEqual({ name: visible });
    }
    // an optional name left empty is still no name at all, not an error
    expect(fieldErrorsOf(UpdateUserInput, { name: '' })).toEqual({});
    expect(fieldErrorsOf(CreateJobInput, dag('  '))).toEqual({});
  });

  it('refuses routing label keys and values holding a blank-looking character', () => {
    for (const blank of BLANKS) {
      const label = JSON.stringify(blank);
      expect(fieldErrorsOf(RoutingInput, { labels: { [`zone${blank}`]: 'eu' } }), label).toEqual({ [`labels.zone${blank}`]: expect.stringMatching(/invisible/) });
      expect(fieldErrorsOf(RoutingInput, { labels: { zone: `eu${blank}` } }), label).toEqual({ 'labels.zone': expect.stringMatching(/invisible/) });
    }
  });

  it('keeps right-to-left text, emoji and joiners inside visible text', () => {
    for (const name of ['גיבוי לילי', 'نسخ احتياطي', 'nightly 🚀', 'family 👩\u200d👩\u200d👧', 'ok \u2764\ufe0f', '한글 ㅤ이름', 'x'.repeat(200)]) {
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

describe('resource keys (lib/api/schemas.ts resourceKey)', () => {
  const keyed = (resourceKey: unknown) => ({ key: 'k1', name: 'ok', schedule: { kind: 'manual' }, steps: [{ key: 's1', handler: 'builtin.noop', resourceKey }] });
  const parsedKey = (resourceKey: unknown) => {
    const r = CreateJobInput.safeParse(keyed(resourceKey));
    return r.success ? r.data.steps?.[0]?.resourceKey : undefined;
  };

  it('refuses a key with a character that shows nothing or a control character, naming the step field', () => {
    for (const bad of ['\u200b', 'db\u200b', '\u3164', '\u202edb', 'd\u2066b', '\u2800']) {
      expect(fieldErrorsOf(CreateJobInput, keyed(bad)), JSON.stringify(bad)).toEqual({ 'steps.0.resourceKey': expect.stringMatching(/invisible characters/) });
    }
    for (const bad of ['d\nb', '\u0007', 'a\tb', 'x\u0085y']) {
      expect(fieldErrorsOf(CreateJobInput, keyed(bad)), JSON.stringify(bad)).toEqual({ 'steps.0.resourceKey': expect.stringMatching(/control characters/) });
    }
    expect(fieldErrorsOf(CreateJobInput, keyed('  '))).toEqual({ 'steps.0.resourceKey': 'Must not be empty' });
    expect(fieldErrorsOf(CreateJobInput, keyed('x'.repeat(201)))).toEqual({ 'steps.0.resourceKey': 'At most 200 characters' });
    expect(fieldErrorsOf(SaveDagInput, { expectedVersion: 1, steps: [{ key: 's1', handler: 'builtin.noop', resourceKey: 'db\u200b' }], edges: [] }))
      .toEqual({ 'steps.0.resourceKey': expect.stringMatching(/invisible characters/) });
  });

  it('stores keys that read alike as one key: trimmed, in normalization form C', () => {
    expect(parsedKey('e\u0301')).toBe('\u00e9');
    expect(parsedKey(' \u00e9 ')).toBe('\u00e9');
    expect(parsedKey('db-primary')).toBe('db-primary');
    expect(parsedKey('数据库 / 主')).toBe('数据库 / 主');
    expect(parsedKey(null)).toBeNull();
  });
});
