import { preparedSql, type SqlClient } from '../../db.ts';

/**
 * Records why an open run is being ended by an operator (kept by finalise-run,
 * which only fills `error` when it is empty). Lock: the run row (held).
 * Index: runs primary key.
 */
export async function setRunError(tx: SqlClient, p: { runId: string; error: string }, now: Date): Promise<void> {
  await tx.$executeRawUnsafe(
    preparedSql('set-run-error', `UPDATE runs SET error = $2, updated_at = $3::timestamptz WHERE id = $1::uuid AND status IN ('pending', 'running')`),
    p.runId, p.error, now,
  );
}
