import { describe, expect, it } from 'vitest';
import { taskLogArguments } from './task-log-arguments.ts';

describe('taskLogArguments (worker/task-log-arguments.ts)', () => {
  it('keeps Tickflow\'s order (text, fields?) as it is', () => {
    expect(taskLogArguments('fetching orders', { since: '2026-01-01' })).toEqual({ text: 'fetching orders', fields: { since: '2026-01-01' } });
    expect(taskLogArguments('no fields')).toEqual({ text: 'no fields' });
    const err = new Error('x');
    expect(taskLogArguments('read failed', err)).toEqual({ text: 'read failed', fields: err });
  });

  it('reads pino\'s order (fields, text?) and (error, text?) as the same line', () => {
    expect(taskLogArguments({ orderId: 42 }, 'charged')).toEqual({ text: 'charged', fields: { orderId: 42 } });
    expect(taskLogArguments({ orderId: 42 })).toEqual({ text: '', fields: { orderId: 42 } });
    const err = new TypeError('not a function');
    expect(taskLogArguments(err, 'call failed')).toEqual({ text: 'call failed', fields: { err } });
    expect(taskLogArguments(err)).toEqual({ text: 'not a function', fields: { err } });
  });

  it('writes other values as text, keeps non-object fields as { value }, and never throws', () => {
    expect(taskLogArguments(42)).toEqual({ text: '42' });
    expect(taskLogArguments(undefined)).toEqual({ text: 'undefined' });
    expect(taskLogArguments('ids', [1, 2])).toEqual({ text: 'ids', fields: { value: [1, 2] } });
    expect(taskLogArguments('count', 3)).toEqual({ text: 'count', fields: { value: 3 } });
    const hostile = Object.assign(() => 1, { toString: () => { throw new Error('no'); } });
    expect(taskLogArguments(hostile)).toEqual({ text: '(a value that cannot be written as text)' });
    expect(taskLogArguments([1, 2] as unknown)).toEqual({ text: '1,2' });
    const trap = Object.defineProperty(new Error('x'), 'message', { get: () => { throw new Error('no'); } });
    expect(taskLogArguments(trap)).toEqual({ text: '(a value that cannot be written as text)' });
  });
});
