import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { triggerJob } from '@/lib/jobs/trigger-job';

export const dynamic = 'force-dynamic';

/**
 * POST /api/v1/jobs/:id/trigger { payload? } -> 201 run (+ outcome: started|queued|skipped|covered);
 * { runs: [{ payload? }, …] } (≤ 1000) -> 201 { runs: [run + outcome, …] } in the same order, one transaction.
 */
export const POST = rest({ operation: 'jobs.trigger', params: IdParams, resource: 'job', status: 201 }, async ({ db, params, body, actor, now }) => {
  const r = await triggerJob(db, params.id, body, actor, { trigger: 'api' }, now);
  if ('runs' in r) return r;
  return { ...r.run, outcome: r.outcome };
});
