import { preparedSql, type SqlClient } from '../../db.ts';
import type { Run } from '../types.ts';
import { runColumns } from './columns.ts';

/**
 * Reads one run as the engine returns runs (Run's fields), e.g. after a trigger ended a run of
 * a job without steps. Lock: none. Index: runs primary key (id leads it; every weekly partition
 * is probed, the caller knows no slot).
 * @throws Error when the run does not exist (the caller has just written it)
 */
export async function loadRun(tx: SqlClient, runId: string): Promise<Run> {
  const [run] = await tx.$queryRawUnsafe<Run[]>(
    preparedSql('load-run', `SELECT ${runColumns('r')} FROM runs r WHERE r.id = $1::uuid`),
    runId,
  );
  if (!run) throw new Error(`run ${runId} not found`);
  return run;
}
