import { describe, expect, it } from 'vitest';
import { TurnBatch } from './turn-batch.ts';

const turn = () => new Promise((r) => setImmediate(r));

describe('TurnBatch', () => {
  it('sends what was added in one turn of the event loop in one call, and splits above max', async () => {
    const sent: number[][] = [];
    const b = new TurnBatch<number>(3, async (items) => {
      sent.push(items);
    });
    for (let i = 1; i <= 5; i++) b.add(i);
    expect(sent).toEqual([]); // nothing before the turn ends
    await turn();
    expect(sent).toEqual([[1, 2, 3]]);
    await turn();
    expect(sent).toEqual([[1, 2, 3], [4, 5]]);
    b.add(6);
    await turn();
    expect(sent).toEqual([[1, 2, 3], [4, 5], [6]]);
  });

  it('a rejected send does not stop later batches', async () => {
    const sent: number[][] = [];
    const b = new TurnBatch<number>(10, async (items) => {
      sent.push(items);
      if (items[0] === 1) throw new Error('down');
    });
    b.add(1);
    await turn();
    b.add(2);
    await turn();
    expect(sent).toEqual([[1], [2]]);
  });
});
