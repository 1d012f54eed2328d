import { describe, expect, it } from 'vitest';
import { runAlarmDelayNote } from './run-alarm-delay';

describe('runAlarmDelayNote (the Alarms page description)', () => {
  it('says how long after a run ends its alarm shows up', () => {
    expect(runAlarmDelayNote(45)).toBe("A run's alarm shows here about 45 s after the run ends (the scan waits that long so that no run is missed).");
    expect(runAlarmDelayNote(120)).toContain('about 2 min after');
  });
  it('says nothing without a lag', () => {
    expect(runAlarmDelayNote(0)).toBe('');
  });
});
