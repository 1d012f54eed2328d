import { describe, expect, it } from 'vitest';
import { slotWindowSql } from './completion-items.ts';

const d = (s: string) => new Date(s);

describe('slotWindowSql: the UTC weeks of a batch\'s slots', () => {
  it('one week, Monday to Monday, whatever the host zone', () => {
    const w = slotWindowSql([{ scheduledFor: d('2027-02-10T12:00:00.000Z') }, { scheduledFor: d('2027-02-14T23:59:59.999Z') }]);
    expect(w('t.scheduled_for')).toBe(
      "(t.scheduled_for >= '2027-02-08T00:00:00.000Z'::timestamptz AND t.scheduled_for < '2027-02-15T00:00:00.000Z'::timestamptz)");
  });

  it('a batch straddling a Monday spans two weeks', () => {
    const w = slotWindowSql([{ scheduledFor: d('2027-02-08T00:00:00.000Z') }, { scheduledFor: d('2027-02-07T23:59:59.999Z') }]);
    expect(w('c')).toBe("(c >= '2027-02-01T00:00:00.000Z'::timestamptz AND c < '2027-02-15T00:00:00.000Z'::timestamptz)");
  });

  it('every week when a slot is unknown, the batch is empty, or the slots span more than two weeks', () => {
    expect(slotWindowSql([{ scheduledFor: d('2027-02-08T00:00:00.000Z') }, {}])('c')).toBe('true');
    expect(slotWindowSql([{ scheduledFor: null }])('c')).toBe('true');
    expect(slotWindowSql([{ scheduledFor: d('not a date') }])('c')).toBe('true');
    expect(slotWindowSql([])('c')).toBe('true');
    expect(slotWindowSql([{ scheduledFor: d('2027-02-01T00:00:00.000Z') }, { scheduledFor: d('2027-02-15T00:00:00.000Z') }])('c')).toBe('true');
  });
});
