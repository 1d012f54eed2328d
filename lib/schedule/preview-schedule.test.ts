import { describe, expect, it } from 'vitest';
import { previewSchedule } from './preview-schedule';

const now = new Date('2026-03-07T00:00:00Z');

describe('previewSchedule (the REST preview and the job form\'s action)', () => {
  it('answers a cron query given as strings, in its zone, from `now` by default', () => {
    expect(previewSchedule({ cron: '0 2 * * *', tz: 'America/New_York', count: '3' }, now)).toEqual({
      cron: '0 2 * * *',
      timezone: 'America/New_York',
      fireTimes: ['2026-03-07T07:00:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-09T06:00:00.000Z'],
    });
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
