import { describe, expect, it } from 'vitest';
import { nextFiresCaption } from './next-fires-caption';

describe('nextFiresCaption', () => {
  it('counts fires and jobs in plain words, each noun in its number', () => {
    expect(nextFiresCaption(1, 1, false, 'UTC')).toBe('1 fire from 1 job in the next 24 h (axis in UTC)');
    expect(nextFiresCaption(24, 1, false, 'UTC')).toBe('24 fires from 1 job in the next 24 h (axis in UTC)');
    expect(nextFiresCaption(30, 3, false, 'Asia/Shanghai')).toBe('30 fires from 3 jobs in the next 24 h (axis in Asia/Shanghai)');
  });

  it('says "over" when a job\'s fires were capped', () => {
    expect(nextFiresCaption(96, 1, true, 'UTC')).toBe('Over 96 fires from 1 job in the next 24 h (axis in UTC)');
  });
});
