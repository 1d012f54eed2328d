import { z } from 'zod';
import { rest } from '@/app/_lib/rest';
import { bulkJobs } from '@/lib/jobs/bulk-jobs';
import { fieldErrorsOf, parseOrThrow } from '@/lib/api/validation';
import { BulkJobsInput } from '@/lib/api/schemas';

export const dynamic = 'force-dynamic';

const Action = z.object({ action: z.enum(['pause', 'resume', 'delete'], { message: 'action must be pause, resume or delete' }) });

/** POST /api/v1/jobs/bulk { action: pause|resume|delete, ids: uuid[], reason? } -> { items } (one transaction; unknown fields are a 400) */
export const POST = rest({ operation: 'jobs.bulk' }, async ({ db, body, actor, now }) => {
  const { action: _action, ...rest } = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  // a bad action is refused in the same 400 as the body's other bad fields (README "Input rules"), not alone
  const { action } = parseOrThrow(Action, body, () => fieldErrorsOf(BulkJobsInput, rest));
  return { items: await bulkJobs(db, action, rest, actor, now) };
});
