/**
 * Walks an error and what it wraps: drivers and Prisma nest the error that says what happened
 * (`cause`, Prisma's `meta`, the pg adapter's `driverAdapterError`), so a classification must look
 * through every layer, once each, and stop on a cycle.
 */

/** One layer of a wrapped error, as the classifiers read it. */
export type ErrorLayer = {
  digest?: unknown;
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  message?: unknown;
  originalMessage?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown; timeTaken?: unknown };
};

/**
 * The first answer `test` gives for `error` or a layer it wraps (breadth first through `cause`,
 * `meta` and `meta.driverAdapterError`, at most 20 layers), or null when no layer answers.
 * @param test a layer's answer, or null/undefined to look further
 */
export function findInErrorChain<T>(error: unknown, test: (layer: ErrorLayer) => T | null | undefined): T | null {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length && seen.size < 20) {
    const e = queue.shift();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    const layer = e as ErrorLayer;
    const answer = test(layer);
    if (answer !== null && answer !== undefined) return answer;
    queue.push(layer.cause, layer.meta, layer.meta?.driverAdapterError);
  }
  return null;
}
