/**
 * Example handler: processes a list in batches and reports progress after each one.
 * Stops between batches when the attempt is aborted (timeout, cancel, worker stop).
 * Walkthrough: README "Write your own handler", docs/handlers.md.
 */
import { defineHandler, z } from 'tickflow/handlers';

export default defineHandler({
  name: 'examples.batch-sum',
  description: 'Sums a list of numbers in batches, reporting progress per batch',
  input: z.object({
    items: z.array(z.number()).min(1).max(100_000).describe('the numbers to add up'),
    batchSize: z.number().int().min(1).max(10_000).default(10).describe('numbers per batch'),
    delayMs: z.number().int().min(0).max(10_000).default(0).describe('pause after each batch (ms), to watch progress'),
  }),
  output: z.object({ sum: z.number(), count: z.number().int(), batches: z.number().int() }),
  timeoutSeconds: 600,
  async run(ctx) {
    const { items, batchSize, delayMs } = ctx.payload;
    const batches = Math.ceil(items.length / batchSize);
    let sum = 0;
    for (let b = 0; b < batches; b++) {
      ctx.signal.throwIfAborted();
      const batch = items.slice(b * batchSize, (b + 1) * batchSize);
      const part = batch.reduce((a, x) => a + x, 0);
      sum += part;
      ctx.log.info(`batch ${b + 1}/${batches}: ${batch.length} numbers, partial sum ${part}`);
      ctx.progress(Math.min(items.length, (b + 1) * batchSize), items.length, `batch ${b + 1} of ${batches}`);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    return { sum, count: items.length, batches };
  },
});
