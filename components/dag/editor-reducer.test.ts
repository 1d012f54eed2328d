import { describe, expect, it } from 'vitest';
import { editorReducer, initEditor, snapshot, isDirty, newStepAnchor, stepDomAttributes, stepToData, toFlow, UNDO_LIMIT, type EditorAction, type EditorState, type StepNode } from './model';

const start = () =>
  initEditor(
    toFlow(
      [
        { key: 'a', handler: 'builtin.echo', position: { x: 0, y: 0 } },
        { key: 'b', handler: 'builtin.echo', position: { x: 300, y: 0 } },
        { key: 'c', handler: 'builtin.echo', position: { x: 600, y: 0 } },
      ],
      [{ from: 'a', to: 'b', type: 'hard' }],
    ),
  );
const run = (s: EditorState, ...actions: EditorAction[]) => actions.reduce(editorReducer, s);
const id = (s: EditorState, key: string) => s.doc.nodes.find((n) => n.data.key === key)!.id;
const pos = (s: EditorState, key: string) => s.doc.nodes.find((n) => n.data.key === key)!.position;
const keys = (s: EditorState) => s.doc.nodes.map((n) => n.data.key);
const edgePairs = (s: EditorState) => s.doc.edges.map((e) => `${e.source}>${e.target}`);
const drag = (nodeId: string, points: [number, number][]): EditorAction[] => [
  ...points.map(([x, y]) => ({ type: 'nodeChanges', changes: [{ type: 'position', id: nodeId, position: { x, y }, dragging: true }] }) as EditorAction),
  { type: 'nodeChanges', changes: [{ type: 'position', id: nodeId, dragging: false }] },
];

