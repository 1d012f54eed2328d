import { describe, expect, it } from 'vitest';
import { handlerSummary } from './handler-summary';

describe('handlerSummary', () => {
  it('a one-step job: its handler, nothing more', () => {
    expect(handlerSummary(['shell'], 1)).toEqual({ first: 'shell', more: 0, steps: 1, title: 'shell' });
  });

  it('a job of several handlers: the first plus how many more, every handler in the title', () => {
    expect(handlerSummary(['builtin.noop', 'http', 'shell'], 4)).toEqual({ first: 'builtin.noop', more: 2, steps: 4, title: '4 steps: builtin.noop, http, shell' });
  });

  it('several steps of one handler: no "more", the step count in the title', () => {
    expect(handlerSummary(['http'], 3)).toEqual({ first: 'http', more: 0, steps: 3, title: '3 steps: http' });
  });

  it('a job without steps', () => {
    expect(handlerSummary([], 0)).toEqual({ first: '', more: 0, steps: 0, title: '' });
  });
});
