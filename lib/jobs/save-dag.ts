import { inTransaction, LONG_TRANSACTION_TIMEOUT_MS, type Db } from '../db.ts';
import { withPositions } from './job-input.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { SaveDagInput } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import type { JobView } from './job-view.ts';
import { lockJob, mapDbError } from './store.ts';
import { applyJobChanges, assertExpectedVersion } from './update-job.ts';

/**
 * Saves a job's whole DAG (steps with positions, edges) from the editor as a new
 * version (change_type `update`, reason defaults to "DAG saved"). Validated with
 * lib/dag validateDag (cycle named). `expectedVersion` is required: the
 * optimistic lock (409 when stale), as for PATCH. An identical graph writes nothing;
 * a graph whose steps only moved stores their positions without a new version
 * (layout is not configuration: layout-rule.ts, docs/console.md "Versions and layout").
 * @throws DomainError validation (400 naming the field) / forbidden / not_found / conflict (409).
 */
export async function saveDag(db: Db, jobId: string, rawInput: unknown, actor: Actor, now = new Date()): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  const input = parseOrThrow(SaveDagInput, rawInput);
  // laid out before the job row is locked: dagre takes seconds on the largest graphs
  const steps = withPositions(input.steps, input.edges);
  try {
    return await inTransaction(db, async (tx) => {
      const job = await lockJob(tx, jobId);
      await assertExpectedVersion(tx, job, input.expectedVersion);
      return applyJobChanges(tx, job, { steps, edges: input.edges }, actor, now, 'update', input.reason ?? 'DAG saved');
    }, { timeoutMs: LONG_TRANSACTION_TIMEOUT_MS });
  } catch (e) {
    mapDbError(e);
  }
}