describe('editorReducer: undo / redo', () => {
  it('a whole drag is one undo step, and undo makes the editor clean again', () => {
    const s0 = start();
    const a = id(s0, 'a');
    const s1 = run(s0, ...drag(a, [[10, 5], [40, 20], [80, 50]]));
    expect(pos(s1, 'a')).toEqual({ x: 80, y: 50 });
    expect(isDirty(s1)).toBe(true);
    expect(s1.past).toHaveLength(1);
    const s2 = run(s1, { type: 'undo' });
    expect(pos(s2, 'a')).toEqual({ x: 0, y: 0 });
    expect(isDirty(s2)).toBe(false);
    const s3 = run(s2, { type: 'redo' });
    expect(pos(s3, 'a')).toEqual({ x: 80, y: 50 });
    expect(isDirty(s3)).toBe(true);
  });

  it('two drags are two undo steps', () => {
    const s0 = start();
    const s1 = run(s0, ...drag(id(s0, 'a'), [[10, 0]]), ...drag(id(s0, 'b'), [[300, 90]]));
    expect(s1.past).toHaveLength(2);
    const s2 = run(s1, { type: 'undo' });
    expect(pos(s2, 'a')).toEqual({ x: 10, y: 0 });
    expect(pos(s2, 'b')).toEqual({ x: 300, y: 0 });
  });

  it('typing in one field is one undo step; another field or step starts a new one', () => {
    const s0 = start();
    const a = id(s0, 'a');
    const s1 = run(s0, { type: 'updateStep', id: a, patch: { name: 'E' } }, { type: 'updateStep', id: a, patch: { name: 'Ex' } }, { type: 'updateStep', id: a, patch: { name: 'Ext' } });
    expect(s1.past).toHaveLength(1);
    const s2 = run(s1, { type: 'updateStep', id: a, patch: { payloadText: '{"x":1}' } });
    expect(s2.past).toHaveLength(2);
    const s3 = run(s2, { type: 'undo' }, { type: 'undo' });
    expect(s3.doc.nodes.find((n) => n.id === a)!.data.name).toBe('');
    expect(isDirty(s3)).toBe(false);
  });

  it('the card growing while the operator types (measured sizes) does not split the typing into several steps', () => {
    const s0 = start();
    const a = id(s0, 'a');
    const grow = (w: number): EditorAction => ({ type: 'nodeChanges', changes: [{ type: 'dimensions', id: a, dimensions: { width: w, height: 60 } }] });
    const s1 = run(s0, { type: 'updateStep', id: a, patch: { name: 'C' } }, grow(190), { type: 'updateStep', id: a, patch: { name: 'Cl' } }, grow(200), { type: 'updateStep', id: a, patch: { name: 'Cle' } });
    expect(s1.past).toHaveLength(1);
    expect(run(s1, { type: 'undo' }).doc.nodes[0]!.data.name).toBe('');
  });

  it('renaming a step key moves its test id with it, and undo moves it back', () => {
    const s0 = start();
    const a = id(s0, 'a');
    const s1 = run(s0, { type: 'updateStep', id: a, patch: { key: 'extract' } });
    expect(s1.doc.nodes[0]!.domAttributes).toEqual(stepDomAttributes('extract'));
    expect(run(s1, { type: 'undo' }).doc.nodes[0]!.domAttributes).toEqual(stepDomAttributes('a'));
  });

  it('a click on a card (position reported, nothing moved) is not an edit', () => {
    const s0 = start();
    const a = id(s0, 'a');
    const s1 = run(
      s0,
      { type: 'nodeChanges', changes: [{ type: 'position', id: a, position: { x: 0, y: 0 }, dragging: true }] },
      { type: 'nodeChanges', changes: [{ type: 'position', id: a, dragging: false }] },
    );
    expect(s1.past).toHaveLength(0);
  });

  it('selection and measured sizes are not edits', () => {
    const s0 = start();
    const a = id(s0, 'a');
    const s1 = run(
      s0,
      { type: 'nodeChanges', changes: [{ type: 'select', id: a, selected: true }] },
      { type: 'nodeChanges', changes: [{ type: 'dimensions', id: a, dimensions: { width: 180, height: 60 } }] },
      { type: 'edgeChanges', changes: [{ type: 'select', id: s0.doc.edges[0]!.id, selected: true }] },
    );
    expect(s1.past).toHaveLength(0);
    expect(isDirty(s1)).toBe(false);
  });

  it('deleting a step removes its edges in the same undo step (React Flow then reports those edges removed too)', () => {
    const s0 = start();
    const [a, b] = [id(s0, 'a'), id(s0, 'b')];
    const s1 = run(s0, { type: 'nodeChanges', changes: [{ type: 'remove', id: b }] }, { type: 'edgeChanges', changes: [{ type: 'remove', id: s0.doc.edges[0]!.id }] });
    expect(keys(s1)).toEqual(['a', 'c']);
    expect(s1.doc.edges).toEqual([]);
    expect(s1.past).toHaveLength(1);
    const s2 = run(s1, { type: 'undo' });
    expect(keys(s2)).toEqual(['a', 'b', 'c']);
    expect(edgePairs(s2)).toEqual([`${a}>${b}`]);
  });

  it('connect, edge type, edge delete, layout, add and delete step are each undoable', () => {
    const s0 = start();
    const [a, b, c] = [id(s0, 'a'), id(s0, 'b'), id(s0, 'c')];
    const node: StepNode = { id: 'n1', type: 'step', position: { x: 0, y: 200 }, data: stepToData({ key: 'd', handler: 'builtin.noop' }), domAttributes: stepDomAttributes('d') };
    const steps: EditorAction[] = [
      { type: 'connect', source: b, target: c, edgeType: 'soft' },
      { type: 'setEdgeType', id: `e:${b}->${c}`, edgeType: 'on_failure' },
      { type: 'deleteEdge', id: `e:${a}->${b}` },
      { type: 'layout', positions: { [a]: { x: 5, y: 5 } } },
      { type: 'addStep', node },
      { type: 'deleteStep', id: c },
    ];
    let s = s0;
    const history: string[] = [];
    for (const act of steps) {
      history.push(JSON.stringify(s.doc));
      s = editorReducer(s, act);
    }
    expect(s.past).toHaveLength(steps.length);
    for (let i = steps.length - 1; i >= 0; i--) {
      s = editorReducer(s, { type: 'undo' });
      expect(JSON.stringify(s.doc)).toBe(history[i]);
    }
    expect(isDirty(s)).toBe(false);
    expect(editorReducer(s, { type: 'undo' })).toBe(s);
  });

  it('a new edit after undo drops the redo stack', () => {
    const s0 = start();
    const s1 = run(s0, { type: 'deleteStep', id: id(s0, 'c') }, { type: 'undo' });
    expect(s1.future).toHaveLength(1);
    const s2 = run(s1, { type: 'deleteStep', id: id(s0, 'b') });
    expect(s2.future).toHaveLength(0);
    expect(run(s2, { type: 'redo' })).toBe(s2);
  });

  it('Discard is undoable: Ctrl+Z brings the discarded work back', () => {
    const s0 = start();
    const s1 = run(s0, { type: 'deleteStep', id: id(s0, 'c') });
    const s2 = run(s1, { type: 'discard', doc: s0.doc });
    expect(keys(s2)).toEqual(['a', 'b', 'c']);
    expect(isDirty(s2)).toBe(false);
    expect(keys(run(s2, { type: 'undo' }))).toEqual(['a', 'b']);
  });

  it('a cycle is refused by the reducer too', () => {
    const s0 = start();
    expect(run(s0, { type: 'connect', source: id(s0, 'b'), target: id(s0, 'a'), edgeType: 'hard' })).toBe(s0);
  });

  it('keeps at most UNDO_LIMIT steps', () => {
    let s = start();
    const a = id(s, 'a');
    for (let i = 0; i < UNDO_LIMIT + 20; i++) s = run(s, ...drag(a, [[i, i]]));
    expect(s.past).toHaveLength(UNDO_LIMIT);
  });

  it('saved moves the baseline; load resets history', () => {
    const s0 = start();
    const s1 = run(s0, { type: 'deleteStep', id: id(s0, 'c') });
    const s2 = run(s1, { type: 'saved', snapshot: snapshot(s1.doc.nodes, s1.doc.edges) });
    expect(isDirty(s2)).toBe(false);
    expect(isDirty(run(s2, { type: 'undo' }))).toBe(true);
    const s3 = run(s2, { type: 'load', doc: s0.doc });
    expect(s3.past).toHaveLength(0);
    expect(isDirty(s3)).toBe(false);
  });

  it('editing a field clears the server error of that field only', () => {
    const s0 = start();
    const a = id(s0, 'a');
    const s1 = run(s0, { type: 'serverErrors', errors: new Map([[a, { key: 'taken', payload: 'bad' }]]) });
    const s2 = run(s1, { type: 'updateStep', id: a, patch: { payloadText: '{}' } });
    expect(s2.serverErrors.get(a)).toEqual({ key: 'taken' });
  });
});

describe('newStepAnchor', () => {
  it('right of the selected step, same row', () => {
    expect(newStepAnchor({ x: 100, y: 40, width: 200, height: 64 }, { x: 0, y: 0 }, { width: 200, height: 64 })).toEqual({ x: 364, y: 40 });
  });
  it('centre of the view without a selection', () => {
    expect(newStepAnchor(null, { x: 500, y: 300 }, { width: 200, height: 64 })).toEqual({ x: 400, y: 268 });
  });
});
