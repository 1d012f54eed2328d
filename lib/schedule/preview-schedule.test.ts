import { describe, expect, it } from 'vitest';
import { previewSchedule } from './preview-schedule';
import { staggerOffsetMs } from './stagger';

const now = new Date('2026-03-07T00:00:00Z');

describe('previewSchedule (the REST preview and the job form\'s action)', () => {
  it('answers a cron query given as strings, in its zone, from `now` by default', () => {
    expect(previewSchedule({ cron: '0 2 * * *', tz: 'America/New_York', count: '3' }, now)).toEqual({
      cron: '0 2 * * *',
      timezone: 'America/New_York',
      fireTimes: ['2026-03-07T07:00:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:00:00.000Z'],
    });
  });

  it('for a saved job with a stagger, lists its due instants (slot + its offset), the slots due after `from`', () => {
    const jobId = '6f1c7c2e-2b1e-4a55-9d0e-0d7f5b1f4b11';
    const offset = staggerOffsetMs(jobId, 3000);
    // 04:30Z is 10:00 in Asia/Kolkata: the 10:00 slot is still to come, due at 04:30Z + offset
    const from = '2027-02-01T04:30:00.000Z';
    const got = previewSchedule({ cron: '0 * * * *', tz: 'Asia/Kolkata', from, count: '3', jobId, staggerSeconds: '3000' }, now).fireTimes;
    expect(got).toEqual([0, 1, 2].map((h) => new Date(Date.parse(from) + h * 3_600_000 + offset).toISOString()));
    // without a job, the slots (strictly after `from`)
    expect(previewSchedule({ cron: '0 * * * *', tz: 'Asia/Kolkata', from, count: '1' }, now).fireTimes).toEqual(['2027-02-01T05:30:00.000Z']);
    // a stagger needs the id its offset is hashed from
    expect(() => previewSchedule({ cron: '0 * * * *', staggerSeconds: '60' }, now)).toThrow(expect.objectContaining({ fields: { jobId: expect.any(String) } }));
  });

  it('anchors an interval at the window\'s start', () => {
    expect(previewSchedule({ intervalSeconds: '3600', startAt: '2026-03-07T00:20:00Z', count: '2' }, now).fireTimes).toEqual(['2026-03-07T00:20:00.000Z', '2026-03-07T01:20:00.000Z']);
  });

  it('refuses a bad input with a validation error naming its field, the message the form shows', () => {
    for (const [query, field] of [
      [{ cron: '0 2 * *' }, 'cron'],
      [{ cron: '0 2 * * *', tz: 'Europe/Ber' }, 'tz'],
      [{ intervalSeconds: '0' }, 'intervalSeconds'],
      [{}, 'cron'],
    ] as const) {
      let thrown: unknown;
      try {
        previewSchedule(query, now);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, JSON.stringify(query)).toMatchObject({ name: 'DomainError', code: 'validation', status: 400 });
      expect(Object.keys((thrown as { fields: Record<string, string> }).fields), JSON.stringify(query)).toContain(field);
    }
  });
});
