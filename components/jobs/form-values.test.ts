import { describe, expect, it } from 'vitest';
import { bulkRunNowToast, runNowToast, EMPTY_JOB_FORM, jobToFormValues, parseLabels, parsePayload, parseRunNowInput, submitErrors, toJobInput, type JobFormValues } from './form-values';
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
    // a key written twice would silently mean its last value (the REST API refuses it too)
    expect(parseRunNowInput('{"a": 1, "a": 2}')).toEqual({ ok: false, error: 'Duplicate key: a' });
    expect(parseRunNowInput('[{"a": 1}, {"a": 1, "b": 1, "b": 2}]')).toEqual({ ok: false, error: 'Duplicate key: 1.b' });
    // a __proto__ key would be dropped on its way to the server action, and the run made without it
    expect(parseRunNowInput('{"__proto__": {"ms": 1}, "ok": 1}')).toEqual({ ok: false, error: 'Field name __proto__ is not allowed: __proto__' });
    expect(parseRunNowInput('[{"a": {"__proto__": 1}}]')).toEqual({ ok: false, error: 'Field name __proto__ is not allowed: 0.a.__proto__' });
    expect(parsePayload('{"__proto__": {"x": 1}}')).toEqual({ ok: false, error: 'Field name __proto__ is not allowed: __proto__' });
    expect(parsePayload('{"proto": 1}')).toEqual({ ok: true, value: { proto: 1 } });
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

