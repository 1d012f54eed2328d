import { describe, expect, it } from 'vitest';
import { runTextSegments } from './run-links.ts';

const A = '0c4f4a2e-7d1b-4c55-9a3e-5f0d2b9e8a11';
const B = '9e1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';

describe('runTextSegments', () => {
  it('finds the run ids an engine text names, and gives the text back whole', () => {
    const text = `withdrawn before its slot: a manual run ${A} by alice@example.com came first; the slot fires again when due`;
    const parts = runTextSegments(text);
    expect(parts).toEqual([
      { text: 'withdrawn before its slot: a manual run ' },
      { text: A, runId: A },
      { text: ' by alice@example.com came first; the slot fires again when due' },
    ]);
    expect(parts.map((p) => p.text).join('')).toBe(text);
    expect(runTextSegments(`queued: waiting for run ${B.toUpperCase()} (serial_execution)`)[1]).toEqual({ text: B.toUpperCase(), runId: B });
    expect(runTextSegments(`run ${A} re-opened, run ${B}`).filter((p) => 'runId' in p)).toHaveLength(2);
  });

  it('leaves other ids and texts alone', () => {
    expect(runTextSegments(`task ${A} failed`)).toEqual([{ text: `task ${A} failed` }]);
    expect(runTextSegments('main: boom')).toEqual([{ text: 'main: boom' }]);
    expect(runTextSegments('')).toEqual([]);
  });
});
