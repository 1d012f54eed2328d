import { describe, expect, it } from 'vitest';
import { PositiveIntParam, queryInt } from './schemas.ts';
import { JobGridQuery } from './view-schemas.ts';
import { TaskLogLinesQuery } from '../task-logs/queries.ts';

describe('whole numbers in queries (lib/api/schemas.ts queryInt)', () => {
  const limit = queryInt(1, 200);

  it('reads a number\'s own decimal writing, and numbers', () => {
    expect(limit.parse('16')).toBe(16);
    expect(limit.parse('200')).toBe(200);
    expect(limit.parse(5)).toBe(5);
  });

  it('refuses digits written another way (a leading zero, a sign, spaces), naming the writing to use', () => {
    for (const [v, n] of [['07', 7], ['+7', 7], [' 200 ', 200], ['0016', 16]] as const) {
      const r = limit.safeParse(v);
      expect(r.success, v).toBe(false);
      expect(r.error?.issues[0]?.message, v).toBe(`Must be written ${n}: plain decimal digits, without a sign, spaces or leading zeros`);
    }
    expect(PositiveIntParam.safeParse('01').error?.issues[0]?.message).toBe('Must be written 1: plain decimal digits, without a sign, spaces or leading zeros');
    expect(PositiveIntParam.safeParse('1').data).toBe(1);
    expect(PositiveIntParam.safeParse('1.0').success).toBe(false);
  });

  it('refuses what Number() would also read: hex, exponents, decimals, Infinity, empty', () => {
    for (const v of ['0x10', '1e2', '16.0', '16.5', 'Infinity', '', ' ', '1_0', '0b11', '٣']) {
      const r = limit.safeParse(v);
      expect(r.success, v).toBe(false);
      expect(r.error?.issues[0]?.message, v).toBe('Must be a whole number from 1 to 200');
    }
    expect(limit.safeParse('0').success).toBe(false);
    expect(limit.safeParse('201').success).toBe(false);
  });

  it('is the reader of every query schema: REST lists, the console views and the task log routes', () => {
    expect(JobGridQuery.safeParse({ limit: '1e2' }).success).toBe(false);
    expect(JobGridQuery.safeParse({ limit: '25' }).success).toBe(true);
    expect(TaskLogLinesQuery.safeParse({ limit: '0x10' }).success).toBe(false);
    expect(TaskLogLinesQuery.safeParse({ afterSeq: '0' }).data).toEqual({ afterSeq: 0 });
  });
});