describe('runNowToast (Run now of one run, the job page and the jobs list)', () => {
  it('says what the block strategy did: a skipped or queued run is not announced as started', () => {
    expect(runNowToast('started')).toEqual({ kind: 'success', title: 'Run started' });
    expect(runNowToast('skipped')).toEqual({ kind: 'info', title: 'Run skipped: a run is still active (discard_later)' });
    expect(runNowToast('queued')).toEqual({ kind: 'info', title: 'Run queued behind the active run (serial_execution)' });
    expect(runNowToast('covered')).toEqual({ kind: 'success', title: 'Run started; the active run was cancelled (cover_early)' });
  });
  it('names the job where the page does not (the jobs list)', () => {
    expect(runNowToast('skipped', 'nightly.report')).toEqual({ kind: 'info', title: 'nightly.report: run skipped: a run is still active (discard_later)' });
    expect(runNowToast('started', 'nightly.report')).toEqual({ kind: 'success', title: 'nightly.report: run started' });
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

describe('submitErrors (the job form before sending)', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const form = (over: Partial<JobFormValues>): JobFormValues => ({ ...EMPTY_JOB_FORM, key: 'k', name: 'n', handler: 'builtin.noop', ...over });
  const errorsOf = (v: JobFormValues, mode: 'create' | 'edit' = 'create', initial?: JobFormValues) => {
    const { input, errors } = toJobInput(v);
    if (mode === 'edit') input.expectedVersion = 1;
    return submitErrors(mode, input, errors, now, initial);
  };

  it('a once job in the past shows with the other bad fields, not after them', () => {
    const v = form({ scheduleKind: 'once', runAtLocal: '2026-02-01T09:00', payload: '{oops', timeoutSeconds: '0' });
    expect(errorsOf(v)).toEqual({
      'policy.timeoutSeconds': 'Must be a whole number from 1 to 604800',
      payload: expect.stringMatching(/^Invalid JSON/),
      'schedule.runAt': 'Is in the past: this job would never fire',
    });
    // an end before the start: the window's own message, at endAt
    expect(errorsOf(form({ cron: '0 2 * * *', startAtLocal: '2026-04-02T00:00', endAtLocal: '2026-04-01T00:00', payload: '{oops' }))).toMatchObject({ endAt: 'endAt must be after startAt' });
    // an end in the past
    expect(errorsOf(form({ cron: '0 2 * * *', endAtLocal: '2026-02-01T00:00', payload: '{oops' }))).toMatchObject({ endAt: 'Is in the past: this job would never fire' });
  });

  it('a payload with a key written twice is an error at payload, not its last value sent', () => {
    expect(errorsOf(form({ cron: '0 2 * * *', payload: '{"a": {"b": 1, "b": 2}}' }))).toEqual({ payload: 'Duplicate key: a.b' });
  });

  it('nothing wrong but the schedule: sent, the server judges it at its own clock', () => {
    expect(errorsOf(form({ scheduleKind: 'once', runAtLocal: '2026-02-01T09:00' }))).toEqual({});
  });

  it('an edit that keeps an exhausted schedule is not refused for it', () => {
    const initial = form({ scheduleKind: 'once', runAtLocal: '2026-02-01T09:00' });
    expect(errorsOf({ ...initial, payload: '{oops' }, 'edit', initial)).toEqual({ payload: expect.stringMatching(/^Invalid JSON/) });
    expect(errorsOf({ ...initial, payload: '{oops', runAtLocal: '2026-02-02T09:00' }, 'edit', initial)).toMatchObject({ 'schedule.runAt': 'Is in the past: this job would never fire' });
  });
});

describe('parseLabels (the routing labels field)', () => {
  it('refuses what would change on its way to the server: a key given twice, __proto__', () => {
    expect(parseLabels('zone=eu, tier=gold')).toEqual({ ok: true, value: { zone: 'eu', tier: 'gold' } });
    expect(parseLabels('region=eu, region=us')).toEqual({ ok: false, error: 'Label region is given twice' });
    expect(parseLabels('__proto__=x, region=eu')).toEqual({ ok: false, error: 'Label key __proto__ is not allowed' });
  });

  it('a label REST would refuse (a comma or = in a value) is refused there, so nothing saved by REST is re-split by a save here', () => {
    const job = (labels: Record<string, string>) => ({ key: 'k', name: 'n', schedule: { kind: 'manual' }, handler: 'builtin.noop', routing: { labels } });
    expect(fieldErrorsOf(CreateJobInput, job({ zone: 'eu, tier=gold' }))).toEqual({ 'routing.labels.zone': expect.stringMatching(/must not contain a comma/) });
    expect(fieldErrorsOf(CreateJobInput, job({ ' zone': 'eu' }))).toEqual({ 'routing.labels. zone': expect.stringMatching(/label key must not contain/) });
    expect(fieldErrorsOf(CreateJobInput, job({ zone: 'eu-west-1', 'team/owner': 'ops' }))).toEqual({});
    for (const sep of ['\u2028', '\u2029', '\u0085', '\v', '\f']) expect(Object.keys(fieldErrorsOf(CreateJobInput, job({ zone: `a${sep}b` }))), JSON.stringify(sep)).toEqual(['routing.labels.zone']);
  });
});

describe('the edit form sends the routing back as saved while its fields are untouched', () => {
  const job = {
    key: 'k', name: 'n', description: '', schedule: { kind: 'manual' as const }, timezone: 'UTC', startAt: null, endAt: null, staggerSeconds: 0,
    steps: [{ key: 'main', handler: 'builtin.noop', payload: {} }],
    policy: { timeoutSeconds: 60, maxRetries: 0, backoff: { baseSeconds: 1, factor: 2, maxSeconds: 60, jitter: 0 }, blockStrategy: 'discard_later' as const, misfirePolicy: 'skip' as const, misfireMaxCatchup: 1, deadLetterAfter: 0, priority: 0 },
    // a label saved before the key=value rule: the field shows it as `zone=eu,west, k= sp `
    routing: { nodeGroup: null, labels: { zone: 'eu,west', k: ' sp ' }, strategy: 'any' as const, nodes: [], key: null },
    alarms: { onFailure: false, onTimeout: false, onDeadLetter: false, onSuccess: false, channels: [] },
  };

  it('a rename sends no routing, so the labels stay exactly as stored instead of being re-split or trimmed', () => {
    const v = jobToFormValues(job as never);
    const out = toJobInput({ ...v, name: 'renamed' });
    expect(out.errors).toEqual({});
    expect(out.input).not.toHaveProperty('routing');
  });

  it('a change of a routing field sends the fields as typed (and their problems)', () => {
    const v = jobToFormValues(job as never);
    const out = toJobInput({ ...v, routingLabels: 'zone=eu' });
    expect(out.input.routing).toMatchObject({ labels: { zone: 'eu' } });
  });
});

describe('the edit form saves the instants it loaded when their fields are untouched', () => {
  const job = (over: Record<string, unknown>) => ({
    key: 'k', name: 'n', description: '', schedule: { kind: 'cron' as const, cron: '0 * * * *', timezone: 'America/New_York' }, timezone: 'America/New_York', startAt: null, endAt: null, staggerSeconds: 0,
    steps: [{ key: 'main', handler: 'builtin.noop', payload: {} }],
    policy: { timeoutSeconds: 60, maxRetries: 0, backoff: { baseSeconds: 1, factor: 2, maxSeconds: 60, jitter: 0 }, blockStrategy: 'discard_later' as const, misfirePolicy: 'skip' as const, misfireMaxCatchup: 1, deadLetterAfter: 0, priority: 0 },
    routing: { nodeGroup: null, labels: {}, strategy: 'any' as const, nodes: [], key: null },
    alarms: { onFailure: false, onTimeout: false, onDeadLetter: false, onSuccess: false, channels: [] },
    ...over,
  });

  it('a window end in the second occurrence of a repeated hour stays there (it was moved an hour back, to the first)', () => {
    const v = jobToFormValues(job({ startAt: '2026-11-01T06:30:00.000Z', endAt: '2026-11-01T05:45:00.000Z' }) as never);
    expect([v.startAtLocal, v.startAtRepeated, v.endAtLocal, v.endAtRepeated]).toEqual(['2026-11-01T01:30', 'last', '2026-11-01T01:45', 'first']);
    const out = toJobInput({ ...v, name: 'renamed' });
    expect(out.errors).toEqual({});
    expect([out.input.startAt, out.input.endAt]).toEqual(['2026-11-01T06:30:00.000Z', '2026-11-01T05:45:00.000Z']);
    // choosing the other occurrence moves it by the hour the zone repeats
    expect(toJobInput({ ...v, startAtRepeated: 'first' }).input.startAt).toBe('2026-11-01T05:30:00.000Z');
  });

  it("a once job's run-at is shown in the zone it was written in, and saved with it", () => {
    const v = jobToFormValues(job({ schedule: { kind: 'once', runAt: '2027-02-01T00:00:00.000Z', timezone: 'Asia/Tokyo' }, timezone: 'Asia/Tokyo' }) as never);
    expect([v.timezone, v.runAtLocal]).toEqual(['Asia/Tokyo', '2027-02-01T09:00']);
    expect(toJobInput({ ...v, name: 'renamed' }).input.schedule).toEqual({ kind: 'once', runAt: '2027-02-01T00:00:00.000Z', timezone: 'Asia/Tokyo' });
  });

  it('seconds and milliseconds of a run-at or window set through the API are kept (they were cut to the minute)', () => {
    const v = jobToFormValues(job({ schedule: { kind: 'once', runAt: '2027-02-01T09:00:30.125Z' }, timezone: 'UTC', endAt: '2027-03-01T00:00:15.000Z' }) as never);
    expect(v.runAtLocal).toBe('2027-02-01T09:00:30.125');
    const out = toJobInput({ ...v, name: 'renamed' });
    expect(out.input.schedule).toEqual({ kind: 'once', runAt: '2027-02-01T09:00:30.125Z', timezone: 'UTC' });
    expect(out.input.endAt).toBe('2027-03-01T00:00:15.000Z');
  });
});

describe('a half-typed time zone is named as the mistake, not the wall times read in it', () => {
  it('a once job and a window name schedule.timezone, and send no instant', () => {
    const once = toJobInput({ ...EMPTY_JOB_FORM, key: 'k', handler: 'builtin.noop', scheduleKind: 'once', timezone: 'America/New_Yo', runAtLocal: '2027-11-07T01:30' });
    expect(once.errors).toEqual({ 'schedule.timezone': 'Unknown time zone: America/New_Yo' });
    const windowed = toJobInput({ ...EMPTY_JOB_FORM, key: 'k', handler: 'builtin.noop', scheduleKind: 'interval', timezone: 'Europe/Ber', startAtLocal: '2027-01-01T00:00' });
    expect(windowed.errors).toEqual({ 'schedule.timezone': 'Unknown time zone: Europe/Ber' });
    expect(windowed.input.startAt).toBeNull();
    // an empty run-at is still the run-at's mistake
    expect(toJobInput({ ...EMPTY_JOB_FORM, key: 'k', scheduleKind: 'once', timezone: 'America/New_Yo' }).errors).toEqual({ 'schedule.runAt': 'Pick the date and time to run at' });
  });
});
