import { describe, expect, it } from 'vitest';
import { previewErrorText } from './schedule-preview-model';

describe('previewErrorText (job form fire preview)', () => {
  it('names the form field a 400 is about', () => {
    expect(previewErrorText({ message: 'Invalid query', fields: { cron: "'W' must be a single day such as 15W or LW, got 1-5W" } }, 400)).toBe(
      "Cron expression: 'W' must be a single day such as 15W or LW, got 1-5W",
    );
    expect(previewErrorText({ fields: { endAt: 'endAt must be after startAt' } }, 400)).toBe('End at: endAt must be after startAt');
  });

  it('does not name the field twice when the message already does', () => {
    expect(previewErrorText({ fields: { cron: 'Cron expression needs 5, 6 (with seconds) or 7 (with year) fields, got 4' } }, 400)).toBe(
      'Cron expression needs 5, 6 (with seconds) or 7 (with year) fields, got 4',
    );
    expect(previewErrorText({ fields: { tz: 'Unknown time zone: Mars/Olympus' } }, 400)).toBe('Unknown time zone: Mars/Olympus');
  });

  it('falls back to the message, then the status', () => {
    expect(previewErrorText({ message: 'Too many requests' }, 429)).toBe('Too many requests');
    expect(previewErrorText(null, 502)).toBe('Preview failed (502)');
  });
});
