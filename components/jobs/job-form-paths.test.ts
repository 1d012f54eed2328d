import { describe, expect, it } from 'vitest';
import { errorSummary, fieldLabel, FORM_FIELDS, inFormOrder } from './job-form-paths';

describe('job form fields by error path', () => {
  it('names a field by its visible label, an alarm channel by its own, anything else by its path', () => {
    expect(fieldLabel('policy.timeoutSeconds')).toBe('Timeout (seconds)');
    expect(fieldLabel('schedule.runAt')).toBe('Run at');
    expect(fieldLabel('steps.0.handler')).toBe('Handler');
    expect(fieldLabel('alarms.channels.1.target')).toBe('Channel 2 target');
    expect(fieldLabel('steps.1.key')).toBe('steps.1.key');
    expect(fieldLabel('__proto__')).toBe('__proto__');
  });

  it('the summary of a refused save lists labels, once each, top to bottom as the form shows them', () => {
    expect(errorSummary({ 'policy.timeoutSeconds': 'Must be …', name: 'Name is required' })).toBe('Fix 2 fields: Name, Timeout (seconds)');
    expect(inFormOrder({ 'steps.1.key': 'a', 'policy.timeoutSeconds': 'b', payload: 'c', 'schedule.runAt': 'd' })).toEqual(['schedule.runAt', 'payload', 'policy.timeoutSeconds', 'steps.1.key']);
    expect(errorSummary({ handler: 'x', 'steps.0.handler': 'y' })).toBe('Fix this field: Handler');
    expect(errorSummary({ 'steps.1.key': 'Duplicate step key' })).toBe('Fix this field: steps.1.key');
    expect(errorSummary({})).toBeUndefined();
  });

  it('each control id belongs to one label', () => {
    const labelOf = new Map<string, string>();
    for (const { id, label } of Object.values(FORM_FIELDS)) {
      expect(labelOf.get(id) ?? label, id).toBe(label);
      labelOf.set(id, label);
    }
  });
});
