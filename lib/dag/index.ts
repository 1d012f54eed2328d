// DAG rules shared by server and browser (docs/design.md §3–4): validation, cycle detection, topological order, layout.
// Pure: no DB, no React. The React Flow editor lives in components/dag.
export * from './types';
export { dagListOrder, findCycle, topologicalOrder, wouldCreateCycle, formatCycle } from './graph';
export { validateDag, type ValidateDagInput } from './validate-dag';
export { layoutDag, DEFAULT_NODE_WIDTH, DEFAULT_NODE_HEIGHT, type LayoutOptions } from './layout-dag';
