/** What the jobs list shows for a job's handlers: one of them, how many more, and the full list for the tooltip. */
export type HandlerSummary = { first: string; more: number; steps: number; title: string };

/**
 * The jobs list's Handler cell (`handlers`: the job's distinct step handlers, as lib/jobs JobListItem lists
 * them; `stepCount`: its steps): the first handler, the number of other handlers (`+2 more`), and a tooltip
 * naming every handler and, for a job of several steps, how many steps it has.
 */
export function handlerSummary(handlers: readonly string[], stepCount: number): HandlerSummary {
  const steps = Math.max(stepCount, handlers.length);
  const list = handlers.join(', ');
  return {
    first: handlers[0] ?? '',
    more: Math.max(0, handlers.length - 1),
    steps,
    title: steps > 1 ? `${steps} steps: ${list}` : list,
  };
}
