import { describe, expect, it } from 'vitest';
import { neverFiresFields } from './never-fires-fields';
import { CreateJobInput } from './schemas';
import { parseOrThrow } from './validation';
import type { DomainError } from '../errors';

const now = new Date('2026-03-01T00:00:00Z');
const job = (over: Record<string, unknown>) => ({ key: 'k', name: 'n', schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'UTC' }, handler: 'builtin.echo', ...over });

describe('neverFiresFields', () => {
  it('names the field of a schedule that would never fire, at the given clock', () => {
    const once = job({ schedule: { kind: 'once', runAt: '2026-02-01T00:00:00Z' } });
    expect(neverFiresFields(once, now)).toEqual({ 'schedule.runAt': 'Is in the past: this job would never fire' });
    expect(neverFiresFields(once, new Date('2026-01-01T00:00:00Z'))).toEqual({});
    expect(neverFiresFields(job({ endAt: '2026-02-01T00:00:00Z' }), now)).toEqual({ endAt: 'Is in the past: this job would never fire' });
    expect(neverFiresFields(job({ schedule: { kind: 'cron', cron: '0 0 0 1 1 * 2025', timezone: 'UTC' } }), now)).toHaveProperty(['schedule.cron']);
  });

  it('says nothing when the schedule or window does not parse (the schema names it) or the job is manual', () => {
    expect(neverFiresFields(job({ schedule: { kind: 'once', runAt: 'yesterday' } }), now)).toEqual({});
    expect(neverFiresFields(job({ schedule: { kind: 'cron', cron: 'nope' } }), now)).toEqual({});
    expect(neverFiresFields(job({ endAt: 'soon' }), now)).toEqual({});
    expect(neverFiresFields(job({ schedule: { kind: 'manual' }, endAt: '2026-02-01T00:00:00Z' }), now)).toEqual({});
    expect(neverFiresFields(null, now)).toEqual({});
  });

  it('on an update: judges the schedule after the change, and only when the change touches it', () => {
    const base = { schedule: { kind: 'once', runAt: new Date('2026-02-01T00:00:00Z') }, startAt: null, endAt: null, staggerSeconds: 0 };
    // an exhausted once job may still be renamed, or saved with its schedule as it was
    expect(neverFiresFields({ name: 'x' }, now, base)).toEqual({});
    expect(neverFiresFields({ schedule: { kind: 'once', runAt: '2026-02-01T00:00:00Z' }, startAt: null }, now, base)).toEqual({});
    // a new window on the kept schedule is judged with it
    const cron = { schedule: { kind: 'cron', cron: '0 2 * * *', timezone: 'UTC' }, startAt: null, endAt: null, staggerSeconds: 0 };
    expect(neverFiresFields({ endAt: '2026-02-01T00:00:00Z' }, now, cron)).toEqual({ endAt: 'Is in the past: this job would never fire' });
    expect(neverFiresFields({ schedule: { kind: 'once', runAt: '2026-02-02T00:00:00Z' } }, now, cron)).toEqual({ 'schedule.runAt': 'Is in the past: this job would never fire' });
  });
});

describe('parseOrThrow with the never-fires rule', () => {
  it('reports it in the same 400 as the schema errors; the schema message wins on a shared field', () => {
    const raw = job({ name: '', schedule: { kind: 'once', runAt: '2026-02-01T00:00:00Z' }, policy: { timeoutSeconds: 0 } });
    let e: DomainError | undefined;
    try {
      parseOrThrow(CreateJobInput, raw, () => neverFiresFields(raw, now));
    } catch (x) {
      e = x as DomainError;
    }
    expect(e?.code).toBe('validation');
    expect(e?.fields).toEqual({
      name: 'Name is required',
      'policy.timeoutSeconds': 'Must be a whole number from 1 to 604800',
      'schedule.runAt': 'Is in the past: this job would never fire',
    });
    const window = job({ startAt: '2026-02-02T00:00:00Z', endAt: '2026-02-01T00:00:00Z' });
    expect(() => parseOrThrow(CreateJobInput, window, () => neverFiresFields(window, now))).toThrow(expect.objectContaining({ fields: { endAt: 'endAt must be after startAt' } }));
  });

  it('a valid input parses without asking the rule (the save applies it: assertCanFire)', () => {
    const raw = job({ schedule: { kind: 'once', runAt: '2026-02-01T00:00:00Z' } });
    expect(parseOrThrow(CreateJobInput, raw, () => ({ x: 'asked' }))).toMatchObject({ key: 'k' });
  });
});
