import { inTransaction, LONG_TRANSACTION_TIMEOUT_MS, type Db } from '../db.ts';
import { DomainError, isDomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { UpdateJobInput } from '../api/schemas.ts';
import type { JobView } from './job-view.ts';
import { isUniqueViolation, liveKeyHolder, lockJob, mapDbError } from './store.ts';
import { applyJobChanges, assertExpectedVersion } from './update-job.ts';
import { nothingToRollBack, sameConfiguration } from './rollback-rule.ts';

/**
 * Rolls a job's configuration back to version `version`'s snapshot, as a NEW
 * version (change_type `rollback`, reason defaults to "Rollback to vN").
 * Configuration only: status (paused/active), deletion and the layout are left as they are (a step
 * the job still has keeps its place on the canvas; one brought back takes its place in that version:
 * layout-rule.ts, docs/console.md "Versions and layout").
 * `expectedVersion`, when given, is an optimistic lock (409).
 * A version whose configuration is the current one (a pause or resume after the last edit, the current
 * version itself) restores nothing: refused with a 422 naming `version` (rollback-rule.ts), never a 200
 * that changed nothing.
 * A version whose configuration the save's checks refuse now (a `once` run-at or an `endAt` that has
 * passed, a cron with no fire time left: the rule of save, resume and restore; a handler no worker offers;
 * a key another live job uses now) is a 422 naming `version`, with the version's own field in the message
 * and `detail.fields`: nothing is written, and the job is not left active with nothing to fire.
 */
export async function rollbackJob(
  db: Db,
  jobId: string,
  input: { version: number; reason?: string; expectedVersion?: number },
  actor: Actor,
  now = new Date(),
): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  // the key the rollback takes back, when it changes it
  let key: string | undefined;
  try {
    return await inTransaction(db, async (tx) => {
      const job = await lockJob(tx, jobId);
      await assertExpectedVersion(tx, job, input.expectedVersion);
      const row = await tx.jobVersion.findUnique({ where: { jobId_version: { jobId: job.id, version: input.version } } });
      if (!row) throw new DomainError('not_found', `Version ${input.version} not found`, { version: 'No such version' });
      const nothing = () => {
        const message = nothingToRollBack(input.version, row.changeType, job.version);
        return new DomainError('unprocessable', message, { version: message });
      };
      const current = await tx.jobVersion.findUnique({ where: { jobId_version: { jobId: job.id, version: job.version } } });
      if (input.version === job.version || (current && sameConfiguration(row.snapshot as Record<string, unknown>, current.snapshot as Record<string, unknown>))) throw nothing();
      // status is not configuration (rollback leaves it as it is), and the input schema is strict
      const { status: _status, ...snapshot } = row.snapshot as Record<string, unknown>;
      const parsed = UpdateJobInput.safeParse({ ...snapshot, expectedVersion: job.version });
      if (!parsed.success) {
        throw new DomainError('unprocessable', `Version ${input.version} can no longer be applied: ${parsed.error.issues[0]?.message}`);
      }
      const { expectedVersion: _v, reason: _r, ...changes } = parsed.data;
      // a key another live job took since: refused at `version` like the version's other refused fields
      // (the request names no key, and a unique violation at `key` would name a field it does not have)
      key = changes.key && changes.key !== job.key ? changes.key : undefined;
      const holder = key ? await liveKeyHolder(tx, key, job.id) : null;
      if (holder) throw keyHeldRefusal(holder, input.version);
      // Layout is not configuration (layout-rule.ts): a step the job has now stays where it sits; a step the
      // rollback brings back takes the place it had in that version.
      if (changes.steps) {
        const here = new Map((await tx.jobStep.findMany({ where: { jobId: job.id }, select: { key: true, positionX: true, positionY: true } }))
          .map((s) => [s.key, { x: s.positionX, y: s.positionY }]));
        changes.steps = changes.steps.map((s) => ({ ...s, position: here.get(s.key) ?? s.position }));
      }
      const rolled = await applyJobChanges(tx, job, changes, actor, now, 'rollback', input.reason ?? `Rollback to v${input.version}`)
        .catch((e: unknown) => {
          throw versionRefusal(e, input.version);
        });
      // the same rule judged on the applied change: a snapshot stored in an older form can differ and still change nothing
      if (rolled.version === job.version) throw nothing();
      return rolled;
    }, { timeoutMs: LONG_TRANSACTION_TIMEOUT_MS }); // replaces a graph of up to 500 steps
  } catch (e) {
    // a job that took the key after the check above (its insert not yet committed then): the same answer,
    // read after the refused transaction ended
    const holder = key !== undefined && isUniqueViolation(e) ? await liveKeyHolder(db, key, jobId) : null;
    if (holder) throw keyHeldRefusal(holder, input.version);
    mapDbError(e);
  }
}

/** The refusal of a rollback whose version's key a live job holds now: 422 at `version`, naming that job (versionRefusal). */
function keyHeldRefusal(holder: { id: string; name: string }, version: number): unknown {
  return versionRefusal(new DomainError('validation', 'key in use', { key: `Used by job ${holder.name} (${holder.id}): rename or delete that job first` }), version);
}

/**
 * A check of the rolled-back configuration that refused it (a DomainError 'validation' naming the version's
 * own fields, `schedule.runAt`), as the rollback request's refusal: 422 at `version`, the inner fields in the
 * message and detail. Anything else is returned unchanged.
 */
function versionRefusal(e: unknown, version: number): unknown {
  if (!isDomainError(e) || e.code !== 'validation') return e;
  const inner = Object.entries(e.fields ?? {}).map(([k, m]) => `${k}: ${m}`).join('; ') || e.message;
  return new DomainError('unprocessable', `Version ${version} cannot be applied now: ${inner}`, { version: `Its configuration is refused now: ${inner}` }, { fields: e.fields ?? {} });
}
