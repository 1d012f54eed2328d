import { describe, expect, it } from 'vitest';
import { taskLogNodeNote } from './run-view.ts';

describe('taskLogNodeNote: the worker reads once on the run page', () => {
  const node = 'host-a-4711-0a1b2c3d4e5f';
  it.each([
    ['a claim names its worker in the message', `claimed by ${node}`, node, null],
    ['a hand-back names it too', `handed back unstarted by ${node}: draining`, node, null],
    ['a presumed-dead hand-back', `handed back unstarted: worker ${node} presumed dead before it started the task (lease)`, node, null],
    ['a completion does not: the node is printed', 'succeeded', node, node],
    ['a longer id that only starts with the node is another node', `claimed by ${node}9`, node, node],
    ['an id inside a longer one is another node', 'claimed by w-10', 'w-1', 'w-1'],
    ['a row without a node', 'created', null, null],
  ] as const)('%s', (_name, message, nodeId, expected) => {
    expect(taskLogNodeNote({ message, nodeId })).toBe(expected);
  });
  it('an id with characters a regular expression reads specially is matched as written', () => {
    expect(taskLogNodeNote({ message: 'claimed by w.1+(x)', nodeId: 'w.1+(x)' })).toBeNull();
    expect(taskLogNodeNote({ message: 'claimed by wx1', nodeId: 'w.1' })).toBe('w.1');
  });
});
