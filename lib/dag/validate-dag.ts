// The DAG rules a job must satisfy before it is saved (docs/design.md §3–4).
// Used by the shared zod schema in lib/api (server) and by the editor before calling onSave (client),
// so both doors refuse the same graphs with the same messages.
import { findCycle, formatCycle, topologicalOrder } from './graph';
import { isDepType, STEP_KEY_RE, type DagError, type DagStepRef, type DagValidation, type DepType } from './types';

/** Input of {@link validateDag}: step keys and typed edges, in the order the caller will report paths against. */
export type ValidateDagInput = {
  steps: readonly DagStepRef[];
  edges: readonly { from: string; to: string; type: DepType }[];
};

/**
 * Validates a job's DAG.
 *
 * Rules, each reported with a dotted `path` into the input:
 * - at least one step (`steps`);
 * - step keys match {@link STEP_KEY_RE} and are unique (`steps.<i>.key`, reported at the later duplicate);
 * - edge type is hard | soft | on_failure (`edges.<i>.type`);
 * - edge endpoints name existing steps (`edges.<i>.from` / `edges.<i>.to`);
 * - no self edge (`edges.<i>.to`); no duplicate edge with the same from/to (`edges.<i>`, at the later one);
 * - no cycle (`edges`, message names the cycle in order: "Cycle: a -> b -> c -> a").
 *
 * Returns `{ ok: true, order }` with a topological order of the step keys (parents first, ties in step order) or
 * `{ ok: false, errors }` with every problem found (the cycle check runs on the edges that passed the edge checks).
 * O((steps + edges) log steps); iterative, so 10,000 steps / 30,000 edges validate in milliseconds.
 */
export function validateDag(input: ValidateDagInput): DagValidation {
  const errors: DagError[] = [];
  const { steps, edges } = input;

  if (steps.length === 0) errors.push({ path: 'steps', message: 'A job needs at least one step' });

  const firstIndex = new Map<string, number>();
  steps.forEach((step, i) => {
    const key = step.key;
    if (typeof key !== 'string' || !STEP_KEY_RE.test(key)) {
      errors.push({
        path: `steps.${i}.key`,
        message: 'Step key must be 1-64 characters: letters, digits, ".", "_" or "-", starting with a letter or digit',
      });
      return;
    }
    const seen = firstIndex.get(key);
    if (seen !== undefined) {
      errors.push({ path: `steps.${i}.key`, message: `Duplicate step key "${key}" (already used by steps.${seen})` });
      return;
    }
    firstIndex.set(key, i);
  });

  const goodEdges: { from: string; to: string }[] = [];
  // Duplicate detection on numeric pair keys (fromIndex * stepCount + toIndex): no string building per edge,
  // which matters at 30,000 edges. Edges with an unknown endpoint are already reported and skip this check.
  const seenEdge = new Map<number, number>();
  const width = steps.length;
  edges.forEach((edge, i) => {
    let ok = true;
    if (!isDepType(edge.type)) {
      errors.push({ path: `edges.${i}.type`, message: 'Edge type must be hard, soft or on_failure' });
      ok = false;
    }
    const a = firstIndex.get(edge.from);
    const b = firstIndex.get(edge.to);
    if (a === undefined) {
      errors.push({ path: `edges.${i}.from`, message: `Unknown step "${edge.from}"` });
      ok = false;
    }
    if (b === undefined) {
      errors.push({ path: `edges.${i}.to`, message: `Unknown step "${edge.to}"` });
      ok = false;
    }
    if (edge.from === edge.to) {
      errors.push({ path: `edges.${i}.to`, message: `A step cannot depend on itself (${edge.from} -> ${edge.to})` });
      ok = false;
    }
    if (a !== undefined && b !== undefined) {
      const pair = a * width + b;
      const dup = seenEdge.get(pair);
      if (dup !== undefined) {
        errors.push({ path: `edges.${i}`, message: `Duplicate edge ${edge.from} -> ${edge.to} (already edges.${dup})` });
        ok = false;
      } else {
        seenEdge.set(pair, i);
      }
    }
    if (ok) goodEdges.push({ from: edge.from, to: edge.to });
  });

  const keys = [...firstIndex.keys()];
  // Kahn's order first: it succeeds for every valid DAG, so the DFS cycle search only runs when there is a cycle.
  const order = topologicalOrder(keys, goodEdges);
  if (order === null) {
    const cycle = findCycle(keys, goodEdges);
    errors.push({ path: 'edges', message: `Cycle: ${formatCycle(cycle ?? [])}` });
  }

  if (errors.length > 0 || order === null) return { ok: false, errors };
  return { ok: true, order };
}
