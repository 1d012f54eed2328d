import { describe, expect, it } from 'vitest';
import { ctrlCStops, stopBeginsLine } from './stack-lines.ts';

const all = { worker: true, console: true, embeddedDatabase: true };

describe('start-up and stop lines name only what runs', () => {
  it('console, worker and embedded database: the worker drains first', () => {
    expect(ctrlCStops(all)).toBe('Ctrl-C stops the worker, the console and the embedded database');
    expect(stopBeginsLine('drain', 'SIGINT', all)).toBe('stopping (SIGINT): the worker finishes its running tasks first, then the console and the embedded database stop…');
    expect(stopBeginsLine('now', 'SIGINT', all)).toBe('stopping now (SIGINT): the worker, the console and the embedded database…');
  });

  it('TICKFLOW_START_WORKER=0: no word of a worker', () => {
    const consoleOnly = { worker: false, console: true, embeddedDatabase: true };
    expect(ctrlCStops(consoleOnly)).toBe('Ctrl-C stops the console and the embedded database');
    expect(stopBeginsLine('drain', 'SIGINT', consoleOnly)).toBe('stopping (SIGINT): the console and the embedded database…');
    expect(stopBeginsLine('drain', 'SIGTERM', { ...consoleOnly, embeddedDatabase: false })).toBe('stopping (SIGTERM): the console…');
  });

  it('an external database is not named; a worker alone with the console', () => {
    const external = { worker: true, console: true, embeddedDatabase: false };
    expect(ctrlCStops(external)).toBe('Ctrl-C stops the worker and the console');
    expect(stopBeginsLine('drain', 'SIGTERM', external)).toBe('stopping (SIGTERM): the worker finishes its running tasks first, then the console stops…');
  });

  it('a stop during start-up names what has started so far', () => {
    expect(stopBeginsLine('drain', 'SIGINT', { build: true, worker: false, console: false, embeddedDatabase: true })).toBe(
      'stopping (SIGINT): the console build and the embedded database…',
    );
    expect(stopBeginsLine('drain', 'SIGINT', { worker: false, console: false, embeddedDatabase: false })).toBe('stopping (SIGINT)…');
  });
});
