import { describe, expect, it } from 'vitest';
import { createStopRequests, type StopMode } from './stop-requests.ts';

function harness(duplicateMs = 250) {
  let t = 1_000;
  const calls: [StopMode, string][] = [];
  const request = createStopRequests({ duplicateMs, now: () => t, onStop: (mode, source) => calls.push([mode, source]) });
  return { request, calls, advance: (ms: number) => { t += ms; } };
}

describe('createStopRequests', () => {
  it('the first signal asks for an orderly stop', () => {
    const h = harness();
    h.request('SIGTERM');
    expect(h.calls).toEqual([['drain', 'SIGTERM']]);
  });

  it('a repeat within the window is the same delivery (Ctrl-C to the group plus npm forwarding it)', () => {
    const h = harness();
    h.request('SIGINT');
    h.advance(5);
    h.request('SIGINT');
    h.advance(200);
    h.request('SIGTERM');
    expect(h.calls).toEqual([['drain', 'SIGINT']]);
  });

  it('a signal after the window stops now, once', () => {
    const h = harness();
    h.request('SIGTERM');
    h.advance(250);
    h.request('SIGINT');
    h.advance(1000);
    h.request('SIGTERM');
    expect(h.calls).toEqual([['drain', 'SIGTERM'], ['now', 'SIGINT']]);
  });

  it("an explicit 'now' skips the window, also as the first request", () => {
    const a = harness();
    a.request('SIGTERM');
    a.request('parent', 'now');
    expect(a.calls).toEqual([['drain', 'SIGTERM'], ['now', 'parent']]);
    const b = harness();
    b.request('parent', 'now');
    b.advance(10_000);
    b.request('SIGTERM');
    expect(b.calls).toEqual([['now', 'parent']]);
  });
});
