import { describe, expect, it } from 'vitest';
import { EMPTY_JOB_FORM, bulkRunNowToast, parseRunNowInput, toJobInput } from './form-values';
import { CreateJobInput } from '@/lib/api/schemas';
import { fieldErrorsOf } from '@/lib/api/validation';

describe('parseRunNowInput (Run now dialog)', () => {
  it('empty: one run with the saved payload; an object: one run with that override', () => {
    expect(parseRunNowInput('  ')).toEqual({ ok: true, value: {} });
    expect(parseRunNowInput('{"a": 1}')).toEqual({ ok: true, value: { payload: { a: 1 } } });
  });

  it('an array of objects: one run per element, in order', () => {
    expect(parseRunNowInput('[{"d": 1}, {"d": 2}]')).toEqual({ ok: true, value: { runs: [{ payload: { d: 1 } }, { payload: { d: 2 } }] } });
  });

  it('refuses what the server would refuse, saying which element', () => {
    expect(parseRunNowInput('[]')).toMatchObject({ ok: false, error: expect.stringMatching(/empty/) });
    expect(parseRunNowInput('[{"a": 1}, 3]')).toMatchObject({ ok: false, error: 'Element 1 must be a JSON object' });
    expect(parseRunNowInput(JSON.stringify(Array.from({ length: 1001 }, () => ({}))))).toMatchObject({ ok: false, error: expect.stringMatching(/1000/) });
    expect(parseRunNowInput('"x"')).toMatchObject({ ok: false });
    expect(parseRunNowInput('{oops')).toMatchObject({ ok: false, error: expect.stringMatching(/^Invalid JSON/) });
  });
});

describe('bulkRunNowToast (Run now with a pasted array)', () => {
  it('says how many runs were created and how many were skipped at once, and why', () => {
    // discard_later: the first run starts, the two after it are skipped behind it.
    expect(bulkRunNowToast({ runs: 3, skipped: 2, skipReasons: ['blocked: previous run 0a1b2c3d-1111-4222-8333-444455556666 still active'] })).toEqual({
      kind: 'info',
      title: '1 run created, 2 skipped',
      description: 'Skipped: blocked: previous run 0a1b2c3d still active',
    });
  });
  it('no skipped run: only the count', () => {
    expect(bulkRunNowToast({ runs: 3, skipped: 0, skipReasons: [] })).toEqual({ kind: 'success', title: '3 runs created' });
  });
});

describe('a new job\'s handler', () => {
  const filled = { ...EMPTY_JOB_FORM, key: 'nightly.report', name: 'Nightly report', cron: '0 2 * * *' };

  it('starts with none chosen, and the schema the form and the server share names the Handler field alone', () => {
    expect(EMPTY_JOB_FORM.handler).toBe('');
    const { input, errors } = toJobInput(filled);
    expect(errors).toEqual({});
    expect(fieldErrorsOf(CreateJobInput, input)).toEqual({ handler: 'Handler is required' });
  });

  it('a chosen handler is accepted', () => {
    expect(fieldErrorsOf(CreateJobInput, toJobInput({ ...filled, handler: 'builtin.noop' }).input)).toEqual({});
  });
});
