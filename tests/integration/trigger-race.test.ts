/**
 * Concurrent triggers against the block strategy (docs/engine.md "Triggers in one statement"):
 * bursts of triggers of one discard_later and one serial_execution job from four clients —
 * most through the one-statement path, some inside callers' transactions — while job edits
 * and completions run beside them. A deferred constraint trigger, installed in this test's own
 * database only, records every commit that leaves a discard_later job with two active runs or
 * a serial_execution job with two runs whose tasks may start. The guard that makes the
 * one-statement path safe (insert-runs.ts: the locked job row must be the snapshot's version)
 * is what this catches: without it the same bursts record violations.
 */
import { describe, expect, it } from 'vitest';
import { createPrismaClient, type PrismaClient } from '../../lib/db.ts';
import { claimTasks, completeTask, triggerRun } from '../../lib/engine/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob } from './engine-fixtures.ts';

const t = useTestDatabase();

const BURSTS = 40;
const PER_CLIENT = 8;

const INVARIANT_CHECK = `
CREATE TABLE test_violations (job_id text, active int);
CREATE FUNCTION test_check_block() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE n int; strategy text;
BEGIN
  IF NEW.status NOT IN ('pending', 'running') THEN RETURN NULL; END IF;
  SELECT block_strategy::text INTO strategy FROM jobs WHERE id = NEW.job_id::uuid;
  IF strategy = 'discard_later' THEN
    SELECT count(*) INTO n FROM runs WHERE job_id = NEW.job_id AND status IN ('pending', 'running');
  ELSIF strategy = 'serial_execution' THEN
    SELECT count(*) INTO n FROM runs r WHERE r.job_id = NEW.job_id AND r.status IN ('pending', 'running')
       AND NOT EXISTS (SELECT 1 FROM tasks x WHERE x.run_id = r.id AND x.pending_parents > 0);
  ELSE RETURN NULL; END IF;
  IF n > 1 THEN INSERT INTO test_violations VALUES (NEW.job_id, n); END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER test_check_block AFTER INSERT OR UPDATE OF status ON runs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_check_block();`;

describe('triggers racing each other, job edits and completions', () => {
  it('never leave two active runs of a discard_later job or two startable runs of a serial_execution job', async () => {
    await t.pool.query(INVARIANT_CHECK);
    const clients = Array.from({ length: 4 }, () => createPrismaClient(t.url, 4));
    const handler = 'race.work';
    try {
      const discard = await insertJob(t.db, { blockStrategy: 'discard_later', steps: [{ key: 'm', handler }] });
      const serial = await insertJob(t.db, { blockStrategy: 'serial_execution', steps: [{ key: 'm', handler }] });
      const others = await Promise.all(Array.from({ length: 4 }, () => insertJob(t.db, { steps: [{ key: 'm', handler }] })));
      const fire = (db: PrismaClient | Parameters<Parameters<PrismaClient['$transaction']>[0]>[0], jobId: string) =>
        triggerRun(db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
      const completeAll = async (db: PrismaClient) => {
        for (;;) {
          const claimed = await claimTasks(db, { nodeId: 'race', handlers: [handler], group: 'default', labels: {}, limit: 1000, leaseSeconds: 30 });
          if (claimed.length === 0) return;
          await Promise.all(claimed.map((c) => completeTask(db, { taskId: c.id, attempt: c.attempt, nodeId: 'race', outcome: 'success' })));
        }
      };
      let editing = true;
      const editor = (async () => {
        // a job edit bumps the job row's version, as the console's save does
        while (editing) for (const jobId of [discard, serial]) await t.pool.query('UPDATE jobs SET version = version + 1 WHERE id = $1', [jobId]);
      })();
      const outcomes: Record<string, number> = {};
      try {
        for (let burst = 0; burst < BURSTS; burst++) {
          await completeAll(clients[0]!);
          const calls: Promise<{ jobId: string; outcome: string }>[] = [];
          clients.forEach((db, c) => {
            for (let k = 0; k < PER_CLIENT; k++) {
              const jobId = k % 2 === 0 ? discard : k % 4 === 1 ? serial : others[(k + c) % others.length]!;
              const call = k === 7 ? db.$transaction((tx) => fire(tx, jobId)) : fire(db, jobId);
              calls.push(call.then((r) => ({ jobId, outcome: r.outcome })));
            }
          });
          const racing = completeAll(clients[1]!);
          for (const { jobId, outcome } of await Promise.all(calls)) {
            const key = `${jobId === discard ? 'discard' : jobId === serial ? 'serial' : 'other'}:${outcome}`;
            outcomes[key] = (outcomes[key] ?? 0) + 1;
          }
          await racing;
        }
      } finally {
        editing = false;
        await editor;
      }
      const { rows: [v] } = await t.pool.query(`SELECT count(*)::int AS n FROM test_violations`);
      expect(v.n).toBe(0);
      // the bursts did contend: runs started and were refused or queued for both strategies
      expect(outcomes['discard:started']).toBeGreaterThan(0);
      expect(outcomes['discard:skipped']).toBeGreaterThan(0);
      expect(outcomes['serial:queued']).toBeGreaterThan(0);
      const { rows: [counts] } = await t.pool.query(
        `SELECT (SELECT total_runs FROM jobs WHERE id = $1::uuid) AS total, (SELECT count(*)::int FROM runs WHERE job_id = $2::text AND status <> 'skipped') AS runs`,
        [discard, discard]);
      expect(counts.total).toBe(counts.runs);
    } finally {
      for (const c of clients) await c.$disconnect();
    }
  }, 120_000);
});
