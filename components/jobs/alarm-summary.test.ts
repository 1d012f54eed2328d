import { describe, expect, it } from 'vitest';
import { alarmTriggersText } from './alarm-summary';

const off = { onFailure: false, onTimeout: false, onDeadLetter: false, onSuccess: false, channels: [] };

describe('alarmTriggersText (job page, Alarms card)', () => {
  it('lists the outcomes that raise an alarm, in the form\'s order', () => {
    expect(alarmTriggersText({ ...off, onSuccess: true, onFailure: true, onDeadLetter: true })).toBe('failure, dead letter, success');
  });
  it('says so in words when none does, not "off" under a label that reads "On"', () => {
    expect(alarmTriggersText(off)).toBe('nothing: every alarm of this job is off');
  });
});
