/**
 * Request bodies of the recovery actions (docs/recovery.md), shared by REST and
 * the console's server actions. Unknown fields are refused by name.
 */
import { z } from 'zod';
import { Instant, str } from './schemas.ts';

/** Most slots one backfill may create (a larger range is a 400 at `to`). */
export const BACKFILL_MAX_SLOTS = 1000;

/** POST /jobs/:id/backfill[/preview]: a past range of nominal slots, both ends inclusive (UTC instants). */
export const BackfillInput = z.strictObject({
  from: Instant,
  to: Instant,
  reason: str().trim().max(1000).optional(),
});
export type BackfillInput = z.output<typeof BackfillInput>;

/** POST /tasks/:id/mark-success: why the failure is acceptable (required: it is the audit record). */
export const MarkSuccessInput = z.strictObject({
  reason: str().trim().min(1, 'A reason is required').max(1000),
});

/** POST /tasks/:id/clear: an optional reason. */
export const ClearTaskInput = z.strictObject({
  reason: str().trim().max(1000).optional(),
});
